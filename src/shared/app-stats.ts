// The stats view's numbers (#34 §6, as OBS's Stats dock): what the app's processes use, and what the run
// loses where, each over the last seconds and since the start. The window arithmetic is here, once: main
// windows the app's CPU and the run's counters, the page windows the compositor's and its own skips.
import { SlidingWindow } from './sliding-window'

/** The last seconds the stats view shows beside "since the start". */
export const STATS_WINDOW_MS = 5000

/**
 * Which of the app's processes: the app process itself (Electron's main, or Node running the web shell),
 * Electron's page and GPU processes and its other helpers, the local studio child, Onair's encoder
 * process, every ffmpeg (the broadcaster's, and the studio's recorders, transcoders and forwarders).
 */
export const PROCESS_KINDS = [
  'app',
  'renderer',
  'gpu',
  'electron',
  'studio',
  'encoder',
  'ffmpeg',
  'other'
] as const
export type ProcessKind = (typeof PROCESS_KINDS)[number]

export interface KindUsage {
  kind: ProcessKind | 'total'
  /** Processes of this kind running now. */
  processes: number
  /** CPU over the last seconds and since the app started, in % of one core (a whole machine is cores × 100). */
  cpuPercent: number
  cpuPercentSinceStart: number
  /** Resident memory now, and the most seen since the stats were first read (bytes). */
  rssBytes: number
  rssPeakBytes: number
}

/** A counter over the last seconds and since the start. */
export interface Windowed {
  last: number
  total: number
}

export interface RunStatsView {
  runId: string
  /** When the run started (ms epoch): "since the start" means since then. */
  since: number
  /** The rate leaving the computer (kbit/s): over the last seconds, and on average since the start. */
  kbps: number
  kbpsSinceStart: number
  /** Media dropped before the socket by the network (MediaFeed): times and media ms. */
  networkDrops: Windowed
  networkDroppedMs: Windowed
  /** Frames skipped before Onair's encoder (it or its host could not keep up); absent when the page encodes. */
  encoderSkipped?: Windowed
}

export interface AppStatsView {
  at: number
  /** When the app started (ms epoch). */
  since: number
  /** Logical cores: a whole machine's CPU is cores × 100 %. */
  cores: number
  /** How CPU and memory were read here ('proc' on Linux, 'ps' on macOS, 'windows', plus 'electron'). */
  source: string
  /** One row per kind that ran, then the total. */
  kinds: KindUsage[]
  total: KindUsage
  /** What the last seconds' CPU covers (ms): 0 on the first read, up to STATS_WINDOW_MS. */
  windowMs: number
  run: RunStatsView | null
}

/**
 * A counter that only grows (frames late, skipped, dropped; bytes sent), read as its value now and how
 * much it grew over the last `spanMs`. Before a whole span has been seen, the growth is counted from the
 * first value held (add the counter's start, such as 0 when a run begins, to count from there).
 */
export class CounterWindow {
  /** One sample at or before the window's start is kept, to measure from. */
  private readonly samples: SlidingWindow<{ at: number; value: number }>

  constructor(readonly spanMs = STATS_WINDOW_MS) {
    this.samples = new SlidingWindow(spanMs)
  }

  add(at: number, value: number): void {
    const last = this.samples.last
    if (last && at < last.at) return
    this.samples.push({ at, value })
  }

  /** The growth over the last span (and the ms it covers: less than the span early on). */
  recent(now: number): { delta: number; ms: number } {
    const last = this.samples.last
    if (!last) return { delta: 0, ms: 0 }
    let base = this.samples.first!
    for (const s of this.samples.samples) if (s.at <= now - this.spanMs) base = s
    return { delta: last.value - base.value, ms: last.at - base.at }
  }

  latest(): number {
    return this.samples.last?.value ?? 0
  }

  view(now: number): Windowed {
    return { last: this.recent(now).delta, total: this.latest() }
  }
}

/** CPU seconds used over `ms` of wall time as % of one core. */
export const cpuPercent = (cpuSeconds: number, ms: number): number =>
  ms > 0 ? Math.max(0, (cpuSeconds * 1000 * 100) / ms) : 0

/** Sums per-kind rows into the total row; its peak is the most the whole app held at once. */
export function totalUsage(rows: readonly KindUsage[], peakBytes: number): KindUsage {
  const t: KindUsage = {
    kind: 'total',
    processes: 0,
    cpuPercent: 0,
    cpuPercentSinceStart: 0,
    rssBytes: 0,
    rssPeakBytes: peakBytes
  }
  for (const r of rows) {
    t.processes += r.processes
    t.cpuPercent += r.cpuPercent
    t.cpuPercentSinceStart += r.cpuPercentSinceStart
    t.rssBytes += r.rssBytes
  }
  t.rssPeakBytes = Math.max(t.rssPeakBytes, t.rssBytes)
  return t
}

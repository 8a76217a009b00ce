// The app's CPU and memory per kind of process (#34 §6): the app process, the children it tracks
// (src/node/process.ts: the studio, the encoder, every ffmpeg) and whatever they started (the studio's
// ffmpegs), and in Electron its page, GPU and helper processes (app.getAppMetrics(), injected).
// CPU over the last seconds comes from two samples' CPU seconds; since the start, from each process's
// CPU seconds so far (the app's own since it started; a child that ended keeps its last figure, one that
// started and ended unseen between reads is not counted).
import {
  PROCESS_KINDS,
  STATS_WINDOW_MS,
  cpuPercent,
  totalUsage,
  type KindUsage,
  type ProcessKind
} from '../../../shared/app-stats'
import type { ChildKind } from '../../../node/process'
import { electronRows, type ProcRow, type ProcSampler, type ProcessMetricLike } from './samplers'

export interface ResourceDeps {
  sampler: ProcSampler
  appPid: number
  /** When the app process started (ms epoch). */
  startedAt: number
  /** The app process's own CPU seconds and resident bytes (process.cpuUsage, process.memoryUsage). */
  self: () => { cpuSec: number; rssBytes: number }
  /** The children the app tracks, with their kind. */
  children: () => { pid: number; kind: ChildKind }[]
  /** Electron's app.getAppMetrics(), in the Electron shell only. */
  metrics?: () => ProcessMetricLike[]
  now?: () => number
}

interface Seen {
  kind: ProcessKind
  cpuSec: number
  rssBytes: number
}

interface Sample {
  at: number
  procs: Map<number, Seen>
}

export interface ResourcesView {
  source: string
  kinds: KindUsage[]
  total: KindUsage
  /** What the last-seconds CPU figures cover (ms): 0 until a second read. */
  windowMs: number
}

const FFMPEG = /^ffmpeg(\.exe)?$/i

export class ResourceMonitor {
  private history: Sample[] = []
  /** Every process seen, with its last figures (since-start CPU counts the ones that ended too). */
  private ever = new Map<number, Seen>()
  private peaks = new Map<ProcessKind | 'total', number>()
  private electronPrev = new Map<number, number>()
  private lastAt: number | undefined
  private sampleError: string | undefined

  constructor(private d: ResourceDeps) {}

  private now(): number {
    return this.d.now?.() ?? Date.now()
  }

  /** Reads every process of the app once and answers the figures. */
  async sample(): Promise<ResourcesView> {
    const at = this.now()
    let rows: ProcRow[] = []
    try {
      rows = await this.d.sampler.sample()
      this.sampleError = undefined
    } catch (e) {
      // The app's own figures still come from Node; the children's are missing and the source says why.
      this.sampleError = e instanceof Error ? e.message : String(e)
    }
    const procs = this.appTree(rows, at)
    this.history.push({ at, procs })
    for (const [pid, s] of procs) this.ever.set(pid, s)
    while (this.history.length > 2 && this.history[1]!.at <= at - STATS_WINDOW_MS)
      this.history.shift()
    this.lastAt = at
    return this.view(at)
  }

  private appTree(rows: ProcRow[], at: number): Map<number, Seen> {
    const procs = new Map<number, Seen>()
    const byPid = new Map(rows.map((r) => [r.pid, r]))
    const kids = new Map<number, ProcRow[]>()
    for (const r of rows) {
      const list = kids.get(r.ppid)
      if (list) list.push(r)
      else kids.set(r.ppid, [r])
    }
    const known = new Map<number, ProcessKind>()
    if (this.d.metrics) {
      const elapsed = this.lastAt === undefined ? 0 : (at - this.lastAt) / 1000
      for (const { row, kind } of electronRows(this.d.metrics(), elapsed, this.electronPrev)) {
        known.set(row.pid, kind)
        // The OS's own table wins where it has the process; Electron's figures stand in elsewhere.
        if (!byPid.has(row.pid))
          procs.set(row.pid, { kind, cpuSec: row.cpuSec, rssBytes: row.rssBytes })
      }
    }
    for (const c of this.d.children()) known.set(c.pid, c.kind)
    const self = this.d.self()
    procs.set(this.d.appPid, { kind: 'app', ...self })
    // Walk down from every tracked child (the studio's ffmpegs are its children, not the app's). The
    // app's other children are not walked: process.ts starts every child of Onair, and in Electron its
    // page and GPU processes are named by getAppMetrics; anything else (a test's browser) is not Onair's.
    const visit = (pid: number, inherited: ProcessKind): void => {
      for (const r of kids.get(pid) ?? []) {
        if (procs.has(r.pid) && r.pid !== this.d.appPid) continue
        const kind = known.get(r.pid) ?? (FFMPEG.test(r.name) ? 'ffmpeg' : inherited)
        procs.set(r.pid, { kind, cpuSec: r.cpuSec, rssBytes: r.rssBytes })
        visit(r.pid, kind === 'app' ? 'other' : kind)
      }
    }
    for (const [pid, kind] of known) {
      if (procs.has(pid)) continue
      const r = byPid.get(pid)
      if (!r) continue
      procs.set(pid, { kind, cpuSec: r.cpuSec, rssBytes: r.rssBytes })
      visit(pid, kind)
    }
    return procs
  }

  private view(at: number): ResourcesView {
    const latest = this.history[this.history.length - 1]!
    let base = this.history[0]!
    for (const s of this.history) if (s.at <= at - STATS_WINDOW_MS) base = s
    const windowMs = latest.at - base.at
    const sinceMs = Math.max(1, at - this.d.startedAt)
    const rows = new Map<ProcessKind, KindUsage>()
    const row = (kind: ProcessKind): KindUsage => {
      let r = rows.get(kind)
      if (!r) {
        r = {
          kind,
          processes: 0,
          cpuPercent: 0,
          cpuPercentSinceStart: 0,
          rssBytes: 0,
          rssPeakBytes: 0
        }
        rows.set(kind, r)
      }
      return r
    }
    for (const [pid, s] of this.ever) {
      const r = row(s.kind)
      r.cpuPercentSinceStart += cpuPercent(s.cpuSec, sinceMs)
      // Over the window: what each process used since the window's first read (all of it if it began
      // since; up to its last read if it ended since).
      const alive = latest.procs.get(pid)
      const now = alive?.cpuSec ?? this.lastSeenAfter(pid, base.at)
      if (windowMs > 0 && now !== undefined) {
        const before = base.procs.get(pid)?.cpuSec ?? 0
        r.cpuPercent += cpuPercent(Math.max(0, now - before), windowMs)
      }
      if (alive) {
        r.processes++
        r.rssBytes += alive.rssBytes
      }
    }
    const kinds = PROCESS_KINDS.filter((k) => rows.has(k)).map((k) => rows.get(k)!)
    for (const r of kinds) {
      r.rssPeakBytes = Math.max(this.peaks.get(r.kind) ?? 0, r.rssBytes)
      this.peaks.set(r.kind, r.rssPeakBytes)
    }
    const total = totalUsage(kinds, this.peaks.get('total') ?? 0)
    this.peaks.set('total', total.rssPeakBytes)
    const source =
      this.d.sampler.source +
      (this.d.metrics ? '+electron' : '') +
      (this.sampleError ? ` (children unread: ${this.sampleError})` : '')
    return { source, kinds, total, windowMs }
  }

  /** A process that ended within the window: its CPU seconds when last seen there. */
  private lastSeenAfter(pid: number, after: number): number | undefined {
    for (let i = this.history.length - 1; i >= 0; i--) {
      const s = this.history[i]!
      if (s.at < after) break
      const p = s.procs.get(pid)
      if (p) return p.cpuSec
    }
    return undefined
  }
}

// The stats view (#34 §6), as OBS's Stats dock: what the app's processes use (CPU and memory per kind,
// from appStats() once a second while the view is open), and what the run loses where: frames the
// compositor rendered late, frames skipped before the encoder, media dropped by the network, and the
// bitrate, each over the last seconds and since the start.
import { useEffect, useRef, useState, type ReactNode } from 'react'
import {
  CounterWindow,
  STATS_WINDOW_MS,
  type AppStatsView,
  type KindUsage,
  type Windowed
} from '../../../../shared/app-stats'
import { formatBytes } from '../../../../shared/local-recording'
import type { AppError } from '../../../../shared/result'
import { formatBitrate, formatDuration } from '../../lib/format'
import { ErrorNote } from '../../components/ErrorNote'
import { useApi } from '../../lib/api'
import { useLiveRun } from '../../lib/live-run'
import '../../styles/stats.css'

const KIND_LABEL: Record<KindUsage['kind'], string> = {
  app: 'Onair (app process)',
  renderer: 'Page',
  gpu: 'GPU process',
  electron: 'Other Electron helpers',
  studio: 'Local studio',
  encoder: 'Encoder process',
  ffmpeg: 'ffmpeg',
  other: 'Other children',
  total: 'Total'
}

const SECS = STATS_WINDOW_MS / 1000
const pct = (n: number): string => `${n.toFixed(1)} %`

/** The page's own counters (the compositor's, the page's skips), windowed while the view is open. */
interface PageCounters {
  late: Windowed | null
  drawn: Windowed | null
  pageSkips: Windowed | null
}

export function StatsScreen(): ReactNode {
  const api = useApi()
  const live = useLiveRun()
  const [stats, setStats] = useState<AppStatsView | null>(null)
  const [error, setError] = useState<AppError | null>(null)
  const [page, setPage] = useState<PageCounters | null>(null)
  const liveRef = useRef(live)
  liveRef.current = live
  const windows = useRef<{ program: unknown; late: CounterWindow; drawn: CounterWindow }>(null)
  const skips = useRef<{ runId: string; w: CounterWindow } | null>(null)

  useEffect(() => {
    let alive = true
    const read = async (): Promise<void> => {
      const r = await api.appStats()
      if (!alive) return
      if (r.ok) {
        setStats(r.value)
        setError(null)
      } else setError(r.error)
      const l = liveRef.current
      const now = performance.now()
      const program = l.running ? l.compositor : null
      let late: Windowed | null = null
      let drawn: Windowed | null = null
      if (program) {
        if (windows.current?.program !== program)
          windows.current = { program, late: new CounterWindow(), drawn: new CounterWindow() }
        const s = program.stats()
        windows.current.late.add(now, s.late)
        windows.current.drawn.add(now, s.ticks)
        late = windows.current.late.view(now)
        drawn = windows.current.drawn.view(now)
      }
      let pageSkips: Windowed | null = null
      const runId = l.run?.runId
      if (runId && l.pageSkips !== undefined) {
        // Its total is since the run started; the last seconds count from the view's first read.
        if (skips.current?.runId !== runId) skips.current = { runId, w: new CounterWindow() }
        skips.current.w.add(now, l.pageSkips)
        pageSkips = skips.current.w.view(now)
      }
      setPage({ late, drawn, pageSkips })
    }
    void read()
    const t = setInterval(() => void read(), 1000)
    return () => {
      alive = false
      clearInterval(t)
    }
  }, [api])

  return (
    <section className="stats-screen" aria-labelledby="stats-heading">
      <h1 id="stats-heading">Stats</h1>
      {error && <ErrorNote error={error} />}
      {!stats && !error && <p className="muted">Reading…</p>}
      {stats && (
        <>
          <ResourcesTable stats={stats} />
          <RunTable stats={stats} page={page} running={live.running} />
        </>
      )}
    </section>
  )
}

function ResourcesTable({ stats }: { stats: AppStatsView }): ReactNode {
  const measured = stats.windowMs >= 500
  const rows = [...stats.kinds, stats.total]
  return (
    <table className="stats-table" data-testid="stats-resources" data-cores={stats.cores}>
      <caption>
        Onair&apos;s processes: CPU in % of one core (this computer has {stats.cores}, so{' '}
        {stats.cores * 100} % is all of it), memory resident
        <span className="muted small"> · read by {stats.source}</span>
      </caption>
      <thead>
        <tr>
          <th scope="col">Process</th>
          <th scope="col" className="num">
            Running
          </th>
          <th scope="col" className="num">
            CPU, last {SECS} s
          </th>
          <th scope="col" className="num">
            CPU, since start
          </th>
          <th scope="col" className="num">
            Memory
          </th>
          <th scope="col" className="num">
            Peak
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr
            key={r.kind}
            className={r.kind === 'total' ? 'total' : undefined}
            data-testid={`stats-kind-${r.kind}`}
            data-cpu={r.cpuPercent.toFixed(2)}
            data-cpu-since={r.cpuPercentSinceStart.toFixed(2)}
            data-rss={r.rssBytes}
          >
            <th scope="row">{KIND_LABEL[r.kind]}</th>
            <td className="num">{r.processes}</td>
            <td className="num">{measured ? pct(r.cpuPercent) : '…'}</td>
            <td className="num">{pct(r.cpuPercentSinceStart)}</td>
            <td className="num">{r.processes > 0 ? formatBytes(r.rssBytes) : '—'}</td>
            <td className="num">{formatBytes(r.rssPeakBytes)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function RunTable({
  stats,
  page,
  running
}: {
  stats: AppStatsView
  page: PageCounters | null
  running: boolean
}): ReactNode {
  const run = stats.run
  if (!run)
    return (
      <p className="muted" data-testid="stats-no-run">
        Go live to see the run&apos;s numbers here: frames rendered late, skipped, dropped, and the
        bitrate.
      </p>
    )
  const since = formatDuration((stats.at - run.since) / 1000)
  const skipped =
    run.encoderSkipped || page?.pageSkips
      ? {
          last: (run.encoderSkipped?.last ?? 0) + (page?.pageSkips?.last ?? 0),
          total: (run.encoderSkipped?.total ?? 0) + (page?.pageSkips?.total ?? 0)
        }
      : null
  const rows: {
    id: string
    label: string
    last: string
    total: string
    value?: number
    /** Of the skipped frames, those main or the encoder process skipped (the rest the page did). */
    encoder?: number
  }[] = [
    {
      id: 'bitrate',
      label: 'Bitrate sent',
      last: formatBitrate(run.kbps * 1000),
      total: formatBitrate(run.kbpsSinceStart * 1000),
      value: run.kbps
    },
    {
      id: 'late',
      label: 'Frames rendered late (scene compositor)',
      last: page?.late && page.drawn ? `${page.late.last} of ${page.drawn.last}` : '—',
      total: page?.late && page.drawn ? `${page.late.total} of ${page.drawn.total}` : '—',
      value: page?.late?.total
    },
    {
      id: 'skipped',
      label: 'Frames skipped by the encoder',
      last: skipped ? String(skipped.last) : '—',
      total: skipped ? String(skipped.total) : '—',
      value: skipped?.total,
      encoder: run.encoderSkipped?.total
    },
    {
      id: 'dropped',
      label: 'Dropped by the network',
      last: dropWords(run.networkDrops.last, run.networkDroppedMs.last),
      total: dropWords(run.networkDrops.total, run.networkDroppedMs.total),
      value: run.networkDrops.total
    }
  ]
  return (
    <table className="stats-table" data-testid="stats-run" data-running={running}>
      <caption>
        This run{running ? '' : ' (ended)'}: the last {SECS} s and since it started ({since} ago)
      </caption>
      <thead>
        <tr>
          <th scope="col">Measure</th>
          <th scope="col" className="num">
            Last {SECS} s
          </th>
          <th scope="col" className="num">
            Since start
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr
            key={r.id}
            data-testid={`stats-run-${r.id}`}
            data-value={r.value ?? ''}
            data-encoder={r.encoder ?? ''}
          >
            <th scope="row">{r.label}</th>
            <td className="num">{r.last}</td>
            <td className="num">{r.total}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

const dropWords = (times: number, ms: number): string =>
  times === 0 ? 'none' : `${times}× (${(ms / 1000).toFixed(1)} s of media)`

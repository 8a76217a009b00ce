// A live run that Onair did not end itself (a crash, a kill, a power cut) leaves a small marker in
// the app data folder: written when a run starts, refreshed while it runs, removed when it ends in
// order. The next start finds it and tells the creator that the broadcast was cut off (the contract's
// cutOffNotice). Written atomically (tmp file + rename): a kill mid-write never leaves half a marker.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { CutOffNotice } from '../../shared/contract'
import type { ApiClient } from './api-client'
import { toSessionView } from './view-models'

export interface LiveMarker {
  runId: string
  streamId: string
  streamName: string
  /** The connection the run went out on: its sessions are where the recording is. */
  connectionId: string
  /** ms since epoch. */
  startedAt: number
  /** The last moment the app was known to be running the broadcast (ms since epoch). */
  aliveAt: number
}

export const MARKER_FILE = 'live-run.json'
/** How often a running broadcast refreshes its marker's aliveAt: the cut-off time is this close. */
export const MARKER_REFRESH_MS = 5000

const isMarker = (x: unknown): x is LiveMarker => {
  const m = x as Record<string, unknown> | null
  return (
    !!m &&
    ['runId', 'streamId', 'streamName', 'connectionId'].every((k) => typeof m[k] === 'string') &&
    typeof m.startedAt === 'number' &&
    typeof m.aliveAt === 'number'
  )
}

export class CrashMarker {
  readonly file: string
  private current: LiveMarker | null = null

  constructor(
    private readonly dir: string,
    private readonly now: () => number = Date.now
  ) {
    this.file = join(dir, MARKER_FILE)
  }

  /** The marker a previous process left (a run it never ended), or null. An unreadable one is null. */
  read(): LiveMarker | null {
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.file, 'utf8'))
      return isMarker(parsed) ? parsed : null
    } catch {
      return null
    }
  }

  /** A run started: its marker says so until it ends in order. */
  started(m: Omit<LiveMarker, 'startedAt' | 'aliveAt'>): void {
    const at = this.now()
    this.write({ ...m, startedAt: at, aliveAt: at })
  }

  /** The run still goes on: aliveAt is refreshed at most every MARKER_REFRESH_MS. */
  alive(runId: string): void {
    const m = this.current
    if (!m || m.runId !== runId) return
    const at = this.now()
    if (at - m.aliveAt >= MARKER_REFRESH_MS) this.write({ ...m, aliveAt: at })
  }

  /** The run ended in order (stopped, failed, or the app quit): no marker is left. */
  ended(runId: string): void {
    if (this.current?.runId !== runId) return
    this.current = null
    rmSync(this.file, { force: true })
  }

  /** Forgets a marker a previous process left, unless a run of this process wrote over it since. */
  forget(runId: string): void {
    if (this.current) return
    if (this.read()?.runId === runId) rmSync(this.file, { force: true })
  }

  private write(m: LiveMarker): void {
    mkdirSync(this.dir, { recursive: true })
    const tmp = `${this.file}.${process.pid}.tmp`
    writeFileSync(tmp, JSON.stringify(m), { mode: 0o600 })
    renameSync(tmp, this.file)
    this.current = m
  }
}

/**
 * What the next start says about a marker left behind: the stream, when it was cut off, and the run's
 * session with its recording (the session's own record: its duration, its recording's state), read
 * from the connection the run went out on when that is still the active one. The session's lastSeen
 * (its last media at the ingest) is the cut-off time when there is one; else the marker's aliveAt.
 */
export async function cutOffNoticeOf(
  m: LiveMarker,
  activeConnectionId: string | undefined,
  client: () => Promise<ApiClient>
): Promise<CutOffNotice> {
  const base: CutOffNotice = {
    runId: m.runId,
    streamId: m.streamId,
    streamName: m.streamName,
    cutAt: m.aliveAt
  }
  if (activeConnectionId !== m.connectionId) return base
  try {
    const page = await (await client()).listStreamSessions(m.streamId, { limit: 10 })
    // The run's session: the newest that saw media after the run started (a resumed session of
    // the same stream may have begun before it).
    const session = page.items
      .map(toSessionView)
      .filter((s) => s.lastSeen >= m.startedAt)
      .sort((a, b) => b.createdAt - a.createdAt)[0]
    if (!session) return base
    return { ...base, session, cutAt: Math.max(session.lastSeen, m.startedAt) }
  } catch {
    // The service cannot be reached now: the notice still says what happened, without the recording.
    return base
  }
}

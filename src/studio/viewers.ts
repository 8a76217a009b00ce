// Viewers now (#20), as Livepeer's GET /data/views/now counts them: one viewer per player session.
//
// A player session starts with a fetch of a live stream's master playlist. The master we answer names
// its media playlists with `?v=<session>`, so each reload of a media playlist (every segment, about
// 2 s) says which session is still watching. A session counts once it has fetched media (a probe that
// only reads the master is no viewer) and ends VIEWER_IDLE_MS after its last request. Two players on
// one computer are two sessions: nothing here looks at addresses. Onair's own live monitor
// asks for its master with `?onair=monitor` and is not counted (Livepeer counts viewers from its
// player's metrics, so an hls.js monitor is not counted there either).

/**
 * A session ends this long after its last request: a player reloads its media playlist every segment
 * (about 2 s), so a viewer who left is gone within this.
 */
export const VIEWER_IDLE_MS = 10_000
/** The query parameter that carries a viewer session on media playlist URLs. */
export const VIEWER_PARAM = 'v'

/** A bound on live sessions per studio, so a script fetching masters cannot grow memory. */
const MAX_SESSIONS = 100_000

export interface ViewerInfo {
  device: string
  browser: string
}

interface Session extends ViewerInfo {
  playbackId: string
  last: number
  /** It has fetched media: a viewer, not a probe of the master. */
  watching: boolean
}

export type Breakdown = 'playbackId' | 'device' | 'browser' | 'country'

export interface ViewMetric {
  playbackId?: string
  device?: string
  browser?: string
  country?: string
  viewCount: number
  errorRate: number
}

export class ViewerSessions {
  private sessions = new Map<string, Session>()
  private seq = 0

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * A master playlist was fetched: a new player session, named in its media playlist URLs. It counts
   * once it touches media.
   */
  start(playbackId: string, info: ViewerInfo): string {
    this.sweep()
    if (this.sessions.size >= MAX_SESSIONS) {
      const oldest = this.sessions.keys().next().value
      if (oldest !== undefined) this.sessions.delete(oldest)
    }
    const id = `${(++this.seq).toString(36)}${Math.random().toString(36).slice(2, 8)}`
    this.sessions.set(id, { ...info, playbackId, last: this.now(), watching: false })
    return id
  }

  /** A media playlist request of session `id`: it is still watching (false if unknown or ended). */
  touch(id: string, playbackId: string): boolean {
    const s = this.sessions.get(id)
    if (!s || s.playbackId !== playbackId || this.now() - s.last > VIEWER_IDLE_MS) return false
    s.last = this.now()
    s.watching = true
    // Keep the map in order of last use, so the oldest is first when the bound is reached.
    this.sessions.delete(id)
    this.sessions.set(id, s)
    return true
  }

  private sweep(): void {
    const cut = this.now() - VIEWER_IDLE_MS
    for (const [id, s] of this.sessions) if (s.last < cut) this.sessions.delete(id)
  }

  /**
   * The metrics of GET /data/views/now over these playbackIds: one row, or one per group of the
   * breakdown fields (a playbackId with no viewer still gets its row of 0 when broken down by it).
   */
  metrics(playbackIds: readonly string[], breakdown: readonly Breakdown[]): ViewMetric[] {
    this.sweep()
    const wanted = new Set(playbackIds)
    const by = [...new Set(breakdown)]
    const groups = new Map<string, ViewMetric>()
    const keyOf = (m: ViewMetric): string => JSON.stringify(by.map((f) => m[f] ?? null))
    const add = (m: ViewMetric, n: number): void => {
      const k = keyOf(m)
      const g = groups.get(k)
      if (g) g.viewCount += n
      else groups.set(k, { ...m, viewCount: n, errorRate: 0 })
    }
    if (by.includes('playbackId') && by.length === 1)
      for (const id of wanted) add({ playbackId: id, viewCount: 0, errorRate: 0 }, 0)
    for (const s of this.sessions.values()) {
      if (!s.watching || !wanted.has(s.playbackId)) continue
      const m: ViewMetric = { viewCount: 0, errorRate: 0 }
      if (by.includes('playbackId')) m.playbackId = s.playbackId
      if (by.includes('device')) m.device = s.device
      if (by.includes('browser')) m.browser = s.browser
      // The local studio knows no viewer's country.
      if (by.includes('country')) m.country = 'Unknown'
      add(m, 1)
    }
    if (groups.size === 0) return [{ viewCount: 0, errorRate: 0 }]
    return [...groups.values()]
  }
}

/** A rough device and browser from a User-Agent, for breakdownBy[]. */
export function viewerInfo(userAgent: string | undefined): ViewerInfo {
  const ua = userAgent ?? ''
  const device = /iPhone/.test(ua)
    ? 'iPhone'
    : /iPad/.test(ua)
      ? 'iPad'
      : /Android/.test(ua)
        ? 'Android'
        : /Windows|Macintosh|Linux|CrOS/.test(ua)
          ? 'Desktop'
          : 'Unknown'
  const browser = /Edg\//.test(ua)
    ? 'Edge'
    : /Firefox\//.test(ua)
      ? 'Firefox'
      : /Chrome\/|Chromium\//.test(ua)
        ? 'Chrome'
        : /Safari\//.test(ua)
          ? 'Safari'
          : 'Unknown'
  return { device, browser }
}

/**
 * The master playlist as this viewer gets it: each media playlist URI carries the session, so its
 * reloads keep the session alive. Lines that are not URIs are kept as they are.
 */
export function tagMaster(master: string, session: string): string {
  return master
    .split('\n')
    .map((line) =>
      line.trim() === '' || line.startsWith('#')
        ? line
        : `${line}${line.includes('?') ? '&' : '?'}${VIEWER_PARAM}=${encodeURIComponent(session)}`
    )
    .join('\n')
}

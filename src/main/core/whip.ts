// Low latency (WebRTC): the signalling half of a WHIP publish. The page makes the peer connection and
// sends the media itself; main posts its SDP offer to the service's WHIP URL (which carries the stream
// key, so the key never reaches the page), answers the service's SDP, and DELETEs the session's
// Location when the run ends. One run at a time, as for RTMP runs.
import { randomUUID } from 'node:crypto'
import { redactSecrets } from '../../shared/redact'
import { AppFailure } from '../../shared/result'

/** Livepeer's WHIP address for a key when the service says nothing else (its browser guide). */
export const LIVEPEER_WHIP_BASE = 'https://livepeer.studio/webrtc'

/** Livepeer's own hosts: its WHIP ingest is the documented one, whatever /ingest says. */
const LIVEPEER_HOST = /(^|\.)(livepeer\.studio|livepeercdn\.studio|lp-playback\.studio)$/i

/**
 * The WHIP URL of a stream. Livepeer: its documented ingest, `https://livepeer.studio/webrtc/{key}`
 * (a HEAD there names the regional node). Any other service: `{base}/webrtc/{streamKey}`, where base
 * is its playback base without `/hls` (the local studio's `base`), or that base's origin.
 */
export function whipUrl(playbackBase: string, streamKey: string): string {
  const key = encodeURIComponent(streamKey)
  let url: URL
  try {
    url = new URL(playbackBase)
  } catch {
    return `${LIVEPEER_WHIP_BASE}/${key}`
  }
  if (LIVEPEER_HOST.test(url.hostname)) return `${LIVEPEER_WHIP_BASE}/${key}`
  const base = playbackBase.replace(/\/+$/, '')
  const root = base.endsWith('/hls') ? base.slice(0, -4) : url.origin
  return `${root}/webrtc/${key}`
}

export type Fetch = (url: string, init: RequestInit) => Promise<Response>

interface WhipRun {
  runId: string
  streamId: string
  location: string
  key: string
}

export class WhipRuns {
  private run: WhipRun | null = null

  constructor(
    private readonly fetchFn: Fetch = (u, i) => fetch(u, i),
    private readonly timeoutMs = 10_000
  ) {}

  /** A WHIP run is open (a second Go live is refused). */
  get open(): { runId: string; streamId: string } | null {
    return this.run && { runId: this.run.runId, streamId: this.run.streamId }
  }

  /** Refuses a second run while a WHIP run is open (Go live by RTMP too). */
  assertIdle(): void {
    if (this.run)
      throw new AppFailure({
        code: 'busy',
        message: 'Already live by WebRTC.',
        hint: 'Stop the broadcast first.'
      })
  }

  private fail(message: string, key: string, hint?: string): never {
    throw new AppFailure({
      code: 'service',
      message: redactSecrets(message, [key]),
      ...(hint ? { hint } : {})
    })
  }

  /** HEAD (Livepeer answers with the regional node's Location), then POST the offer there. */
  async start(
    streamId: string,
    url: string,
    key: string,
    offer: string
  ): Promise<{ runId: string; answer: string }> {
    this.assertIdle()
    const signal = (): AbortSignal => AbortSignal.timeout(this.timeoutMs)
    let target = url
    try {
      const head = await this.fetchFn(url, { method: 'HEAD', redirect: 'manual', signal: signal() })
      const loc = head.headers.get('location')
      if (loc) target = new URL(loc, url).toString()
    } catch {
      // A service without HEAD: post to the URL itself.
    }
    let res: Response
    try {
      res = await this.fetchFn(target, {
        method: 'POST',
        headers: { 'content-type': 'application/sdp' },
        body: offer,
        signal: signal()
      })
    } catch (e) {
      this.fail(
        `The service's WebRTC ingest did not answer (${(e as Error).message}).`,
        key,
        'Check the connection, or use RTMP in Output.'
      )
    }
    const text = await res.text()
    if (res.status !== 201 && res.status !== 200) {
      let why = text.slice(0, 300)
      try {
        const j = JSON.parse(text) as { errors?: unknown[] }
        if (Array.isArray(j.errors)) why = j.errors.map(String).join('; ')
      } catch {
        // not JSON: the text as it came
      }
      this.fail(
        `The service refused the WebRTC publish (HTTP ${res.status}${why ? `: ${why}` : ''}).`,
        key,
        res.status === 409
          ? 'The stream is already live elsewhere: stop that first.'
          : 'Use RTMP in Output.'
      )
    }
    const location = res.headers.get('location')
    const runId = randomUUID()
    this.run = {
      runId,
      streamId,
      key,
      location: location ? new URL(location, target).toString() : target
    }
    return { runId, answer: text }
  }

  /** DELETE the session (best effort: the service also ends it when the peer goes away). */
  async stop(runId: string): Promise<void> {
    const r = this.run
    if (!r || r.runId !== runId) return
    this.run = null
    await this.fetchFn(r.location, {
      method: 'DELETE',
      signal: AbortSignal.timeout(this.timeoutMs)
    })
      .then((res) => res.body?.cancel())
      .catch(() => undefined)
  }
}

// What the HTTP routes need from the rest of the studio, as one object (no module-level state, so
// two studios can run in one process, as the tests do).
import type { IncomingMessage } from 'node:http'
import { authenticate, type AuthedUser } from './auth'
import type { Db } from './db'
import { HttpError } from './validate'
import type { ViewerSessions } from './viewers'
import type { Clips } from './clips'
import type { Webhooks } from './webhooks'
import type { WebRtcHub } from './webrtc/hub'

/** Where a live run's HLS is, and the token its addresses carry (/hls/<playbackId>/<token>/...). */
export interface LiveRun {
  dir: string
  token: string
  /** Where a rendition's playlist (its folder's name) begins in the publisher's media (ms), if known. */
  mediaStartMs(rendition: string): number | undefined
}

export interface LiveControl {
  /**
   * Drops the stream's publisher (if any) and finalizes its session now, without a resume window.
   */
  terminate(streamId: string): Promise<void>
  /** The live HLS of this playbackId (its folder and address token), when its stream is live. */
  liveRun(playbackId: string): LiveRun | undefined
  /**
   * A user's multistream targets changed (one stream's list, or targets any stream may use):
   * live streams start and stop the forwarders concerned.
   */
  multistreamChanged(userId: string, streamId?: string): void
  /** isHealthy and issues of a live stream; undefined when it is not live. */
  health(streamId: string): { isHealthy: boolean; issues: string[] } | undefined
  /** The stream's health conditions in livepeer-data's shape (GET /data/stream/{id}/health). */
  healthReport(streamId: string): Record<string, unknown>
}

export interface StudioContext {
  db: Db
  dataDir: string
  /** http://HOST:PORT */
  base: () => string
  /** rtmp://HOST:PORT/live */
  rtmpUrl: () => string
  live: LiveControl
  /** Player sessions of live streams (GET /data/views/now). */
  viewers: ViewerSessions
  /** Clips being cut into assets (POST /clip). */
  clips: Clips
  /** Webhook delivery (the log's resend sends through it). */
  webhooks: Webhooks
  /** WHIP/WHEP sessions (/webrtc/...). */
  webrtc?: WebRtcHub
  log: (line: string) => void
}

export function requireUser(ctx: StudioContext, req: IncomingMessage): AuthedUser {
  const auth = authenticate(ctx.db, req.headers.authorization)
  if (!auth.ok) throw new HttpError(401, auth.message)
  return auth.user
}

// A session ends: its recording is written (the renditions joined, the MP4 and each rendition's
// download) or, unrecorded, its live media removed; then its row is closed.
import type { Db } from '../db'
import {
  assembleRecording,
  makeDownloads,
  makeMp4,
  removeSessionMedia,
  sessionDir
} from '../recordings'
import { finishSession, type SessionRow } from '../session-store'
import { setStreamDuration } from '../stream-store'
import type { LiveOptions } from './run'

/**
 * Writes the recording (or removes the live media of an unrecorded session) and closes the row;
 * answers the recording's status (null: not recorded).
 */
export async function finishRecording(
  o: LiveOptions,
  s: SessionRow,
  seconds: number
): Promise<'ready' | 'failed' | null> {
  const dir = sessionDir(o.dataDir, s.id)
  if (!s.record) {
    await removeSessionMedia(dir)
    finishSession(o.db, s.id, {
      duration: seconds || s.duration,
      status: null,
      hasMp4: false
    })
    return null
  }
  const assembled = await assembleRecording(dir).catch(() => ({ ok: false, duration: 0 }))
  const hasMp4 = assembled.ok ? await makeMp4(dir, o.ffmpeg) : false
  // Each rendition's MP4 too, for a download menu (GET /playback/{sessionId} lists them).
  if (hasMp4) await makeDownloads(dir, o.ffmpeg).catch(() => [])
  const status = assembled.ok ? 'ready' : 'failed'
  finishSession(o.db, s.id, {
    duration: assembled.ok ? assembled.duration : seconds || s.duration,
    status,
    hasMp4
  })
  setStreamDurationIfKnown(o.db, s.parentId, assembled.ok ? assembled.duration : 0)
  return status
}

function setStreamDurationIfKnown(db: Db, streamId: string, seconds: number): void {
  if (seconds > 0) setStreamDuration(db, streamId, seconds)
}

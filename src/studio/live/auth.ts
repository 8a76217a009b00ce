// Publish auth: which stream keys may go live (asked by the RTMP ingest and by WHIP alike).
import type { Db } from '../db'
import { getStreamByKey } from '../stream-store'

/** Why a publish with this stream key is refused, or null when it may go live. */
export function refusePublish(db: Db, streamKey: string): string | null {
  const s = getStreamByKey(db, streamKey)
  if (!s) return 'unknown stream key'
  if (s.deleted) return 'the stream was deleted'
  if (s.doc.suspended) return 'the stream is suspended'
  return null
}

// Assets (a clip cut by clips.ts, or an upload made by uploads/) in SQLite: the row, the API's
// object, and every query of the assets table but the upload's own columns (uploads/uploads.ts).
import type { Db } from './db'

export type AssetPhase = 'waiting' | 'uploading' | 'processing' | 'ready' | 'failed'
/** What made the asset: a clip (POST /clip) or an upload (POST /asset/request-upload, uploads/). */
export type AssetSource = 'clip' | 'directUpload'

export interface AssetRow {
  id: string
  userId: string
  /** The asset's own playback id (its HLS and MP4 are served under /asset/{playbackId}/). */
  playbackId: string
  sourceType: AssetSource
  /** The parent stream clipped, its playback id, and the session the media came from. */
  streamId: string
  streamPlaybackId: string
  sessionId: string
  name: string
  createdAt: number
  updatedAt: number
  phase: AssetPhase
  error: string | null
  /** What was asked (Unix ms). */
  startTime: number
  endTime: number
  /** What the cut covers (Unix ms of its first segment's start and last segment's end). */
  clipStart: number | null
  clipEnd: number | null
  /** Seconds of media, and the MP4's size in bytes. */
  duration: number | null
  size: number | null
}

/** The file names of an asset's folder (media/clips/<assetId>/). */
export const CLIP_PLAYLIST = 'index.m3u8'
export const CLIP_MP4 = 'download.mp4'

interface RawAsset {
  id: string
  user_id: string
  playback_id: string
  source_type: string
  stream_id: string
  stream_playback_id: string
  session_id: string
  name: string
  created_at: number
  updated_at: number
  phase: string
  error: string | null
  start_time: number
  end_time: number
  clip_start: number | null
  clip_end: number | null
  duration: number | null
  size: number | null
}

const fromRaw = (r: RawAsset): AssetRow => ({
  id: r.id,
  userId: r.user_id,
  playbackId: r.playback_id,
  sourceType: r.source_type === 'directUpload' ? 'directUpload' : 'clip',
  streamId: r.stream_id,
  streamPlaybackId: r.stream_playback_id,
  sessionId: r.session_id,
  name: r.name,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  phase: r.phase as AssetPhase,
  error: r.error,
  startTime: r.start_time,
  endTime: r.end_time,
  clipStart: r.clip_start,
  clipEnd: r.clip_end,
  duration: r.duration,
  size: r.size
})

/** The asset object as the API returns it (Livepeer's `asset` schema); `base` is http://HOST:PORT. */
export function assetToApi(a: AssetRow, base: string): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: a.id,
    type: 'video',
    playbackId: a.playbackId,
    userId: a.userId,
    name: a.name,
    source:
      a.sourceType === 'directUpload'
        ? { type: 'directUpload' }
        : {
            type: 'clip',
            sessionId: a.sessionId,
            playbackId: a.streamPlaybackId,
            sourceId: a.streamId
          },
    status: {
      phase: a.phase,
      updatedAt: a.updatedAt,
      ...(a.error ? { errorMessage: a.error } : {})
    },
    createdAt: a.createdAt
  }
  if (a.phase === 'ready') {
    out.playbackUrl = `${base}/asset/${a.playbackId}/${CLIP_PLAYLIST}`
    out.downloadUrl = `${base}/asset/${a.playbackId}/${CLIP_MP4}`
    if (a.size !== null) out.size = a.size
    if (a.duration !== null) out.videoSpec = { format: 'mp4', duration: a.duration }
  }
  return out
}

export function insertAsset(db: Db, a: AssetRow): void {
  db.prepare(
    `INSERT INTO assets (id, user_id, playback_id, source_type, stream_id, stream_playback_id,
       session_id, name, created_at, updated_at, phase, error, start_time, end_time, clip_start,
       clip_end, duration, size)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
  ).run(
    a.id,
    a.userId,
    a.playbackId,
    a.sourceType,
    a.streamId,
    a.streamPlaybackId,
    a.sessionId,
    a.name,
    a.createdAt,
    a.updatedAt,
    a.phase,
    a.error,
    a.startTime,
    a.endTime,
    a.clipStart,
    a.clipEnd,
    a.duration,
    a.size
  )
}

export function getAsset(db: Db, id: string): AssetRow | undefined {
  const r = db.prepare('SELECT * FROM assets WHERE id = ?').get(id) as RawAsset | undefined
  return r && fromRaw(r)
}

export function getAssetByPlaybackId(db: Db, playbackId: string): AssetRow | undefined {
  const r = db.prepare('SELECT * FROM assets WHERE playback_id = ?').get(playbackId) as
    RawAsset | undefined
  return r && fromRaw(r)
}

/** A user's assets, newest first: all, or those of one stream or one session. */
export function listAssets(
  db: Db,
  userId: string,
  by: { streamId?: string; sessionId?: string },
  offset: number,
  limit: number
): { rows: AssetRow[]; total: number } {
  const where = ['user_id = ?']
  const args: unknown[] = [userId]
  if (by.streamId) {
    where.push('stream_id = ?')
    args.push(by.streamId)
  }
  if (by.sessionId) {
    where.push('session_id = ?')
    args.push(by.sessionId)
  }
  const w = where.join(' AND ')
  const rows = db
    .prepare(`SELECT * FROM assets WHERE ${w} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`)
    .all(...args, limit, offset) as RawAsset[]
  const total = (
    db.prepare(`SELECT count(*) AS n FROM assets WHERE ${w}`).get(...args) as { n: number }
  ).n
  return { rows: rows.map(fromRaw), total }
}

export function updateAsset(db: Db, id: string, fields: Partial<AssetRow>): void {
  const cols: Record<string, string> = {
    phase: 'phase',
    error: 'error',
    clipStart: 'clip_start',
    clipEnd: 'clip_end',
    duration: 'duration',
    size: 'size'
  }
  const sets: string[] = ['updated_at = ?']
  const args: unknown[] = [Date.now()]
  for (const [k, col] of Object.entries(cols)) {
    if (k in fields) {
      sets.push(`${col} = ?`)
      args.push(fields[k as keyof AssetRow] ?? null)
    }
  }
  db.prepare(`UPDATE assets SET ${sets.join(', ')} WHERE id = ?`).run(...args, id)
}

/** Clips a start left unfinished (waiting or processing) fail with `error`; answers how many. */
export function failUnfinishedClips(db: Db, error: string): number {
  return db
    .prepare(
      `UPDATE assets SET phase = 'failed', error = ?, updated_at = ? WHERE phase IN ('waiting', 'processing') AND source_type = 'clip'`
    )
    .run(error, Date.now()).changes
}

/** How many of a user's assets are waiting or processing. */
export function countBusyAssets(db: Db, userId: string): number {
  return (
    db
      .prepare(
        `SELECT count(*) AS n FROM assets WHERE user_id = ? AND phase IN ('waiting', 'processing')`
      )
      .get(userId) as { n: number }
  ).n
}

export function deleteAsset(db: Db, id: string): void {
  db.prepare('DELETE FROM assets WHERE id = ?').run(id)
}

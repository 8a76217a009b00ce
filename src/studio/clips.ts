// Clips (#20), as Livepeer makes them: POST /clip names a stretch of wall-clock time (Unix ms, as
// the segments' EXT-X-PROGRAM-DATE-TIME tell it) of a live stream or of one of its recorded
// sessions; the answer is an asset that goes waiting -> processing -> ready (or failed).
//
// The cut is made on the source's segment boundaries, with no re-encode: segments are taken whole
// (each starts on a keyframe), those at least half inside [startTime, endTime], so each end of the
// clip is the segment boundary nearest the time asked: within half a segment (1 s), the length
// within one segment. The asset is its own
// HLS (index.m3u8 + the segments, copied: deleting the session's recording keeps the clip) and an
// MP4 remuxed from it. A live clip whose end lies ahead waits for the segment that covers it.
import { randomUUID } from 'node:crypto'
import { copyFile, link, mkdir, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Db } from './db'
import { makeKeys, type StreamRow } from './stream-store'
import { bestSegments, mediaDir, remux, sessionDir, vodPlaylist, type Segment } from './recordings'
import { getSession, type SessionRow } from './session-store'
import { HttpError } from './validate'
import type { EmitEvent } from './webhooks'

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

/** The longest clip (a documented rule of the local studio: a clip is a moment, not a recording). */
export const MAX_CLIP_MS = 10 * 60_000
/**
 * Clips one user may have waiting or processing at once (Livepeer's limit): each holds a wait for
 * its live end, then a copy and an ffmpeg remux. The next one is refused (422) until one is done.
 */
export const MAX_CLIPS_AT_ONCE = 5
/** The file names of an asset's folder (media/clips/<assetId>/). */
export const CLIP_PLAYLIST = 'index.m3u8'
export const CLIP_MP4 = 'download.mp4'
/** How long a live clip waits, past its end, for the segment that covers that end. */
const LIVE_WAIT_MS = 15_000

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

export const clipDir = (dataDir: string, assetId: string): string =>
  join(mediaDir(dataDir), 'clips', assetId)

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

/** The webhook events of an asset, a clip's or an upload's, as Livepeer sends them. */
export type AssetEventName = 'asset.created' | 'asset.updated' | 'asset.ready' | 'asset.failed'

/** Sends an asset's event: `payload: {id, snapshot}`, the asset as GET /asset/{id} answers it. */
export function emitAssetEvent(
  o: { db: Db; emit?: EmitEvent; base: () => string },
  name: AssetEventName,
  id: string
): void {
  const a = o.emit && getAsset(o.db, id)
  if (!a) return
  o.emit!({ event: name, userId: a.userId, payload: { id, snapshot: assetToApi(a, o.base()) } })
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

/** A segment with its wall-clock span (Unix ms), from its EXT-X-PROGRAM-DATE-TIME. */
export interface TimedSegment extends Segment {
  start: number
  end: number
  /** Which run (list) it came from: a new run starts its timestamps over. */
  part: number
}

export function timedSegments(parts: Segment[][]): TimedSegment[] {
  const out: TimedSegment[] = []
  parts.forEach((segs, part) => {
    for (const s of segs) {
      const start = s.dateTime ? Date.parse(s.dateTime) : NaN
      if (!Number.isFinite(start)) continue
      out.push({ ...s, start, end: start + s.duration * 1000, part })
    }
  })
  return out
}

const overlap = (s: TimedSegment, startMs: number, endMs: number): number =>
  Math.max(0, Math.min(s.end, endMs) - Math.max(s.start, startMs))

/**
 * The segments a cut of [startMs, endMs] takes, whole: each that lies at least half inside it, so
 * each end of the clip is the segment boundary nearest to the time asked (off by at most half a
 * segment, and the length by at most one). A stretch shorter than half a segment takes the one
 * segment that holds most of it.
 */
export function segmentsFor(all: TimedSegment[], startMs: number, endMs: number): TimedSegment[] {
  const taken = all.filter((s) => overlap(s, startMs, endMs) * 2 >= s.end - s.start)
  if (taken.length > 0) return taken
  const best = all.reduce<TimedSegment | undefined>(
    (b, s) => (overlap(s, startMs, endMs) > (b ? overlap(b, startMs, endMs) : 0) ? s : b),
    undefined
  )
  return best ? [best] : []
}

export interface ClipRequest {
  playbackId: string
  startTime: number
  endTime?: number
  name?: string
  sessionId?: string
}

export interface ClipsOptions {
  db: Db
  dataDir: string
  ffmpeg: string
  log: (line: string) => void
  /** The open session of a live stream, if it is live. */
  liveSession: (streamId: string) => SessionRow | undefined
  /** Called before an asset is deleted: an uploaded asset's upload files go with it. */
  onRemove?: (asset: AssetRow) => Promise<void>
  /** The asset.* webhooks of a clip (created, updated when it is being cut, ready, failed). */
  emit?: EmitEvent
  /** The API's base URL, for the assets' addresses in those events. */
  base?: () => string
}

export class Clips {
  private readonly pending = new Set<Promise<void>>()
  private closing = false

  constructor(private readonly o: ClipsOptions) {}

  /** Clips a start left unfinished (the studio stopped while cutting) fail with that cause. */
  recover(): number {
    return this.o.db
      .prepare(
        `UPDATE assets SET phase = 'failed', error = ?, updated_at = ? WHERE phase IN ('waiting', 'processing') AND source_type = 'clip'`
      )
      .run('the studio stopped before the clip was cut: clip again', Date.now()).changes
  }

  /**
   * Checks a POST /clip of `stream` (the caller's own) and starts cutting; answers the new asset.
   * 400 for times that cannot be clipped, 404 for a session that is not this stream's.
   */
  create(userId: string, stream: StreamRow, req: ClipRequest, now = Date.now()): AssetRow {
    const { startTime } = req
    if (!Number.isFinite(startTime) || startTime <= 0)
      throw new HttpError(400, 'startTime must be a time in Unix milliseconds')
    if (req.endTime !== undefined && !Number.isFinite(req.endTime))
      throw new HttpError(400, 'endTime must be a time in Unix milliseconds')
    if (startTime > now + 5_000) throw new HttpError(400, 'startTime is in the future')
    let session: SessionRow | undefined
    if (req.sessionId !== undefined) {
      session = getSession(this.o.db, req.sessionId.slice(0, 100))
      if (!session || session.userId !== userId || session.parentId !== stream.id)
        throw new HttpError(404, 'session not found')
      if (session.endedAt !== null && !session.record)
        throw new HttpError(400, 'this session was not recorded: there is nothing to clip')
      if (session.endedAt !== null && session.recordingStatus !== 'ready')
        throw new HttpError(
          400,
          `this session's recording is not ready (${session.recordingStatus ?? 'waiting'})`
        )
    } else {
      session = this.o.liveSession(stream.id)
      if (!session)
        throw new HttpError(
          400,
          'the stream is not live: give the sessionId of one of its recordings to clip it'
        )
    }
    const sessionEnd = session.endedAt ?? now
    const endTime = req.endTime ?? Math.min(now, sessionEnd)
    if (endTime <= startTime) throw new HttpError(400, 'endTime must be after startTime')
    if (endTime - startTime > MAX_CLIP_MS)
      throw new HttpError(400, `a clip lasts at most ${MAX_CLIP_MS / 60_000} minutes`)
    if (endTime < session.createdAt - 5_000 || startTime > sessionEnd + 5_000)
      throw new HttpError(400, 'the times lie outside the session')
    const busy = (
      this.o.db
        .prepare(
          `SELECT count(*) AS n FROM assets WHERE user_id = ? AND phase IN ('waiting', 'processing')`
        )
        .get(userId) as { n: number }
    ).n
    if (busy >= MAX_CLIPS_AT_ONCE)
      throw new HttpError(
        422,
        `${busy} clips are being processed: at most ${MAX_CLIPS_AT_ONCE} at once; wait for one to be ready, then clip again`
      )
    const id = randomUUID()
    const asset: AssetRow = {
      id,
      userId,
      playbackId: makeKeys(id).playbackId,
      sourceType: 'clip',
      streamId: stream.id,
      streamPlaybackId: stream.playbackId,
      sessionId: session.id,
      name: (req.name?.trim() || `${stream.doc.name} clip`).slice(0, 500),
      createdAt: now,
      updatedAt: now,
      phase: 'waiting',
      error: null,
      startTime,
      endTime,
      clipStart: null,
      clipEnd: null,
      duration: null,
      size: null
    }
    insertAsset(this.o.db, asset)
    this.event('asset.created', id)
    const job = this.cut(asset)
      .catch((err: Error) => {
        this.o.log(`studio: clip ${id} failed: ${err.message}`)
        if (getAsset(this.o.db, id)) {
          updateAsset(this.o.db, id, { phase: 'failed', error: err.message })
          this.event('asset.failed', id)
        }
      })
      .finally(() => this.pending.delete(job))
    this.pending.add(job)
    return asset
  }

  /** Deletes an asset and its files. */
  async remove(asset: AssetRow): Promise<void> {
    await this.o.onRemove?.(asset)
    this.o.db.prepare('DELETE FROM assets WHERE id = ?').run(asset.id)
    await rm(clipDir(this.o.dataDir, asset.id), { recursive: true, force: true })
  }

  /** Waits for the clips being cut (the studio stopping): the ones still waiting give up. */
  async close(): Promise<void> {
    this.closing = true
    await Promise.all([...this.pending])
  }

  private event(name: AssetEventName, id: string): void {
    emitAssetEvent({ db: this.o.db, emit: this.o.emit, base: this.o.base ?? (() => '') }, name, id)
  }

  private async cut(asset: AssetRow): Promise<void> {
    const src = sessionDir(this.o.dataDir, asset.sessionId)
    let all = timedSegments(await bestSegments(src))
    // Live: wait until a segment reaches past the end (or the session ends, or the wait runs out).
    const deadline = asset.endTime + LIVE_WAIT_MS
    while (
      !this.closing &&
      !(all.length > 0 && all[all.length - 1]!.end >= asset.endTime) &&
      getSession(this.o.db, asset.sessionId)?.endedAt === null &&
      Date.now() < deadline
    ) {
      await new Promise((r) => setTimeout(r, 250))
      all = timedSegments(await bestSegments(src))
    }
    if (!getAsset(this.o.db, asset.id)) return // deleted meanwhile
    updateAsset(this.o.db, asset.id, { phase: 'processing' })
    this.event('asset.updated', asset.id)
    const chosen = segmentsFor(all, asset.startTime, asset.endTime)
    if (chosen.length === 0)
      throw new Error('the session has no media between startTime and endTime')
    const out = clipDir(this.o.dataDir, asset.id)
    await mkdir(out, { recursive: true })
    // Copied under new names (two runs both have a seg00001.ts), hard-linked where the disk allows.
    const parts: Segment[][] = []
    let lastPart = -1
    for (const [i, s] of chosen.entries()) {
      const name = `c${String(i).padStart(5, '0')}.ts`
      await link(join(src, s.uri), join(out, name)).catch(() =>
        copyFile(join(src, s.uri), join(out, name))
      )
      const seg: Segment = { duration: s.duration, uri: name, dateTime: s.dateTime }
      if (s.part !== lastPart || s.discontinuity) parts.push([seg])
      else parts[parts.length - 1]!.push(seg)
      lastPart = s.part
    }
    await writeFile(join(out, CLIP_PLAYLIST), vodPlaylist(parts))
    if (!(await remux(out, this.o.ffmpeg, CLIP_PLAYLIST, CLIP_MP4, 120_000)))
      throw new Error('ffmpeg could not write the MP4')
    const size = (await stat(join(out, CLIP_MP4))).size
    if (!getAsset(this.o.db, asset.id)) {
      await rm(out, { recursive: true, force: true })
      return
    }
    updateAsset(this.o.db, asset.id, {
      phase: 'ready',
      clipStart: chosen[0]!.start,
      clipEnd: chosen[chosen.length - 1]!.end,
      duration: Math.round(chosen.reduce((t, s) => t + s.duration, 0) * 1000) / 1000,
      size
    })
    this.event('asset.ready', asset.id)
  }
}

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
import {
  assetToApi,
  CLIP_MP4,
  CLIP_PLAYLIST,
  countBusyAssets,
  deleteAsset,
  failUnfinishedClips,
  getAsset,
  insertAsset,
  updateAsset,
  type AssetRow
} from './asset-store'
import type { Db } from './db'
import { makeKeys, type StreamRow } from './stream-store'
import { bestSegments, mediaDir, remux, sessionDir, vodPlaylist, type Segment } from './recordings'
import { getSession, type SessionRow } from './session-store'
import { HttpError } from './validate'
import type { EmitEvent } from './webhooks'

/** The longest clip (a documented rule of the local studio: a clip is a moment, not a recording). */
export const MAX_CLIP_MS = 10 * 60_000
/**
 * Clips one user may have waiting or processing at once (Livepeer's limit): each holds a wait for
 * its live end, then a copy and an ffmpeg remux. The next one is refused (422) until one is done.
 */
export const MAX_CLIPS_AT_ONCE = 5
/** How long a live clip waits, past its end, for the segment that covers that end. */
const LIVE_WAIT_MS = 15_000

/** An asset's folder: its HLS (CLIP_PLAYLIST and the segments) and its MP4 (CLIP_MP4). */
export const clipDir = (dataDir: string, assetId: string): string =>
  join(mediaDir(dataDir), 'clips', assetId)

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
    return failUnfinishedClips(this.o.db, 'the studio stopped before the clip was cut: clip again')
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
    const busy = countBusyAssets(this.o.db, userId)
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
    deleteAsset(this.o.db, asset.id)
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

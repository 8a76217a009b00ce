// Uploaded assets (#35), as Livepeer takes them: POST /asset/request-upload (name) makes an asset
// (waiting) and answers a direct PUT url and a tus endpoint, each with a token that only this
// asset's upload takes. The file goes up by tus (resumable: @tus/server with its file store,
// <dataDir>/uploads/<uploadId>, the tus id random and unguessable) or by one PUT; the asset goes
// uploading -> processing -> ready (HLS and MP4 as a clip's, in the same folder and served by the
// same /asset/<playbackId>/ route) or failed with the cause. Bounded: a size limit (413), the free
// space checked before a byte is taken (507, the upload, its HLS and its MP4 must fit), an upload
// untouched for a day fails and its part is deleted. The source file is deleted once the asset is ready.
import { randomBytes, randomUUID } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdir, rm, stat, statfs } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { FileStore } from '@tus/file-store'
import { EVENTS, Server as TusServer } from '@tus/server'
import {
  assetToApi,
  CLIP_MP4,
  CLIP_PLAYLIST,
  getAsset,
  insertAsset,
  updateAsset,
  type AssetRow
} from '../asset-store'
import { clipDir, emitAssetEvent, type AssetEventName } from '../clips'
import { inTransaction, type Db } from '../db'
import { isOwnOrigin } from '../../shared/origin'
import { remux } from '../recordings'
import { makeKeys } from '../stream-store'
import { HttpError } from '../validate'
import type { EmitEvent } from '../webhooks'
import { makeHls, probeMedia } from './media'

/** The largest upload (a documented rule of the local studio; StudioOptions.uploads can lower it). */
export const MAX_UPLOAD_BYTES = 32 * 1024 ** 3
/** An upload that has not moved for this long fails and its part is deleted. */
export const UPLOAD_EXPIRY_MS = 24 * 3600_000
/** How often unfinished uploads are looked at. */
const SWEEP_MS = 3600_000
/** Left free on the disk beyond what the upload and its media take. */
export const MIN_FREE_BYTES = 256 * 1024 ** 2
export const TUS_PATH = '/api/asset/upload/tus'
export const DIRECT_PATH = '/api/asset/upload/direct'

export interface UploadsOptions {
  db: Db
  dataDir: string
  ffmpeg: string
  base: () => string
  log: (line: string) => void
  emit: EmitEvent
  maxBytes?: number
  expiryMs?: number
  sweepMs?: number
  minFreeBytes?: number
  /** The app's origins: a browser page there may use the tus endpoint (CORS); nobody else. */
  appOrigins?: readonly string[]
}

interface UploadRef {
  uploadId: string
  token: string
}

/** An error the tus server answers as it is, in Livepeer's shape. */
const tusError = (status: number, message: string): { status_code: number; body: string } => ({
  status_code: status,
  body: JSON.stringify({ errors: [message] })
})

/** 32 GB, 1.5 GB, 50 MB. */
const gb = (n: number): string =>
  n >= 1024 ** 3 ? `${Math.round((n / 1024 ** 3) * 10) / 10} GB` : `${Math.round(n / 1024 ** 2)} MB`

export class Uploads {
  readonly dir: string
  readonly maxBytes: number
  private readonly tus: TusServer
  private readonly store: FileStore
  private queue: Promise<void> = Promise.resolve()
  private readonly pending = new Set<Promise<void>>()
  private sweeper: NodeJS.Timeout | undefined
  private closing = false

  constructor(private readonly o: UploadsOptions) {
    this.dir = join(o.dataDir, 'uploads')
    this.maxBytes = o.maxBytes ?? MAX_UPLOAD_BYTES
    this.store = new FileStore({ directory: this.dir })
    this.tus = new TusServer({
      path: TUS_PATH,
      datastore: this.store,
      maxSize: this.maxBytes,
      // CORS by @tus/server (its preflight allows and its answers expose the tus headers:
      // Tus-Resumable, Upload-Offset, Upload-Length, Upload-Metadata, Location), for the app's
      // origins only: another page's preflight gets no Access-Control-Allow-Origin.
      allowedOrigins: (origin) => isOwnOrigin(origin, o.appOrigins ?? []),
      // The upload's id is the asset's, found by the token of its tusEndpoint.
      namingFunction: (req) => {
        const token = new URL(req.url).searchParams.get('token') ?? ''
        const ref = this.byToken(token)
        if (!ref) throw tusError(401, 'invalid or used upload token: request a new upload')
        return ref.uploadId
      },
      onUploadCreate: async (_req, upload) => {
        const asset = this.assetOfUpload(upload.id)
        if (!asset) throw tusError(404, 'asset not found')
        await this.checkSpace(upload.size ?? 0)
        this.setPhase(asset.id, 'uploading')
        return {}
      },
      onIncomingRequest: async (req, id) => {
        const asset = this.assetOfUpload(id)
        if (!asset) throw tusError(404, 'upload not found')
        if (req.method === 'PATCH') {
          if (asset.phase !== 'uploading' && asset.phase !== 'waiting')
            throw tusError(409, `the asset is ${asset.phase}: its upload is over`)
          // Still moving: the day without progress starts again.
          updateAsset(this.o.db, asset.id, {})
          const info = await this.store.getUpload(id).catch(() => undefined)
          if (info?.size !== undefined) await this.checkSpace(info.size - info.offset, true)
        }
      },
      onUploadFinish: async (_req, upload) => {
        const asset = this.assetOfUpload(upload.id)
        if (asset) this.startProcessing(asset, join(this.dir, upload.id))
        return {}
      },
      onResponseError: (_req, err) => {
        if (!('status_code' in err)) {
          const code = String((err as { code?: unknown }).code ?? '')
          if (code === 'ENOSPC') return tusError(507, "the studio's disk is full")
          this.o.log(`studio: upload failed: ${err.message}`)
          return tusError(500, 'the upload could not be stored')
        }
        if (err.body.startsWith('{')) return err
        if (err.status_code === 413)
          return tusError(413, `the file is larger than the studio's limit of ${gb(this.maxBytes)}`)
        return tusError(err.status_code, err.body.trim() || `HTTP ${err.status_code}`)
      }
    })
    this.tus.on(EVENTS.POST_TERMINATE, (_req, _res, id) => {
      const asset = this.assetOfUpload(id)
      if (asset && asset.phase !== 'ready') this.fail(asset.id, 'the upload was cancelled')
    })
  }

  /** Processing a start left unfinished is done again; unfinished uploads are looked at. */
  async start(): Promise<void> {
    await mkdir(this.dir, { recursive: true })
    const rows = this.o.db
      .prepare(
        `SELECT id, upload_id FROM assets WHERE source_type = 'directUpload' AND phase = 'processing'`
      )
      .all() as { id: string; upload_id: string }[]
    for (const r of rows) {
      const asset = getAsset(this.o.db, r.id)
      if (asset) this.startProcessing(asset, join(this.dir, r.upload_id))
    }
    await this.sweep()
    const every = this.o.sweepMs ?? SWEEP_MS
    this.sweeper = setInterval(() => void this.sweep(), every)
    this.sweeper.unref()
  }

  /** POST /asset/request-upload: the asset and its upload's addresses. */
  request(userId: string, name: string): Record<string, unknown> {
    const id = randomUUID()
    const now = Date.now()
    const asset: AssetRow = {
      id,
      userId,
      playbackId: makeKeys(id).playbackId,
      sourceType: 'directUpload',
      streamId: '',
      streamPlaybackId: '',
      sessionId: '',
      name: name.trim().slice(0, 500),
      createdAt: now,
      updatedAt: now,
      phase: 'waiting',
      error: null,
      startTime: 0,
      endTime: 0,
      clipStart: null,
      clipEnd: null,
      duration: null,
      size: null
    }
    const ref: UploadRef = {
      uploadId: randomBytes(16).toString('hex'),
      token: randomBytes(24).toString('base64url')
    }
    inTransaction(this.o.db, () => {
      insertAsset(this.o.db, asset)
      this.o.db
        .prepare('UPDATE assets SET upload_id = ?, upload_token = ? WHERE id = ?')
        .run(ref.uploadId, ref.token, id)
    })
    this.event('asset.created', id)
    const base = this.o.base()
    return {
      url: `${base}${DIRECT_PATH}?token=${ref.token}`,
      tusEndpoint: `${base}${TUS_PATH}?token=${ref.token}`,
      asset: assetToApi(asset, base),
      task: { id }
    }
  }

  /** A tus request (OPTIONS, POST, HEAD, PATCH, DELETE under TUS_PATH): @tus/server answers it. */
  handleTus(req: IncomingMessage, res: ServerResponse): Promise<void> {
    return this.tus.handle(req, res)
  }

  /** PUT DIRECT_PATH?token=: the whole file in one request. */
  async handleDirect(url: URL, req: IncomingMessage): Promise<void> {
    const ref = this.byToken(url.searchParams.get('token') ?? '')
    const asset = ref && this.assetOfUpload(ref.uploadId)
    if (!ref || !asset)
      throw new HttpError(401, 'invalid or used upload token: request a new upload')
    if (asset.phase !== 'waiting') throw new HttpError(409, `the asset is ${asset.phase}`)
    const length = Number(req.headers['content-length'])
    if (!Number.isSafeInteger(length) || length < 1)
      throw new HttpError(411, 'Content-Length is required: the file in one request')
    if (length > this.maxBytes)
      throw new HttpError(413, `the file is larger than the studio's limit of ${gb(this.maxBytes)}`)
    await this.checkSpace(length, false, (s, m) => new HttpError(s, m))
    this.setPhase(asset.id, 'uploading')
    const file = join(this.dir, `${ref.uploadId}.direct`)
    try {
      await pipeline(req, createWriteStream(file))
      if ((await stat(file)).size !== length) throw new Error('the request ended early')
    } catch (err) {
      await rm(file, { force: true })
      this.fail(asset.id, `the upload did not finish: ${(err as Error).message}`)
      throw new HttpError(400, `the upload did not finish: ${(err as Error).message}`)
    }
    this.startProcessing(asset, file)
  }

  /** An asset being deleted (DELETE /asset/{id}): its upload's files go with it. */
  async removeFiles(asset: AssetRow): Promise<void> {
    if (asset.sourceType !== 'directUpload') return
    const ref = this.refOf(asset.id)
    if (!ref) return
    await this.store.remove(ref.uploadId).catch(() => undefined)
    await rm(join(this.dir, `${ref.uploadId}.direct`), { force: true })
  }

  async close(): Promise<void> {
    this.closing = true
    clearInterval(this.sweeper)
    await Promise.all([...this.pending])
  }

  /** Unfinished uploads untouched for a day fail, and their parts are deleted. */
  async sweep(now = Date.now()): Promise<number> {
    const expiry = this.o.expiryMs ?? UPLOAD_EXPIRY_MS
    const stale = this.o.db
      .prepare(
        `SELECT id, upload_id FROM assets WHERE source_type = 'directUpload'
           AND phase IN ('waiting', 'uploading') AND updated_at < ?`
      )
      .all(now - expiry) as { id: string; upload_id: string }[]
    for (const r of stale) {
      await this.store.remove(r.upload_id).catch(() => undefined)
      await rm(join(this.dir, `${r.upload_id}.direct`), { force: true })
      const hours = Math.round((expiry / 3600_000) * 10) / 10
      this.fail(r.id, `the upload was not finished within ${hours} h: upload the file again`)
    }
    if (stale.length > 0) this.o.log(`studio: ${stale.length} unfinished upload(s) expired`)
    return stale.length
  }

  private byToken(token: string): UploadRef | undefined {
    if (!/^[A-Za-z0-9_-]{16,64}$/.test(token)) return undefined
    const r = this.o.db
      .prepare(
        `SELECT upload_id, upload_token FROM assets WHERE upload_token = ?
           AND phase IN ('waiting', 'uploading')`
      )
      .get(token) as { upload_id: string; upload_token: string } | undefined
    return r && { uploadId: r.upload_id, token: r.upload_token }
  }

  private refOf(assetId: string): UploadRef | undefined {
    const r = this.o.db
      .prepare('SELECT upload_id, upload_token FROM assets WHERE id = ?')
      .get(assetId) as { upload_id: string | null; upload_token: string | null } | undefined
    return r?.upload_id && r.upload_token
      ? { uploadId: r.upload_id, token: r.upload_token }
      : undefined
  }

  private assetOfUpload(uploadId: string): AssetRow | undefined {
    if (!/^[0-9a-f]{32}$/.test(uploadId)) return undefined
    const r = this.o.db.prepare('SELECT id FROM assets WHERE upload_id = ?').get(uploadId) as
      { id: string } | undefined
    return r && getAsset(this.o.db, r.id)
  }

  /**
   * Room for `bytes` more of upload, and (at the start) for its HLS and MP4 too: else 507. The
   * default error is the tus server's; the direct PUT passes its own.
   */
  private async checkSpace(
    bytes: number,
    uploadOnly = false,
    error: (status: number, message: string) => unknown = tusError
  ): Promise<void> {
    let free: number
    try {
      const s = await statfs(this.dir)
      free = s.bavail * s.bsize
    } catch {
      return
    }
    const need = (uploadOnly ? bytes : bytes * 3) + (this.o.minFreeBytes ?? MIN_FREE_BYTES)
    if (free < need)
      throw error(
        507,
        `not enough free space on the studio's disk: ${gb(need)} needed (the upload, its HLS and its MP4), ${gb(free)} free`
      )
  }

  private setPhase(id: string, phase: 'uploading' | 'processing'): void {
    const a = getAsset(this.o.db, id)
    if (!a || a.phase === phase) return
    updateAsset(this.o.db, id, { phase })
    this.event('asset.updated', id)
  }

  private fail(id: string, error: string): void {
    if (!getAsset(this.o.db, id)) return
    updateAsset(this.o.db, id, { phase: 'failed', error })
    this.event('asset.failed', id)
  }

  private event(name: AssetEventName, id: string): void {
    emitAssetEvent(this.o, name, id)
  }

  /** Queued: one file is made into HLS at a time (the studio shares the machine with the app). */
  private startProcessing(asset: AssetRow, file: string): void {
    this.setPhase(asset.id, 'processing')
    const job = (this.queue = this.queue.then(() =>
      this.process(asset, file).catch((err: Error) => {
        this.o.log(`studio: asset ${asset.id} failed: ${err.message}`)
        this.fail(asset.id, err.message)
        return this.removeFiles(asset)
      })
    )).finally(() => this.pending.delete(job))
    this.pending.add(job)
  }

  private async process(asset: AssetRow, file: string): Promise<void> {
    if (this.closing) return // processed again at the next start
    const info = await probeMedia(this.o.ffmpeg, file)
    if (typeof info === 'string') throw new Error(info)
    const out = clipDir(this.o.dataDir, asset.id)
    await rm(out, { recursive: true, force: true })
    await mkdir(out, { recursive: true })
    const duration = await makeHls(this.o.ffmpeg, file, out, info, CLIP_PLAYLIST)
    if (!(await remux(out, this.o.ffmpeg, CLIP_PLAYLIST, CLIP_MP4, 120_000 + duration * 100)))
      throw new Error('ffmpeg could not write the MP4')
    const size = (await stat(join(out, CLIP_MP4))).size
    if (!getAsset(this.o.db, asset.id)) {
      await rm(out, { recursive: true, force: true })
      return
    }
    updateAsset(this.o.db, asset.id, { phase: 'ready', duration, size })
    this.event('asset.ready', asset.id)
    // The media is made: the uploaded file is not needed any more.
    await this.removeFiles(asset)
  }
}

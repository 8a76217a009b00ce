// Uploads a local file to the service as an asset (#35), by Livepeer's documented way: POST
// /asset/request-upload, then tus (tus-js-client) to its tusEndpoint. Resumable for real:
// - a dropped connection: tus-js-client retries, asks the service its offset (HEAD) and goes on;
// - Onair closed or killed: each upload's URL is kept in <appData>/uploads.json the moment the
//   service gives it; the next start asks the service the offset and sends only the rest.
// Progress (bytes, rate over the last seconds, time left), pause, resume and cancel; once the file is
// up, the asset is polled until it is ready (its playback) or failed (the service's cause).
import { randomUUID } from 'node:crypto'
import {
  createReadStream,
  existsSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync
} from 'node:fs'
import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { Upload } from 'tus-js-client'
import { redactSecrets } from '../../../shared/redact'
import type { UploadProblem, UploadState, UploadView } from '../../../shared/uploads'

/** What the uploader needs of a service (the connection's ApiClient gives it). */
export interface AssetService {
  requestUpload(name: string): Promise<{ tusEndpoint: string; assetId: string }>
  getAsset(id: string): Promise<{
    phase?: string
    errorMessage?: string
    playbackId?: string
    playbackUrl?: string
  }>
  deleteAsset(id: string): Promise<void>
}

export interface UploaderOptions {
  appDataDir: string
  /** The service of a connection (throws when the connection is gone). */
  service: (connectionId: string) => AssetService
  emit?: (v: UploadView) => void
  log?: (line: string) => void
  /**
   * Bytes every PATCH carries (fixed). Default: parts that follow the measured rate (nextPartBytes),
   * from UPLOAD_CHUNK_BYTES up to MAX_PART_BYTES.
   */
  chunkSize?: number
  /** Waits between retries after a network error; past the last one the upload pauses. */
  retryDelays?: number[]
  /** How often a processing asset is asked about. */
  pollMs?: number
  now?: () => number
}

interface Stored extends UploadView {
  fileMtime: number
  tusEndpoint?: string
  uploadUrl?: string
}

/** The first part, 8 MiB: sent in seconds on any uplink (the local studio cuts a request at 30 s). */
export const UPLOAD_CHUNK_BYTES = 8 * 1024 * 1024
/** The largest part: 128 MiB (13 s at 10 MB/s, far inside the 30 s a request may take). */
export const MAX_PART_BYTES = 128 * 1024 * 1024
/** Each part after the first aims at this many seconds of sending at the rate the last one went. */
export const PART_SECONDS = 4
/** The file is read 1 MiB at a time (Node's default is 64 KiB): fewer, larger writes to the socket. */
const READ_BYTES = 1024 * 1024

/**
 * The next part's size from how long the last one took, whole MiB: about PART_SECONDS of sending, at
 * most 4x the last part, between UPLOAD_CHUNK_BYTES and MAX_PART_BYTES. Every part costs a request,
 * an answer and the server's bookkeeping while no byte moves: on a fast link 8 MiB parts spend a
 * good part of the time there; a slow link keeps small parts, so a cut loses a few seconds at most.
 */
export function nextPartBytes(lastBytes: number, lastMs: number): number {
  const rate = lastBytes / Math.max(lastMs, 1) // bytes per ms
  const want = Math.min(rate * PART_SECONDS * 1000, lastBytes * 4, MAX_PART_BYTES)
  const mib = 1024 * 1024
  return Math.max(UPLOAD_CHUNK_BYTES, Math.floor(want / mib) * mib)
}

/**
 * tus-js-client's file reading for a local file, with larger reads: each part is a read stream of
 * its byte range (as tus-js-client's own, which reads 64 KiB at a time).
 */
const fileReader = {
  openFile: async (input: { path: string | Buffer; destroy(): void }) => {
    const path = input.path.toString()
    const { size } = await stat(path)
    return {
      size,
      slice: async (start: number, end: number) => {
        const last = Math.min(end, size)
        const value: Readable & { size?: number } = createReadStream(path, {
          start,
          end: last - 1,
          highWaterMark: READ_BYTES
        })
        value.size = last - start
        return { value, done: last >= size }
      },
      close: () => input.destroy()
    }
  }
}
/** About 25 minutes of retries after a network loss, then the upload pauses (resume goes on). */
export const UPLOAD_RETRY_DELAYS = [0, 1000, 2000, 4000, 8000, 15_000, ...Array(48).fill(30_000)]
const RATE_WINDOW_MS = 5000
const FILE = 'uploads.json'

interface Running {
  upload?: Upload
  samples: Array<{ at: number; sent: number }>
  poll?: NodeJS.Timeout
  /** Set when a pause, cancel or stop aborts it: the tus error that follows is not a failure. */
  stopped?: boolean
}

export class Uploader {
  private readonly file: string
  private list: Stored[]
  private readonly running = new Map<string, Running>()
  private readonly now: () => number

  constructor(private readonly o: UploaderOptions) {
    this.file = join(o.appDataDir, FILE)
    this.now = o.now ?? Date.now
    this.list = this.load()
  }

  views(): UploadView[] {
    return this.list.map((s) => this.view(s))
  }

  get(id: string): UploadView | undefined {
    const s = this.list.find((x) => x.id === id)
    return s && this.view(s)
  }

  /** Starts an upload of `file` as an asset named `name` on the connection's service. */
  async start(args: {
    file: string
    name: string
    connectionId: string
    sessionId?: string
  }): Promise<UploadView> {
    const st = statSync(args.file)
    if (!st.isFile()) throw new Error(`${args.file} is not a file`)
    const now = this.now()
    const s: Stored = {
      id: randomUUID(),
      file: args.file,
      name: args.name,
      connectionId: args.connectionId,
      ...(args.sessionId ? { sessionId: args.sessionId } : {}),
      size: st.size,
      fileMtime: st.mtimeMs,
      sent: 0,
      state: 'uploading',
      startedAt: now,
      updatedAt: now
    }
    const answer = await this.o.service(args.connectionId).requestUpload(args.name)
    s.assetId = answer.assetId
    s.tusEndpoint = answer.tusEndpoint
    this.list.push(s)
    this.save()
    this.send(s)
    return this.view(s)
  }

  /** Goes on with every upload that was going when Onair last stopped (not the paused ones). */
  resumeAll(): void {
    for (const s of this.list) {
      if (s.state === 'uploading') this.send(s)
      else if (s.state === 'processing') this.watch(s)
    }
  }

  pause(id: string): UploadView {
    const s = this.must(id)
    if (s.state !== 'uploading') return this.view(s)
    this.halt(id)
    this.set(s, { state: 'paused' })
    return this.view(s)
  }

  resume(id: string): UploadView {
    const s = this.must(id)
    if (s.state !== 'paused' && s.state !== 'failed') return this.view(s)
    if (s.state === 'failed' && !s.tusEndpoint) return this.view(s)
    this.set(s, { state: 'uploading', error: undefined })
    this.send(s)
    return this.view(s)
  }

  /** Stops the upload, ends it on the service (tus DELETE) and deletes its asset; forgets it. */
  async cancel(id: string): Promise<void> {
    const s = this.must(id)
    const r = this.halt(id)
    await r?.upload?.abort(false).catch(() => undefined)
    if (s.uploadUrl && s.state !== 'ready' && s.state !== 'processing')
      await Upload.terminate(s.uploadUrl, { retryDelays: [] }).catch(() => undefined)
    if (s.assetId && s.state !== 'ready')
      await this.o
        .service(s.connectionId)
        .deleteAsset(s.assetId)
        .catch((e: Error) => this.o.log?.(`uploads: the asset was not deleted: ${e.message}`))
    this.list = this.list.filter((x) => x.id !== id)
    this.save()
  }

  /** Forgets a finished (ready or failed) upload. */
  dismiss(id: string): void {
    const s = this.must(id)
    if (s.state === 'uploading' || s.state === 'processing') return
    this.list = this.list.filter((x) => x.id !== id)
    this.save()
  }

  /** Onair is closing: everything stops where it is, and stays in the file to go on next time. */
  async stop(): Promise<void> {
    const all = [...this.running.keys()]
    await Promise.all(
      all.map(async (id) => {
        const r = this.halt(id)
        await r?.upload?.abort(false).catch(() => undefined)
      })
    )
  }

  private halt(id: string): Running | undefined {
    const r = this.running.get(id)
    if (!r) return undefined
    r.stopped = true
    clearTimeout(r.poll)
    this.running.delete(id)
    if (r.upload) void r.upload.abort(false).catch(() => undefined)
    return r
  }

  private send(s: Stored): void {
    if (this.running.has(s.id)) return
    let st: { size: number; mtimeMs: number } | undefined
    try {
      st = statSync(s.file)
    } catch {
      st = undefined
    }
    if (!st) return this.set(s, { state: 'failed', error: { kind: 'file-gone' } })
    if (st.size !== s.size || Math.abs(st.mtimeMs - s.fileMtime) > 1)
      return this.set(s, { state: 'failed', error: { kind: 'file-changed' } })
    const r: Running = { samples: [{ at: this.now(), sent: s.sent }] }
    this.running.set(s.id, r)
    // Each part's start, for the next part's size (performance.now: a wall clock may jump).
    let partAt = performance.now()
    const upload = new Upload(createReadStream(s.file), {
      endpoint: s.tusEndpoint,
      uploadUrl: s.uploadUrl ?? null,
      uploadSize: s.size,
      chunkSize: this.o.chunkSize ?? UPLOAD_CHUNK_BYTES,
      fileReader,
      retryDelays: this.o.retryDelays ?? UPLOAD_RETRY_DELAYS,
      storeFingerprintForResuming: false,
      metadata: {
        filename: s.name,
        filetype: s.file.toLowerCase().endsWith('.mkv') ? 'video/x-matroska' : 'video/mp4'
      },
      onUploadUrlAvailable: () => {
        // Kept at once: a kill from now on resumes this upload, not a new one.
        if (upload.url && upload.url !== s.uploadUrl) {
          s.uploadUrl = upload.url
          this.save()
        }
      },
      onProgress: (sent) => this.progress(s, r, sent),
      onChunkComplete: (size, accepted) => {
        s.sent = accepted
        this.save()
        const at = performance.now()
        // tus-js-client reads chunkSize for every part: the next one follows the rate.
        if (this.o.chunkSize === undefined)
          upload.options.chunkSize = nextPartBytes(size, at - partAt)
        partAt = at
      },
      onSuccess: () => {
        if (r.stopped) return
        this.running.delete(s.id)
        s.sent = s.size
        this.set(s, { state: 'processing' })
        this.watch(s)
      },
      onError: (err) => {
        if (r.stopped) return
        this.running.delete(s.id)
        const why = problemOf(err)
        // The network stayed down past every retry: paused, resumable by hand.
        this.set(s, { state: why.kind === 'connection-lost' ? 'paused' : 'failed', error: why })
      }
    })
    r.upload = upload
    upload.start()
  }

  private progress(s: Stored, r: Running, sent: number): void {
    const at = this.now()
    s.sent = sent
    r.samples.push({ at, sent })
    while (r.samples.length > 2 && at - r.samples[0]!.at > RATE_WINDOW_MS) r.samples.shift()
    s.updatedAt = at
    this.o.emit?.(this.view(s))
  }

  /** Polls the asset once the file is up, until it is ready or failed. */
  private watch(s: Stored): void {
    if (!s.assetId || this.running.has(s.id)) return
    const r: Running = { samples: [] }
    this.running.set(s.id, r)
    const tick = async (): Promise<void> => {
      if (r.stopped) return
      try {
        const a = await this.o.service(s.connectionId).getAsset(s.assetId!)
        if (r.stopped) return
        if (a.phase === 'ready') {
          this.running.delete(s.id)
          return this.set(s, {
            state: 'ready',
            ...(a.playbackId ? { playbackId: a.playbackId } : {}),
            ...(a.playbackUrl ? { playbackUrl: a.playbackUrl } : {})
          })
        }
        if (a.phase === 'failed') {
          this.running.delete(s.id)
          return this.set(s, {
            state: 'failed',
            error: {
              kind: 'processing-failed',
              ...(a.errorMessage ? { message: a.errorMessage } : {})
            }
          })
        }
      } catch (e) {
        this.o.log?.(`uploads: asking about asset ${s.assetId}: ${(e as Error).message}`)
      }
      r.poll = setTimeout(() => void tick(), this.o.pollMs ?? 2000)
    }
    void tick()
  }

  private set(s: Stored, fields: Partial<Stored> & { state: UploadState }): void {
    Object.assign(s, fields)
    if (fields.error === undefined && 'error' in fields) delete s.error
    s.updatedAt = this.now()
    this.save()
    this.o.emit?.(this.view(s))
  }

  private view(s: Stored): UploadView {
    const { fileMtime: _m, tusEndpoint: _t, uploadUrl: _u, ...v } = s
    const r = this.running.get(s.id)
    if (s.state === 'uploading' && r && r.samples.length >= 2) {
      const a = r.samples[0]!
      const b = r.samples[r.samples.length - 1]!
      const rate = b.at > a.at ? ((b.sent - a.sent) * 1000) / (b.at - a.at) : 0
      if (rate > 0) return { ...v, rate, etaSec: Math.ceil((s.size - s.sent) / rate) }
    }
    return v
  }

  private must(id: string): Stored {
    const s = this.list.find((x) => x.id === id)
    if (!s) throw new Error('That upload is not there any more.')
    return s
  }

  private load(): Stored[] {
    if (!existsSync(this.file)) return []
    try {
      const parsed = JSON.parse(readFileSync(this.file, 'utf8')) as { uploads?: unknown }
      if (!Array.isArray(parsed.uploads)) throw new Error('no uploads list')
      return parsed.uploads
        .filter(
          (u): u is Stored =>
            !!u &&
            typeof u === 'object' &&
            typeof (u as Stored).id === 'string' &&
            typeof (u as Stored).file === 'string'
        )
        .map((u) => {
          // An earlier version kept its sentence: shown as it was.
          const said: unknown = u.error
          return typeof said === 'string' ? { ...u, error: { kind: 'said', message: said } } : u
        })
    } catch {
      // Set aside, never overwritten.
      renameSync(this.file, `${this.file}.unreadable-${this.now()}`)
      return []
    }
  }

  private save(): void {
    const tmp = `${this.file}.tmp`
    writeFileSync(tmp, JSON.stringify({ version: 1, uploads: this.list }))
    renameSync(tmp, this.file)
  }
}

/**
 * Why a tus upload stopped: the service answered (its status, with its words when it says why:
 * {"errors":[...]}), or no answer came (the network's words, from tus-js-client's message).
 */
function problemOf(err: Error): UploadProblem {
  const res = (err as { originalResponse?: { getStatus(): number; getBody(): string } })
    .originalResponse
  if (res) {
    let message: string | undefined
    try {
      const j = JSON.parse(res.getBody()) as { errors?: unknown }
      if (Array.isArray(j.errors) && typeof j.errors[0] === 'string') message = j.errors[0]
    } catch {
      // Not JSON: the status says it.
    }
    return { kind: 'refused', status: res.getStatus(), ...(message ? { message } : {}) }
  }
  // tus-js-client says "tus: failed to ..., caused by Error: connect ECONNREFUSED ..., originated from
  // request (method: ..., url: <the upload's address, with its token>, ...)": the cause only, and
  // whatever is left redacted all the same (the view is kept in uploads.json and shown).
  const cause = /caused by:? (.*?)(?:, originated from|$)/.exec(err.message)
  return {
    kind: 'connection-lost',
    detail: redactSecrets(cause?.[1] ?? err.message).slice(0, 200)
  }
}

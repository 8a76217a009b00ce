// The local studio as a library: startStudio() runs the whole service in this process (the CLI and
// the tests use it; the app runs the CLI as a child process).
import { accessSync, constants, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { resolveFfmpeg } from '../node/ffmpeg/locate'
import { createUserKey } from './auth'
import type { StudioContext } from './context'
import { ViewerSessions } from './viewers'
import { Clips } from './clips'
import { openSessionOf } from './session-store'
import { openDb, type Db } from './db'
import { Ingest } from './ingest'
import { LiveManager } from './live'
import { listen } from '../node/http'
import { createApiServer } from './server'
import { Webhooks, type WebhooksOptions } from './webhooks'
import { WebRtcHub } from './webrtc/hub'
import { Uploads, type UploadsOptions } from './uploads/uploads'

export interface StudioOptions {
  dataDir: string
  host?: string
  port?: number
  rtmpPort?: number
  resumeWindowMs?: number
  /**
   * When port or rtmpPort is taken, take any free one instead of failing (the app asks for its
   * remembered ports this way and tells the creator when one changed).
   */
  portFallback?: boolean
  log?: (line: string) => void
  /** Webhook delivery's timeout and retries (tests shorten them); Livepeer-like defaults otherwise. */
  webhooks?: Pick<WebhooksOptions, 'timeoutMs' | 'backoff' | 'maxAttempts'>
  /**
   * The UDP ports WHIP publishers' peers take (WHEP viewers take any): a firewall rule, or a test's
   * shaper, can name the media upload. Default: ONAIR_STUDIO_WHIP_PORTS ("50000-50015"), else any.
   */
  whipPorts?: [number, number]
  /** Uploads' size limit, expiry and free-space margin (tests lower them); the defaults otherwise. */
  uploads?: Pick<UploadsOptions, 'maxBytes' | 'expiryMs' | 'sweepMs' | 'minFreeBytes'>
  /**
   * The app's own origins (`scheme://host[:port]`, as shared/origin.ts compares them): pages there may
   * upload by tus from a browser (CORS with the tus headers). Any other origin gets no CORS answer
   * on the tus endpoint. The app passes its renderer's origins (--app-origin).
   */
  appOrigins?: readonly string[]
}

/** "50000-50015" -> [50000, 50015]; undefined for nothing or a malformed range (any port then). */
export function parsePortRange(text: string | undefined): [number, number] | undefined {
  const m = /^\s*(\d{1,5})\s*-\s*(\d{1,5})\s*$/.exec(text ?? '')
  if (!m) return undefined
  const [a, b] = [Number(m[1]), Number(m[2])]
  return a >= 1024 && b <= 65535 && a <= b ? [a, b] : undefined
}

export interface RunningStudio {
  apiUrl: string
  rtmpUrl: string
  apiKey?: string
  dataDir: string
  stop(): Promise<void>
  stopIngest(): Promise<void>
  startIngest(): Promise<void>
  /** WHIP sessions and WHEP viewers open now. */
  webrtcCounts?(): { publishers: number; viewers: number }
}

/** A start failure with a cause people can act on; `code` is EADDRINUSE, EACCES... when known. */
export class StudioStartError extends Error {
  constructor(
    message: string,
    readonly code?: string
  ) {
    super(message)
    this.name = 'StudioStartError'
  }
}

function checkWritable(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true })
    accessSync(dir, constants.W_OK)
    const probe = join(dir, `.write-probe-${process.pid}`)
    writeFileSync(probe, '')
    rmSync(probe)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    throw new StudioStartError(
      `data directory ${dir} is not writable (${code ?? (err as Error).message})`,
      code ?? 'EACCES'
    )
  }
}

/** Binds on port; with portFallback, a taken port gives way to any free one (logged). */
async function withFallback(
  opts: StudioOptions,
  port: number,
  bind: (port: number) => Promise<number>
): Promise<number> {
  try {
    return await bind(port)
  } catch (err) {
    if (!opts.portFallback || port === 0 || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE')
      throw err
    opts.log?.(`studio: ${(err as Error).message}; taking another port`)
    return bind(0)
  }
}

const hostForUrl = (h: string): string => (h.includes(':') ? `[${h}]` : h)

const hasUsers = (db: Db): boolean =>
  (db.prepare('SELECT count(*) AS n FROM users').get() as { n: number }).n > 0

export async function startStudio(opts: StudioOptions): Promise<RunningStudio> {
  const host = opts.host ?? '127.0.0.1'
  const dataDir = resolve(opts.dataDir)
  const log = opts.log ?? (() => undefined)
  checkWritable(dataDir)
  let ffmpeg: string
  try {
    ffmpeg = resolveFfmpeg().path
  } catch (err) {
    throw new StudioStartError((err as Error).message, 'ENOENT')
  }
  const db = openDb(dataDir)
  let apiPort = 0
  let rtmpPort = 0
  const base = (): string => `http://${hostForUrl(host)}:${apiPort}`
  const rtmpUrl = (): string => `rtmp://${hostForUrl(host)}:${rtmpPort}/live`
  // eslint-disable-next-line prefer-const -- the manager and the ingest refer to each other
  let ingest: Ingest
  const webhooks = new Webhooks({ ...opts.webhooks, db, base, log })
  const live = new LiveManager({
    db,
    dataDir,
    ffmpeg,
    resumeWindowMs: opts.resumeWindowMs ?? 10_000,
    log,
    ingest: () => ingest,
    emit: webhooks.emit
  })
  ingest = new Ingest(host, live, log)
  const uploads = new Uploads({
    ...opts.uploads,
    appOrigins: opts.appOrigins ?? [],
    db,
    dataDir,
    ffmpeg,
    base,
    log,
    emit: webhooks.emit
  })
  const clips = new Clips({
    onRemove: (asset) => uploads.removeFiles(asset),
    emit: webhooks.emit,
    base,
    db,
    dataDir,
    ffmpeg,
    log,
    liveSession: (streamId) => openSessionOf(db, streamId)
  })
  const webrtc = new WebRtcHub({
    host,
    ffmpeg,
    log,
    whipPorts: opts.whipPorts ?? parsePortRange(process.env.ONAIR_STUDIO_WHIP_PORTS),
    authorize: (key) => live.authorize(key),
    rtmpPublishing: (key) => ingest.isPublishing(key),
    rtmpUrl: (key) => `${rtmpUrl()}/${key}`
  })
  const ctx: StudioContext = {
    db,
    dataDir,
    base,
    rtmpUrl,
    live,
    viewers: new ViewerSessions(),
    clips,
    webhooks,
    webrtc,
    log
  }
  const server = createApiServer(ctx, uploads)
  try {
    const recovered = await live.recover()
    if (recovered > 0) log(`studio: finalized ${recovered} session(s) left open by a previous run`)
    const unfinished = clips.recover()
    if (unfinished > 0)
      log(`studio: ${unfinished} clip(s) left unfinished by a previous run failed`)
    await uploads.start()
    apiPort = await withFallback(opts, opts.port ?? 0, (p) => listen(server, host, p, 'API'))
    rtmpPort = await withFallback(opts, opts.rtmpPort ?? 0, (p) => ingest.start(p))
    webhooks.start()
  } catch (err) {
    server.close()
    await uploads.close()
    await ingest.stop()
    await webhooks.stop(0)
    db.close()
    const e = err as NodeJS.ErrnoException
    throw new StudioStartError(e.message, e.code)
  }
  // A key is made only for a data dir without users (first start), and shown once.
  const apiKey = hasUsers(db) ? undefined : createUserKey(db).apiKey
  let stopped: Promise<void> | undefined
  return {
    apiUrl: `${base()}/api`,
    rtmpUrl: rtmpUrl(),
    ...(apiKey ? { apiKey } : {}),
    dataDir,
    stop: () =>
      (stopped ??= (async () => {
        // WHIP publishers first, in order: their relays unpublish cleanly, so sessions end at once.
        await webrtc.stopAll()
        await ingest.stop()
        // Clips being cut take what the session has now, before a run's media is finalized.
        await clips.close()
        await uploads.close()
        await live.stopAll()
        // The last events (stream.idle, recording.ready) get a moment to reach their receivers.
        await webhooks.stop()
        await new Promise<void>((r) => {
          server.close(() => r())
          server.closeAllConnections()
        })
        db.close()
      })()),
    stopIngest: () => ingest.stop(),
    webrtcCounts: () => webrtc.counts(),
    startIngest: async () => {
      await ingest.start(rtmpPort)
    }
  }
}

/**
 * Makes a user (or finds it by name) and a new API key for it; safe while the studio runs (WAL).
 */
export async function createApiKey(dataDir: string, userName?: string): Promise<string> {
  checkWritable(resolve(dataDir))
  const db = openDb(resolve(dataDir))
  try {
    return createUserKey(db, userName).apiKey
  } finally {
    db.close()
  }
}

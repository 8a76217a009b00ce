// The web shell: the same core served to a browser on 127.0.0.1 only. Calls are HTTP POSTs, events a
// WebSocket (raw frames for Onair's encoder are POSTs too, pushFrames). A random
// token, made at start, is exchanged once for an HttpOnly SameSite=Strict cookie; every request also
// needs our own Host (no DNS rebinding) and, when a browser sends one, our own Origin.
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { join, resolve } from 'node:path'
import { WebSocketServer, type WebSocket } from 'ws'
import { listen, readBody } from '../../node/http'
import { contentTypeOf, resolveStaticFile } from '../../node/static-files'
import { Readable } from 'node:stream'
import {
  EVENT_NAMES,
  MAX_CALL_BYTES,
  type CallName,
  type RecordingDownload
} from '../../shared/contract'
import type { Result } from '../../shared/result'
import { saveFailure } from '../core/rendition-downloads'
import type { Core } from '../core/core'
import { dispatch, isCallName } from '../core/dispatch'
import { contentSecurityPolicy } from '../core/csp'
import { isOwnOrigin } from '../../shared/origin'

export interface WebShellOptions {
  core: Core
  /** Built renderer (out/renderer). */
  staticDir: string
  port?: number
  /** Take any free port when `port` is taken (the remembered port of an earlier launch). */
  portFallback?: boolean
  token?: string
  /** The session secret; a restarted shell that reuses it keeps the open tabs signed in. */
  session?: string
  log?: (line: string) => void
}

export interface RunningWebShell {
  /** Open this once: it carries the one-time token. */
  url: string
  origin: string
  token: string
  /**
   * The session secret the token is exchanged for (the browser gets it only as an HttpOnly cookie);
   * for callers in this process, e.g. tests calling with `Authorization: Bearer <session>`.
   */
  session: string
  close(): Promise<void>
}

const sameSecret = (a: string, b: string): boolean => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

function cookieToken(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=')
    if (k === name) return v.join('=')
  }
  return undefined
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff'
  })
  res.end(text)
}

/** The arguments of a call whose body is bytes: the chunk, and what the query string adds. */
const BINARY_ARGS: Partial<Record<CallName, (url: URL, bytes: Uint8Array) => unknown[]>> = {
  pushMedia: (url, chunk) => [url.searchParams.get('runId') ?? '', chunk],
  pushFrames: (url, chunk) => [url.searchParams.get('runId') ?? '', chunk],
  saveSceneImage: (_url, bytes) => [bytes]
}

/** A call's Result as JSON; a value that is bytes (a scene picture) as the body itself. */
function sendResult(res: ServerResponse, r: Result<unknown>): void {
  if (!r.ok || !(r.value instanceof Uint8Array)) return send(res, 200, r)
  res.writeHead(200, {
    'content-type': 'application/octet-stream',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff'
  })
  res.end(Buffer.from(r.value.buffer, r.value.byteOffset, r.value.byteLength))
}

/**
 * How long an idle connection is kept: longer than any browser reuses one (Chromium 5 minutes,
 * Firefox 115 s, Safari less), so the browser always closes it first.
 */
export const KEEP_IDLE_CONNECTIONS_MS = 310_000

/** What a second browser sees when it opens a link that was already used. */
const USED_LINK_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Onair: this link was already used</title>
<meta name="color-scheme" content="light dark"></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; padding: 0 1rem">
<h1>This Onair link was already used</h1>
<p>The link Onair prints opens it once, so that nobody else on this computer can take over your
broadcasts with it.</p>
<p>Go back to the Onair tab that is already open. If you closed it, stop Onair (Ctrl+C in its
terminal) and start it again with <code>npm start</code>: it prints a new link.</p>
</body></html>`

const refuse = (res: ServerResponse, status: number, message: string): void =>
  send(res, status, { ok: false, error: { code: 'forbidden', message } } satisfies Result<never>)

/** 400: the request itself cannot be read (its URL, its percent-encoding). */
const badRequest = (res: ServerResponse, message: string): void =>
  send(res, 400, { ok: false, error: { code: 'bad-request', message } } satisfies Result<never>)

/** A request's URL, or undefined when it cannot be parsed (`//[` is a host that is not one). */
function parseUrl(raw: string | undefined): URL | undefined {
  try {
    return new URL(raw ?? '/', 'http://127.0.0.1')
  } catch {
    return undefined
  }
}

/** A path segment decoded, or undefined for bad percent-encoding (`%E0%A4%A`). */
function decodeSegment(s: string): string | undefined {
  try {
    return decodeURIComponent(s)
  } catch {
    return undefined
  }
}

export async function startWebShell(opts: WebShellOptions): Promise<RunningWebShell> {
  const token = opts.token ?? randomBytes(24).toString('base64url')
  // The token opens the app once; the cookie then carries this separate secret.
  const session = opts.session ?? randomBytes(32).toString('base64url')
  let tokenUsed = false
  const root = resolve(opts.staticDir)
  const log = opts.log ?? (() => {})
  let origins: string[] = []
  // Cookies are shared across ports of one host: the name carries the port so two shells don't collide.
  let cookieName = 'onair_token'
  let hosts: string[] = []
  let wsOrigins: string[] = []

  const authorized = (req: IncomingMessage): boolean => {
    const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1]
    const presented = bearer ?? cookieToken(req, cookieName)
    return presented !== undefined && sameSecret(presented, session)
  }
  const hostOk = (req: IncomingMessage): boolean => hosts.includes(req.headers.host ?? '')
  // Browsers send Origin on POST and WebSocket; a foreign one means another site is trying to use us.
  const originOk = (req: IncomingMessage): boolean =>
    req.headers.origin === undefined || isOwnOrigin(req.headers.origin, origins)

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      log(`web shell request failed: ${String(e)}`)
      if (!res.headersSent)
        send(res, 500, { ok: false, error: { code: 'internal', message: 'internal error' } })
      else res.end()
    })
  })

  // An idle connection stays open until the browser closes it. Node's default closes it after 5 s,
  // while Chromium reuses an idle connection for up to 5 minutes: a call sent just as the server
  // closed one fails in the page ("Failed to fetch"), since the browser does not send a POST again.
  // Seen here: runs of Onair's encoder in the web shell ended by themselves, the page's pushFrames
  // call having failed so (bench/notes/encoder-picture.md).
  server.keepAliveTimeout = KEEP_IDLE_CONNECTIONS_MS

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hostOk(req)) return refuse(res, 403, 'Host not allowed: open Onair at 127.0.0.1.')
    const url = parseUrl(req.url)
    if (!url) return badRequest(res, 'Bad request URL.')
    const offered = url.searchParams.get('token')
    if (offered !== null && req.method === 'GET') {
      if (!sameSecret(offered, token))
        return refuse(res, 401, 'Wrong token: open the URL Onair printed.')
      url.searchParams.delete('token')
      const location = url.pathname + (url.search || '')
      if (tokenUsed) {
        // The browser that already has the session (a restored tab) just goes on; anyone else is told.
        if (authorized(req)) {
          res.writeHead(303, { location, 'cache-control': 'no-store' })
          res.end()
          return
        }
        log('web shell: the one-time link was opened again without the session; refused')
        res.writeHead(403, {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-store',
          'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'"
        })
        res.end(USED_LINK_PAGE)
        return
      }
      tokenUsed = true
      res.writeHead(303, {
        location,
        'set-cookie': `${cookieName}=${session}; HttpOnly; SameSite=Strict; Path=/`,
        'cache-control': 'no-store'
      })
      res.end()
      return
    }
    if (!authorized(req))
      return refuse(res, 401, 'Not signed in: open the URL Onair printed (it carries the token).')
    if (url.pathname.startsWith('/rpc/')) return rpc(req, res, url)
    if (url.pathname.startsWith('/download/')) return download(res, url)
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return refuse(res, 405, 'Method not allowed.')
    return serveStatic(url.pathname, res)
  }

  async function rpc(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (req.method !== 'POST') return refuse(res, 405, 'Calls are POST requests.')
    if (!originOk(req)) return refuse(res, 403, 'Origin not allowed.')
    const name = decodeSegment(url.pathname.slice('/rpc/'.length))
    if (name === undefined) return badRequest(res, 'Bad percent-encoding in the call name.')
    if (!isCallName(name))
      return send(res, 404, {
        ok: false,
        error: { code: 'bad-request', message: `Unknown call: ${name.slice(0, 80)}` }
      })
    // Calls whose bytes are the body (a media chunk, a scene picture), not JSON.
    const binary = BINARY_ARGS[name]
    if (binary) {
      const body = await readBody(req, MAX_CALL_BYTES)
      if (body === 'too-large')
        return send(res, 413, {
          ok: false,
          error: { code: 'bad-request', message: 'Media chunk too large.' }
        })
      const chunk = new Uint8Array(body.buffer, body.byteOffset, body.byteLength)
      return sendResult(res, await dispatch(opts.core, name, binary(url, chunk), { log }))
    }
    if (!(req.headers['content-type'] ?? '').startsWith('application/json'))
      return send(res, 415, {
        ok: false,
        error: { code: 'bad-request', message: 'Calls are JSON.' }
      })
    const body = await readBody(req, MAX_CALL_BYTES)
    if (body === 'too-large')
      return send(res, 413, {
        ok: false,
        error: { code: 'bad-request', message: 'Request too large.' }
      })
    let parsed: unknown
    try {
      parsed = body.length ? JSON.parse(body.toString('utf8')) : {}
    } catch {
      return send(res, 400, {
        ok: false,
        error: { code: 'bad-request', message: 'Malformed JSON.' }
      })
    }
    const args = (parsed as { args?: unknown })?.args ?? []
    sendResult(res, await dispatch(opts.core, name, args, { log }))
  }

  /**
   * A recording's MP4, saved by the browser: same origin (a cross-origin link would ignore its
   * download attribute and replace the app with the video) and named by Content-Disposition. With
   * `?rendition=<its playlist>`, that rendition, remuxed to MP4 in a temporary folder first. A clip's
   * MP4 comes the same way, at /download/clip/<its id>.
   */
  const CLIP_PREFIX = 'clip/'
  async function download(res: ServerResponse, url: URL): Promise<void> {
    // /download/<session id>[?rendition=…] or /download/clip/<clip id>.
    const rest = url.pathname.slice('/download/'.length)
    const clip = rest.startsWith(CLIP_PREFIX)
    const id = decodeSegment(clip ? rest.slice(CLIP_PREFIX.length) : rest)
    if (id === undefined) return badRequest(res, 'Bad percent-encoding in the address.')
    const rendition = url.searchParams.get('rendition')
    const args = rendition === null || clip ? [id] : [id, rendition]
    const r = await dispatch(opts.core, clip ? 'downloadClip' : 'downloadRecording', args, { log })
    if (!r.ok) return send(res, r.error.code === 'not-found' ? 404 : 400, r)
    const { url: source, filename, format } = r.value as RecordingDownload
    if (format === 'hls') return sendRendition(res, source, filename)
    const upstream = await fetch(source).catch(() => undefined)
    if (!upstream?.ok || !upstream.body)
      return send(res, 502, {
        ok: false,
        error: {
          code: 'network',
          message: `The ${clip ? 'clip' : 'recording'} could not be fetched from the service (${upstream ? `HTTP ${upstream.status}` : 'no answer'}).`
        }
      })
    res.writeHead(200, attachment(filename, upstream.headers.get('content-length')))
    Readable.fromWeb(upstream.body as import('node:stream/web').ReadableStream).pipe(res)
  }

  /** A rendition: the core remuxes it into a temporary file, sent and then removed. */
  async function sendRendition(
    res: ServerResponse,
    source: string,
    filename: string
  ): Promise<void> {
    const dir = await mkdtemp(join(tmpdir(), 'onair-rendition-'))
    const file = join(dir, 'rendition.mp4')
    const cleanup = (): void => void rm(dir, { recursive: true, force: true })
    try {
      await opts.core.saveRendition(source, file)
    } catch (e) {
      cleanup()
      return send(res, 502, { ok: false, error: saveFailure(e) })
    }
    const { size } = await stat(file)
    res.writeHead(200, attachment(filename, String(size)))
    const body = createReadStream(file)
    body.on('close', cleanup)
    // A browser that stops the download early: the file is closed (and removed) all the same.
    res.on('close', () => body.destroy())
    body.pipe(res)
  }

  function attachment(filename: string, length: string | null): Record<string, string> {
    const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_')
    return {
      'content-type': 'video/mp4',
      'content-disposition': `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      ...(length ? { 'content-length': length } : {})
    }
  }

  async function serveStatic(pathname: string, res: ServerResponse): Promise<void> {
    const found = resolveStaticFile(pathname, root)
    if (found.kind === 'bad-path') return badRequest(res, 'Bad path.')
    if (found.kind === 'outside') return refuse(res, 404, 'Not found.')
    if (found.kind === 'not-built') {
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' })
      res.end('The renderer is not built: run `npm run build` first.')
      return
    }
    // The page's CSP is built at each load from the active connection's hosts.
    const csp = found.isHtml
      ? contentSecurityPolicy(await opts.core.connectHosts(), wsOrigins)
      : undefined
    res.writeHead(200, {
      'content-type': contentTypeOf(found.path),
      'x-content-type-options': 'nosniff',
      'cache-control': found.isHtml ? 'no-store' : 'max-age=3600',
      ...(csp ? { 'content-security-policy': csp, 'x-frame-options': 'DENY' } : {})
    })
    createReadStream(found.path).pipe(res)
  }

  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 })
  const clients = new Set<WebSocket>()
  server.on('upgrade', (req, socket, head) => {
    const url = parseUrl(req.url)
    const path = url?.pathname
    if (path !== '/events' || !hostOk(req) || !originOk(req) || !authorized(req)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n')
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      clients.add(ws)
      ws.on('close', () => clients.delete(ws))
      ws.on('error', () => clients.delete(ws))
    })
  })
  const unsubscribe = EVENT_NAMES.map((event) =>
    opts.core.events.on(event, (payload) => {
      const text = JSON.stringify({ event, payload })
      for (const ws of clients) if (ws.readyState === ws.OPEN) ws.send(text)
    })
  )

  let port: number
  try {
    port = await listen(server, '127.0.0.1', opts.port ?? 0, 'The web shell')
  } catch (e) {
    if (!opts.portFallback || (e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e
    log(`web shell: ${(e as Error).message}; taking another port`)
    port = await listen(server, '127.0.0.1', 0, 'The web shell')
  }
  origins = [`http://127.0.0.1:${port}`, `http://localhost:${port}`]
  hosts = [`127.0.0.1:${port}`, `localhost:${port}`]
  wsOrigins = [`ws://127.0.0.1:${port}`, `ws://localhost:${port}`]
  cookieName = `onair_token_${port}`
  const origin = origins[0] as string

  return {
    url: `${origin}/?token=${token}`,
    origin,
    token,
    session,
    close: async () => {
      for (const off of unsubscribe) off()
      for (const ws of clients) ws.terminate()
      await new Promise<void>((r) => wss.close(() => r()))
      server.closeAllConnections()
      await new Promise<void>((r) => server.close(() => r()))
    }
  }
}

// A small router on node:http: enough for a dozen JSON routes and two read-only media trees, with
// the reference's error shape ({"errors":[...]}) on every failure, bad input included.
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { readBody } from '../node/http'
import { HttpError } from './validate'

export const MAX_BODY_BYTES = 100 * 1024 // express body-parser's default, as the reference
/** A request's headers in all (Node's default, set explicitly): past it, 431. */
export const MAX_HEADER_BYTES = 16 * 1024
/** The Authorization header: an API key is 36 characters; past this, 431 before any parsing. */
export const MAX_AUTHORIZATION_BYTES = 1024

export interface Req {
  method: string
  url: URL
  params: string[]
  raw: IncomingMessage
  body: () => Promise<unknown>
}

export interface Reply {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

export type Handler = (req: Req, res: ServerResponse) => Promise<Reply | void>

interface Route {
  method: string
  pattern: RegExp
  handler: Handler
}

const CORS_HEADERS: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
  'Access-Control-Allow-Headers': 'Authorization, Content-Type, Range',
  'Access-Control-Expose-Headers': 'Link, X-Total-Count, Content-Length, Content-Range',
  'Access-Control-Max-Age': '600'
}

export function sendJson(res: ServerResponse, status: number, body?: unknown, headers = {}): void {
  if (res.headersSent) return
  const text = body === undefined ? '' : JSON.stringify(body)
  res.writeHead(status, {
    ...CORS_HEADERS,
    ...headers,
    ...(text ? { 'Content-Type': 'application/json; charset=utf-8' } : {}),
    'Content-Length': Buffer.byteLength(text)
  })
  res.end(text)
}

export const sendError = (res: ServerResponse, status: number, message: string): void =>
  sendJson(res, status, { errors: [message] })

export const corsHeaders = (): Record<string, string> => ({ ...CORS_HEADERS })

/** The JSON body, read once on first use: 413 past the limit, 400 for malformed JSON. */
function jsonBody(req: IncomingMessage): () => Promise<unknown> {
  let cached: Promise<unknown> | undefined
  return () =>
    (cached ??= readBody(req, MAX_BODY_BYTES).then(
      (body) => {
        if (body === 'too-large') throw new HttpError(413, 'request entity too large')
        const text = body.toString('utf8')
        if (text.trim() === '') return undefined
        try {
          return JSON.parse(text) as unknown
        } catch (err) {
          // Deeply nested input can overflow the parser's stack: still the client's bad JSON.
          const why = err instanceof SyntaxError ? err.message : 'nesting too deep'
          throw new HttpError(400, `malformed JSON: ${why.slice(0, 200)}`)
        }
      },
      () => {
        throw new HttpError(400, 'request body could not be read')
      }
    ))
}

export class Router {
  private readonly routes: Route[] = []

  add(method: string, pattern: RegExp, handler: Handler): this {
    this.routes.push({ method, pattern, handler })
    return this
  }

  async handle(raw: IncomingMessage, res: ServerResponse, log: (l: string) => void): Promise<void> {
    const method = raw.method ?? 'GET'
    let url: URL
    try {
      url = new URL(raw.url ?? '/', 'http://studio.invalid')
    } catch {
      return sendError(res, 400, 'bad request URL')
    }
    if (
      method === 'OPTIONS' &&
      !this.routes.some((r) => r.method === 'OPTIONS' && r.pattern.test(url.pathname))
    ) {
      res.writeHead(204, CORS_HEADERS)
      res.end()
      return
    }
    if ((raw.headers.authorization?.length ?? 0) > MAX_AUTHORIZATION_BYTES)
      return sendError(
        res,
        431,
        `the Authorization header is longer than ${MAX_AUTHORIZATION_BYTES} bytes`
      )
    let path: string
    try {
      path = decodeURIComponent(url.pathname)
    } catch {
      return sendError(res, 400, 'bad percent-encoding in the URL path')
    }
    const matching = this.routes.filter((r) => r.pattern.test(path))
    if (matching.length === 0) return sendError(res, 404, 'not found')
    const route = matching.find(
      (r) => r.method === method || (method === 'HEAD' && r.method === 'GET')
    )
    if (!route) {
      const allow = [...new Set(matching.map((r) => r.method))].join(', ')
      return sendJson(res, 405, { errors: ['method not allowed'] }, { Allow: allow })
    }
    const params = (route.pattern.exec(path) ?? []).slice(1).map((p) => p ?? '')
    const req: Req = { method, url, params, raw, body: jsonBody(raw) }
    try {
      const reply = await route.handler(req, res)
      if (reply) sendJson(res, reply.status, reply.body, reply.headers)
    } catch (err) {
      // Every schema error, in Livepeer's shape ({"errors": [...]}); one message for the other errors.
      if (err instanceof HttpError) return sendJson(res, err.status, { errors: err.errors })
      const storage = storageFault(err)
      if (storage) return sendError(res, storage.status, storage.message)
      log(
        `studio: internal error on ${method} ${url.pathname.slice(0, 80)}: ${(err as Error).stack ?? err}`
      )
      sendError(res, 500, `Internal server error: ${(err as Error).name ?? 'Error'}`)
    }
  }
}

/**
 * Requests Node refuses before they reach the router (headers past MAX_HEADER_BYTES, a malformed
 * request line, a request too slow to arrive) are answered in the API's shape, {"errors":[...]},
 * where Node would answer with an empty body; then the connection closes.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A response already under way on this connection cannot be followed by another.
    const busy = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent
    if (!socket.writable || busy || err.code === 'ECONNRESET') {
      socket.destroy()
      return
    }
    const [status, reason, message] =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', `request headers past ${MAX_HEADER_BYTES} bytes`]
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'Request Timeout', 'the request took too long to arrive']
          : [400, 'Bad Request', 'malformed HTTP request']
    const body = JSON.stringify({ errors: [message] })
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
    )
  })
}

/**
 * The store cannot write: a full disk (507) or a data folder that became read-only (503). Named plainly,
 * because the way out is on the operator's side, and nothing already written is touched.
 */
export function storageFault(err: unknown): { status: number; message: string } | undefined {
  const code = String((err as { code?: unknown })?.code ?? '')
  const text = String((err as Error)?.message ?? '')
  if (code === 'ENOSPC' || code === 'SQLITE_FULL' || /database or disk is full/i.test(text))
    return { status: 507, message: "the studio's disk is full: free some space and try again" }
  if (
    ['EROFS', 'EACCES', 'EPERM', 'SQLITE_READONLY'].includes(code) ||
    /readonly database/i.test(text)
  )
    return {
      status: 503,
      message: "the studio's data folder is not writable: check its permissions"
    }
  return undefined
}

/** limit as the reference: default 20, at most 1000, anything below 1 or not a number -> 20. */
export function parseLimit(url: URL): number {
  const n = Number.parseInt(url.searchParams.get('limit') ?? '', 10)
  if (!Number.isFinite(n) || n < 1) return 20
  return Math.min(n, 1000)
}

/** Cursor: the reference's opaque `skip<N>`. Anything else is the client's mistake. */
export function parseCursor(url: URL): number {
  const c = url.searchParams.get('cursor')
  if (c === null || c === '') return 0
  const m = /^skip(\d{1,9})$/.exec(c)
  if (!m) throw new HttpError(400, 'invalid cursor')
  return Number(m[1])
}

/** The paging headers: Link rel="next" only when the page is full, X-Total-Count when asked. */
export function pageHeaders(
  base: string,
  url: URL,
  offset: number,
  limit: number,
  pageSize: number,
  total: number
): Record<string, string> {
  const h: Record<string, string> = {}
  if (pageSize === limit) {
    const next = new URL(url.pathname + url.search, base)
    next.searchParams.set('cursor', `skip${offset + limit}`)
    h.Link = `<${next.toString()}>; rel="next"`
  }
  const count = url.searchParams.get('count')
  if (count !== null && count !== '' && count !== 'false' && count !== '0') {
    h['X-Total-Count'] = String(total)
  }
  return h
}

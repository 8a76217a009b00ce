// The API client's HTTP, on node:http/https, so it knows what fetch hides: whether a request went
// out on a reused keep-alive socket, and whether any of its bytes left at all. That is the
// keep-alive race: a request leaves on a pooled socket just as the server closes it for being idle
// (node's own server after 5 s; Livepeer Studio's load balancers too), and the call fails with
// "connection reset" although the service is fine.
// - Pooled sockets idle at most 2 s, below any server's idle timeout we talk to.
// - An idempotent request (GET, HEAD, PUT, DELETE, and PATCH, which the service treats as setting
//   fields) that fails with a reset or closed socket is sent once more, on a new socket.
// - A POST never rides a pooled socket (a fresh connection, closed after it), so it cannot meet a
//   stale one. It is sent again only when its connection failed before any byte of it was written
//   (TCP not connected, or TLS handshake not done); a failure after that is reported, not retried.
// - The retry shares the call's one deadline: a call never takes longer than its timeout.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import type { Socket } from 'node:net'

/**
 * How long a pooled keep-alive socket may sit idle before we close it ourselves. It must stay
 * below the idle timeout of every server we talk to, or the server closes first and our next
 * request can leave on a socket it is closing: node:http's server keepAliveTimeout defaults to 5 s
 * (the local studio sets 5 s), and load balancers' idle timeouts are usually far longer. A
 * server's `Keep-Alive: timeout=N` hint lowers it further (node's Agent then keeps a socket
 * N - 1 s at most).
 */
export const IDLE_SOCKET_MS = 2000

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])
/** A reset or closed socket: "socket hang up" and "aborted" are node's ECONNRESET too. */
const CLOSED_SOCKET = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED'])

export interface TransportReply {
  status: number
  headers: Headers
  body: string
}

export class TransportTimeout extends Error {
  override name = 'TimeoutError'
}

/** One failed attempt, and whether any byte of the request may have reached the server. */
class AttemptFailure {
  constructor(
    readonly error: unknown,
    readonly written: boolean
  ) {}
}

/**
 * Whether a failed attempt may be sent once more, on a reset or closed socket only: a POST only if
 * none of it was written (the server cannot have acted on it); an idempotent request always, as a
 * second copy changes nothing the first did not.
 */
export function mayResend(method: string, error: unknown, written: boolean): boolean {
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code !== 'string' || !CLOSED_SOCKET.has(code)) return false
  return !written || IDEMPOTENT.has(method.toUpperCase())
}

export class HttpTransport {
  private readonly http = new HttpAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS })
  private readonly https = new HttpsAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS })
  /** Attempts that were sent a second time (tests, diagnostics). */
  resent = 0

  async request(
    method: string,
    url: string,
    headers: Record<string, string>,
    body: string | undefined,
    timeoutMs: number
  ): Promise<TransportReply> {
    const deadline = Date.now() + timeoutMs
    try {
      return await this.once(method, url, headers, body, timeoutMs, true)
    } catch (e) {
      if (!(e instanceof AttemptFailure)) throw e
      const left = deadline - Date.now()
      if (!mayResend(method, e.error, e.written) || left <= 0) throw e.error
      this.resent++
      try {
        // A new connection, never a pooled one: the pool may hold more sockets the server closed.
        return await this.once(method, url, headers, body, left, false)
      } catch (e2) {
        throw e2 instanceof AttemptFailure ? e2.error : e2
      }
    }
  }

  /** One attempt; pooled only for idempotent requests (and never for a retry). */
  private once(
    method: string,
    url: string,
    headers: Record<string, string>,
    body: string | undefined,
    timeoutMs: number,
    pooled: boolean
  ): Promise<TransportReply> {
    const u = new URL(url)
    const secure = u.protocol === 'https:'
    const pool = pooled && IDEMPOTENT.has(method.toUpperCase())
    const agent = pool ? (secure ? this.https : this.http) : false
    const send = secure ? httpsRequest : httpRequest
    return new Promise((resolve, reject) => {
      let written = false
      const fail = (e: unknown): void => {
        clearTimeout(deadline)
        reject(new AttemptFailure(e, written))
      }
      const req = send(u, {
        method,
        agent,
        headers: {
          ...headers,
          ...(pool ? {} : { connection: 'close' }),
          ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {})
        }
      })
      const deadline = setTimeout(() => req.destroy(new TransportTimeout('timed out')), timeoutMs)
      req.on('socket', (socket: Socket) => {
        // ClientRequest holds the request's bytes until its socket is connected (and, for TLS, the
        // handshake done), so before that nothing of it can have reached the server. A reused or
        // already connected socket counts as written: when unsure, we must not send twice. 'socket'
        // comes a tick after a new socket is made, before its connect can have completed.
        if (req.reusedSocket || !socket.connecting) {
          written = true
          return
        }
        socket.once(secure ? 'secureConnect' : 'connect', () => (written = true))
      })
      req.on('error', fail)
      req.on('response', (res: IncomingMessage) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('error', fail)
        res.on('end', () => {
          clearTimeout(deadline)
          const h = new Headers()
          for (const [k, v] of Object.entries(res.headers)) {
            if (Array.isArray(v)) for (const x of v) h.append(k, x)
            else if (v !== undefined) h.set(k, v)
          }
          resolve({
            status: res.statusCode ?? 0,
            headers: h,
            body: Buffer.concat(chunks).toString('utf8')
          })
        })
      })
      req.end(body)
    })
  }

  /** Closes the pooled sockets (tests, shutdown). */
  close(): void {
    this.http.destroy()
    this.https.destroy()
  }
}

/** One transport for the process: every ApiClient shares its pools. */
export const sharedTransport = new HttpTransport()

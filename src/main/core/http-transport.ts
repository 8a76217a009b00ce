// The API client's HTTP, on node:http/https, so it knows what fetch hides: whether a request went out
// on a reused keep-alive socket. That is the keep-alive race: a request leaves on a pooled socket just
// as the server closes it for being idle (node's own server after 5 s; Livepeer Studio's load balancers
// too), and the call fails with "connection reset" although the service is fine.
// - Pooled sockets idle at most 2 s, below any server's idle timeout we talk to.
// - An idempotent request (GET, HEAD, PUT, DELETE, and PATCH, which the service treats as setting
//   fields) that fails with a reset or closed socket it reused is sent once more on a new socket.
// - A POST never rides a pooled socket (a fresh connection, closed after it), so it cannot meet a stale
//   one, and it is never sent twice: a failure after its first byte is reported, not retried.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'

/** Below node's default server keepAliveTimeout (5 s) and any load balancer's. */
export const IDLE_SOCKET_MS = 2000

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])
const STALE_SOCKET = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED'])

export interface TransportReply {
  status: number
  headers: Headers
  body: string
}

export class TransportTimeout extends Error {
  override name = 'TimeoutError'
}

export class HttpTransport {
  private readonly http = new HttpAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS })
  private readonly https = new HttpsAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS })

  async request(
    method: string,
    url: string,
    headers: Record<string, string>,
    body: string | undefined,
    timeoutMs: number
  ): Promise<TransportReply> {
    try {
      return await this.once(method, url, headers, body, timeoutMs, true)
    } catch (e) {
      const err = e as NodeJS.ErrnoException & { reusedSocket?: boolean }
      const stale = err.reusedSocket === true && STALE_SOCKET.has(err.code ?? '')
      if (!stale || !IDEMPOTENT.has(method)) throw e
      return this.once(method, url, headers, body, timeoutMs, false)
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
    const pool = pooled && IDEMPOTENT.has(method)
    const agent = pool ? (secure ? this.https : this.http) : false
    const send = secure ? httpsRequest : httpRequest
    return new Promise((resolve, reject) => {
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
      req.on('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(deadline)
        reject(Object.assign(e, { reusedSocket: req.reusedSocket }))
      })
      req.on('response', (res: IncomingMessage) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('error', (e) => {
          clearTimeout(deadline)
          reject(e)
        })
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

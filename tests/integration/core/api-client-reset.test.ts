// The keep-alive race, made certain: a server that closes an idle keep-alive connection at the
// moment the next request arrives on it (what a server whose idle timer fires just then does), so
// every reused socket meets it, not by timing luck. 200 calls of every method get 0 errors; the
// idempotent ones that met a closed socket were sent again; no POST reached the server twice; a
// POST that fails after its bytes were written is reported, not resent; a POST whose connection
// failed before any byte of it was written is sent once more. All on real sockets on 127.0.0.1.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ApiClient } from '../../../src/main/core/api-client'
import { HttpTransport, IDLE_SOCKET_MS } from '../../../src/main/core/http-transport'
import { waitUntil } from '../../helpers/wait-until'
import { failure } from '../../helpers/failure'

const KEY = 'key-for-test-0000-1111'
const STREAM = { id: 'x', name: 'x', streamKey: 'k', playbackId: 'p', profiles: [] }

/** What the server does with one request. */
type Mode =
  | 'answer'
  // Destroy the socket as the request arrives, unread: an idle timer that fired just then.
  | 'kill'
  // Read the whole request, then destroy the socket: it was written and read, no answer came.
  | 'kill-after-body'
  | { killAfterMs: number }
  | { answerAfterMs: number }
  | 'hang'

interface Arrival {
  /** "GET /api/stream/x" */
  path: string
  /** It came on a keep-alive socket that had already carried a request. */
  reused: boolean
  /** How many requests for this path arrived so far, this one included. */
  n: number
}
const idleRace = (a: Arrival): Mode => (a.reused ? 'kill' : 'answer')

let server: Server
let base = ''
/** How many requests each socket has carried. */
const carried = new WeakMap<Socket, number>()
let decide: (a: Arrival) => Mode = idleRace
let counts = freshCounts()

function freshCounts() {
  return {
    /** Requests read to the end: the ones the server could have acted on. */
    handled: 0,
    /** Sockets the server destroyed under a request. */
    killed: 0,
    postsOnReused: 0,
    arrivals: new Map<string, number>(),
    posts: new Map<string, number>()
  }
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const socket = req.socket
  const reused = (carried.get(socket) ?? 0) > 0
  carried.set(socket, (carried.get(socket) ?? 0) + 1)
  const path = `${req.method} ${req.url}`
  const n = (counts.arrivals.get(path) ?? 0) + 1
  counts.arrivals.set(path, n)
  if (reused && req.method === 'POST') counts.postsOnReused++
  const mode = decide({ path, reused, n })
  const kill = (): void => {
    counts.killed++
    socket.destroy()
  }
  if (mode === 'kill') return kill()
  let body = ''
  req.on('data', (c: Buffer) => (body += c.toString()))
  req.on('end', () => {
    counts.handled++
    if (req.method === 'POST') {
      const name = (JSON.parse(body) as { name: string }).name
      counts.posts.set(name, (counts.posts.get(name) ?? 0) + 1)
    }
    const answer = (): void => {
      if (req.method === 'PATCH' || req.method === 'DELETE') {
        res.writeHead(204).end()
        return
      }
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(STREAM))
    }
    if (mode === 'kill-after-body') kill()
    else if (mode === 'answer') answer()
    else if (mode === 'hang') return
    else if ('killAfterMs' in mode) setTimeout(kill, mode.killAfterMs)
    else setTimeout(answer, mode.answerAfterMs)
  })
}

let transport: HttpTransport
let client: ApiClient

beforeAll(async () => {
  server = createServer(handle)
  // The server never closes idle sockets on its own here: only the race this suite stages, or the
  // client's own pool timeout, may close them.
  server.keepAliveTimeout = 60_000
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((r) => server.close(r))
})
beforeEach(() => {
  counts = freshCounts()
  decide = idleRace
  transport = new HttpTransport()
  client = new ApiClient({ baseUrl: base, apiKey: KEY, transport })
})
afterEach(() => transport.close())

describe('API client and the keep-alive race', () => {
  it('200 mixed calls: 0 errors, the idempotent ones resent, no POST twice', async () => {
    let errors = 0
    let posts = 0
    let requests = 0
    for (let i = 0; i < 200; i++) {
      try {
        switch (i % 4) {
          case 0:
            requests++
            await client.getStream('x')
            break
          case 1:
            requests += 2
            await client.updateStream('x', { name: `n${i}` }) // PATCH, then GET
            break
          case 2:
            requests++
            await client.deleteStream('x')
            break
          default:
            requests++
            posts++
            await client.createStream({ name: `post-${i}`, profiles: [], record: false })
        }
      } catch {
        errors++
      }
    }
    expect(errors).toBe(0)
    // The race really happened: pooled sockets were reused and killed, each killed request was
    // sent exactly once more, and so every request was handled exactly once.
    expect(counts.killed).toBeGreaterThan(50)
    expect(transport.resent).toBe(counts.killed)
    expect(counts.handled).toBe(requests)
    // No POST ever rode a reused socket, and each reached the server exactly once.
    expect(counts.postsOnReused).toBe(0)
    expect(counts.posts.size).toBe(posts)
    expect([...counts.posts.values()].every((n) => n === 1)).toBe(true)
  })

  it('a POST that fails after its bytes were written is reported, not sent again', async () => {
    decide = (a) => (a.path === 'POST /api/stream' ? 'kill-after-body' : 'answer')
    const e = await failure(client.createStream({ name: 'once-only', profiles: [], record: false }))
    expect(e).toMatchObject({ code: 'network', message: expect.stringContaining('was reset') })
    expect(JSON.stringify(e)).not.toContain(KEY)
    expect(counts.posts.get('once-only')).toBe(1)
    expect(counts.arrivals.get('POST /api/stream')).toBe(1)
    expect(transport.resent).toBe(0)
  })

  it('a POST whose connection failed before any of it was written is sent again', async () => {
    // A TLS endpoint that resets every connection during the handshake: the request's bytes are
    // never written (ClientRequest holds them until the handshake is done), so resending is safe.
    let connections = 0
    const firstBytes: number[] = []
    const tls = createTcpServer((s) => {
      connections++
      s.once('data', (d: Buffer) => {
        firstBytes.push(d[0]!)
        s.resetAndDestroy()
      })
    })
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r))
    try {
      const port = (tls.address() as AddressInfo).port
      const c = new ApiClient({ baseUrl: `https://127.0.0.1:${port}/api`, apiKey: KEY, transport })
      const e = await failure(c.createStream({ name: 'never-sent', profiles: [], record: false }))
      expect(e).toMatchObject({
        code: 'network',
        message: `Could not reach 127.0.0.1:${port}: the connection was reset.`
      })
      expect(JSON.stringify(e)).not.toContain(KEY)
      // Sent twice, and neither attempt got further than the handshake (0x16: a TLS handshake
      // record, not HTTP).
      expect(connections).toBe(2)
      expect(transport.resent).toBe(1)
      expect(firstBytes).toEqual([0x16, 0x16])
    } finally {
      await new Promise((r) => tls.close(r))
    }
  })

  it('an idempotent request reset after it was written is sent once more, once', async () => {
    // The first PATCH is read, then its fresh socket destroyed (not the idle race): resent once.
    decide = (a) => (a.path.startsWith('PATCH') && a.n === 1 ? 'kill-after-body' : 'answer')
    await client.setRecord('x', true)
    expect(counts.arrivals.get('PATCH /api/stream/x/record')).toBe(2)
    expect(transport.resent).toBe(1)
    // Every DELETE is killed: the client gives up after the second and reports the reset.
    decide = (a) => (a.path.startsWith('DELETE') ? 'kill-after-body' : 'answer')
    const e = await failure(client.deleteStream('x'))
    expect(e).toMatchObject({ code: 'network', message: expect.stringContaining('was reset') })
    expect(counts.arrivals.get('DELETE /api/stream/x')).toBe(2)
    expect(transport.resent).toBe(2)
  })

  it('a resent request stays within the call timeout (one deadline, not two)', async () => {
    const timeoutMs = 1500
    const late = 1000
    const c = new ApiClient({ baseUrl: base, apiKey: KEY, transport, timeoutMs })
    await c.getStream('x') // leaves a pooled socket to reuse
    // The reused socket is read, then killed late; the resent GET is never answered.
    decide = (a) => (a.reused ? { killAfterMs: late } : 'hang')
    const started = Date.now()
    const e = await failure(c.getStream('x'))
    const took = Date.now() - started
    expect(e.code).toBe('timeout')
    expect(transport.resent).toBe(1)
    expect(counts.arrivals.get('GET /api/stream/x')).toBe(3)
    // One deadline: ~1500 ms. A fresh deadline per attempt would be ~2500 ms.
    expect(took).toBeGreaterThanOrEqual(timeoutMs - 50)
    expect(took).toBeLessThan(timeoutMs + late - 300)
  })

  it('the pool closes idle sockets before a server would, and keeps slow answers', async () => {
    decide = (a) => (a.path === 'GET /api/session/slow' ? { answerAfterMs: 2600 } : 'answer')
    const connection = new Promise<Socket>((r) => server.once('connection', r))
    // An answer slower than the pool's idle timeout still arrives on a pooled socket.
    expect(IDLE_SOCKET_MS).toBeLessThan(2600)
    await client.getSession('slow')
    expect(counts.killed).toBe(0)
    // The server here never closes idle sockets, so only the client can: it must, well before
    // node's default 5 s server keepAliveTimeout.
    const socket = await connection
    let closed = socket.destroyed
    socket.once('close', () => (closed = true))
    const idleFrom = Date.now()
    await waitUntil(() => closed, 'the client to close its idle socket', 4500, 20)
    expect(Date.now() - idleFrom).toBeLessThan(4500)
    expect(IDLE_SOCKET_MS).toBeLessThan(5000)
  })
})

// The keep-alive race, made certain: a server that closes an idle keep-alive connection at the moment
// the next request arrives on it (what a server whose idle timer fires just then does). 200 calls of
// every method get 0 errors; the idempotent ones that met a closed socket were sent again; no POST
// reached the server twice; and a POST that fails after its bytes were written is reported, not resent.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiClient } from '../../../src/main/core/api-client'
import { HttpTransport } from '../../../src/main/core/http-transport'
import { AppFailure } from '../../../src/shared/result'

let server: Server
let base = ''
const served = new WeakMap<Socket, number>()
const counts = { requests: 0, posts: new Map<string, number>(), killed: 0 }
let killPostsAfterBody = false

function handle(req: IncomingMessage, res: ServerResponse): void {
  const socket = req.socket
  const before = served.get(socket) ?? 0
  served.set(socket, before + 1)
  // A socket that already served a request and is now idle-then-reused: the server's idle timer
  // "fired" just as this request arrived, so the socket dies with no answer.
  if (before > 0) {
    counts.killed++
    socket.destroy()
    return
  }
  let body = ''
  req.on('data', (c: Buffer) => (body += c.toString()))
  req.on('end', () => {
    counts.requests++
    if (req.method === 'POST') {
      const name = (JSON.parse(body) as { name: string }).name
      counts.posts.set(name, (counts.posts.get(name) ?? 0) + 1)
      if (killPostsAfterBody) {
        socket.destroy()
        return
      }
      res.writeHead(201, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ id: name, name, streamKey: 'k', playbackId: 'p', profiles: [] }))
      return
    }
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ id: 'x', name: 'x', streamKey: 'k', playbackId: 'p', profiles: [] }))
      return
    }
    res.writeHead(204)
    res.end()
  })
}

beforeAll(async () => {
  server = createServer(handle)
  server.keepAliveTimeout = 60_000
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((r) => server.close(r))
})

describe('API client and the keep-alive race', () => {
  it('200 calls of every method: 0 errors, idempotent ones resent on a fresh socket, no POST twice', async () => {
    const transport = new HttpTransport()
    const client = new ApiClient({ baseUrl: base, apiKey: 'key-for-test', transport })
    let errors = 0
    let posts = 0
    for (let i = 0; i < 200; i++) {
      try {
        switch (i % 4) {
          case 0:
            await client.getStream('x')
            break
          case 1:
            await client.updateStream('x', { name: `n${i}` }) // PATCH, then GET
            break
          case 2:
            await client.deleteStream('x')
            break
          default:
            posts++
            await client.createStream({ name: `post-${i}`, profiles: [], record: false })
        }
      } catch {
        errors++
      }
    }
    transport.close()
    expect(errors).toBe(0)
    // The race really happened: pooled sockets were reused and killed, and recovered from.
    expect(counts.killed).toBeGreaterThan(50)
    expect(counts.posts.size).toBe(posts)
    expect([...counts.posts.values()].every((n) => n === 1)).toBe(true)
  })

  it('a POST that fails after its bytes were written is reported, not sent again', async () => {
    const transport = new HttpTransport()
    const client = new ApiClient({ baseUrl: base, apiKey: 'key-for-test', transport })
    killPostsAfterBody = true
    try {
      const err = await client
        .createStream({ name: 'once-only', profiles: [], record: false })
        .then(
          () => undefined,
          (e: unknown) => e
        )
      expect(err).toBeInstanceOf(AppFailure)
      expect((err as AppFailure).error.code).toBe('network')
      expect((err as AppFailure).error.message).not.toContain('key-for-test')
      expect(counts.posts.get('once-only')).toBe(1)
    } finally {
      killPostsAfterBody = false
      transport.close()
    }
  })
})

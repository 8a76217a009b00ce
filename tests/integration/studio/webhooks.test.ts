// Webhooks of the local studio, against a real HTTP receiver on 127.0.0.1, a real studio and a real
// ffmpeg pushing RTMP: the /webhook API with Livepeer's shapes and errors, per user (B never sees or
// receives A's); a push delivers stream.started, then stream.idle, then recording.ready; multistream
// targets give multistream.connected, .error and .disconnected; every request is signed as Livepeer
// signs it (HMAC-SHA256 of the raw body, the body's timestamp in t=); a receiver answering 500 is
// retried until it answers 200, and one that is down or never answers costs the studio nothing.
import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApiKey } from '../../../src/studio/index'
import {
  api,
  pushTestPattern,
  startTestStudio,
  studioCalls,
  waitFor,
  type StudioStream,
  type TestStudio
} from '../../helpers/studio'

interface Hit {
  path: string
  headers: IncomingMessage['headers']
  raw: string
  body: {
    id: string
    webhookId: string
    createdAt: number
    timestamp: number
    event: string
    stream?: StudioStream & { streamKey?: string }
    payload?: Record<string, unknown>
  }
  status: number
}

interface Webhook {
  id: string
  name: string
  url: string
  events: string[]
  kind: string
  userId: string
  streamId?: string
  sharedSecret?: string
  status?: {
    lastTriggeredAt?: number
    lastFailure?: { timestamp: number; statusCode?: number; error?: string }
  }
}

interface LogEntry {
  id: string
  webhookId: string
  event: string
  success: boolean
  duration: number
  request: { url: string; method: string; headers: Record<string, string>; body: string }
  response: { body: string; status?: number }
}

/** A receiver: records every request; `/flaky` answers 500 to its first request, `/slow` never answers. */
class Receiver {
  readonly hits: Hit[] = []
  private server!: Server
  private flakyCalls = 0
  private readonly held: ServerResponse[] = []

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const path = req.url ?? '/'
        if (path === '/slow') {
          this.held.push(res)
          return
        }
        let status = 204
        if (path === '/flaky') status = this.flakyCalls++ === 0 ? 500 : 200
        const raw = Buffer.concat(chunks).toString('utf8')
        this.hits.push({ path, headers: req.headers, raw, body: JSON.parse(raw), status })
        res.writeHead(status, { 'content-type': 'text/plain' })
        res.end(status === 500 ? 'receiver is down for a moment' : 'ok')
      })
    })
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r))
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`
  }

  at(path: string, event?: string, streamId?: string): Hit[] {
    return this.hits.filter(
      (h) =>
        h.path === path &&
        (!event || h.body.event === event) &&
        (!streamId || h.body.stream?.id === streamId)
    )
  }

  async stop(): Promise<void> {
    for (const r of this.held) r.destroy()
    this.server.closeAllConnections()
    await new Promise((r) => this.server.close(r))
  }
}

/** Verifies Livepeer-Signature as Livepeer's docs say: v1 = hex HMAC-SHA256(secret, raw body). */
function signatureOk(hit: Hit, secret: string): boolean {
  const header = String(hit.headers['livepeer-signature'] ?? '')
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=') as [string, string]))
  if (!parts.t || !parts.v1) return false
  // The body carries the same timestamp (that is what protects against a replay).
  if (Number(parts.t) !== hit.body.timestamp) return false
  const want = createHmac('sha256', secret).update(hit.raw).digest()
  const got = Buffer.from(parts.v1, 'hex')
  return got.length === want.length && timingSafeEqual(got, want)
}

/** A port nothing listens on (just bound and released). */
async function closedPort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  const { port } = s.address() as AddressInfo
  await new Promise((r) => s.close(r))
  return port
}

const ALL = [
  'stream.started',
  'stream.idle',
  'recording.ready',
  'multistream.connected',
  'multistream.error',
  'multistream.disconnected'
]

let studio: TestStudio
let keyB: string
const rx = new Receiver()

const as = <T>(key: string, method: string, path: string, body?: unknown) =>
  api<T>(studio, key, method, path, body)

async function create(key: string, body: Record<string, unknown>): Promise<Webhook> {
  const res = await as<Webhook>(key, 'POST', '/webhook', body)
  if (res.status !== 201) throw new Error(`POST /webhook: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

beforeAll(async () => {
  await rx.start()
  // A short timeout, so the receiver that never answers fails its attempts within the test.
  studio = await startTestStudio({ webhooks: { timeoutMs: 2000 } })
  keyB = await createApiKey(studio.dataDir, 'bob')
})
afterAll(async () => {
  await studio?.cleanup()
  await rx.stop()
})

describe('the /webhook API', () => {
  it('creates, lists, gets, replaces and deletes per user; the secret is write-only', async () => {
    const a = await create(studio.apiKey, {
      name: 'mine',
      url: rx.url('/api-only'),
      events: ['stream.started'],
      sharedSecret: 'a-secret'
    })
    expect(a).toMatchObject({ name: 'mine', kind: 'webhook', events: ['stream.started'] })
    expect(a.url).toBe(rx.url('/api-only'))
    expect(JSON.stringify(a)).not.toContain('a-secret')
    expect((await as<Webhook>(studio.apiKey, 'GET', `/webhook/${a.id}`)).body).toEqual(a)

    const put = await as<Webhook>(studio.apiKey, 'PUT', `/webhook/${a.id}`, {
      name: 'renamed',
      url: rx.url('/api-only'),
      events: ['stream.idle']
    })
    expect(put.status).toBe(200)
    expect(put.body).toMatchObject({ id: a.id, name: 'renamed', events: ['stream.idle'] })
    const list = await as<Webhook[]>(studio.apiKey, 'GET', '/webhook?count=1')
    expect(list.body.map((w) => w.id)).toContain(a.id)
    expect(list.headers.get('x-total-count')).toBe(String(list.body.length))

    // User B: A's webhook does not exist for B, in any route; B's list has only B's.
    const b = await create(keyB, { name: 'bob', url: rx.url('/api-only'), events: ['stream.idle'] })
    for (const [method, path, body] of [
      ['GET', `/webhook/${a.id}`],
      ['PUT', `/webhook/${a.id}`, { name: 'x', url: rx.url('/x'), events: [] }],
      ['DELETE', `/webhook/${a.id}`],
      ['GET', `/webhook/${a.id}/log`]
    ] as const) {
      const res = await as<{ errors: string[] }>(keyB, method, path, body)
      expect([method, path, res.status]).toEqual([method, path, 404])
      expect(res.body.errors.length).toBeGreaterThan(0)
    }
    expect((await as<Webhook[]>(keyB, 'GET', '/webhook')).body.map((w) => w.id)).toEqual([b.id])
    expect((await as<Webhook>(studio.apiKey, 'GET', `/webhook/${a.id}`)).body.name).toBe('renamed')

    expect((await as(studio.apiKey, 'DELETE', `/webhook/${a.id}`)).status).toBe(204)
    expect((await as(studio.apiKey, 'GET', `/webhook/${a.id}`)).status).toBe(404)
    expect((await as(keyB, 'DELETE', `/webhook/${b.id}`)).status).toBe(204)
  })

  it('answers bad input with 4xx in Livepeer\'s {"errors": [...]} shape, never 5xx', async () => {
    const bStream = await studioCalls({ apiUrl: studio.apiUrl, apiKey: keyB }).createStream({
      name: "B's stream"
    })
    const ok = { name: 'n', url: rx.url('/bad'), events: ['stream.started'] }
    const cases: Array<[string, unknown, number, string]> = [
      ['no url', { name: 'n', events: ['stream.idle'] }, 422, '"missingProperty":"url"'],
      ['no name', { url: rx.url('/x'), events: [] }, 422, '"missingProperty":"name"'],
      ['ftp url', { ...ok, url: 'ftp://example.com/hook' }, 422, '"keyword":"pattern"'],
      ['not a url', { ...ok, url: 'http://exa mple.com' }, 422, '"keyword":"format"'],
      ['unknown event', { ...ok, events: ['stream.exploded'] }, 422, '"keyword":"enum"'],
      ['events not a list', { ...ok, events: 'stream.idle' }, 422, '"keyword":"type"'],
      ['no events', { name: 'n', url: rx.url('/x') }, 422, 'must provide "events"'],
      ['unknown field', { ...ok, colour: 'red' }, 422, '"keyword":"additionalProperties"'],
      ["another user's stream", { ...ok, streamId: bStream.id }, 404, 'stream not found'],
      ['malformed JSON', '{"name": ', 400, 'malformed JSON']
    ]
    for (const [what, body, status, text] of cases) {
      const res = await as<{ errors: string[] }>(studio.apiKey, 'POST', '/webhook', body)
      expect([what, res.status]).toEqual([what, status])
      expect(res.body.errors.length).toBeGreaterThan(0)
      expect(res.body.errors.every((e) => typeof e === 'string')).toBe(true)
      expect(res.body.errors.join('\n')).toContain(text)
    }
    const put = await as<{ errors: string[] }>(studio.apiKey, 'PUT', '/webhook/nope', ok)
    expect([put.status, put.body.errors]).toEqual([404, ['not found']])
    expect((await as(studio.apiKey, 'GET', '/webhook/nope/log/nope')).status).toBe(404)
    // Nothing was made by a refused request.
    expect((await as<Webhook[]>(studio.apiKey, 'GET', '/webhook')).body).toEqual([])
  })
})

describe('delivery', () => {
  it('sends a push as stream.started, stream.idle and recording.ready, signed, to its owner only', async () => {
    const calls = studioCalls(studio)
    const stream = await calls.createStream({ name: 'hooked', record: true })
    // A second stream of A's, the good target's destination (its own ingest, another key).
    const relay = await calls.createStream({ name: 'relay' })
    const good = await as<{ id: string }>(studio.apiKey, 'POST', '/multistream/target', {
      name: 'relay target',
      url: `${studio.rtmpUrl}/${relay.streamKey}`
    })
    const refused = await as<{ id: string }>(studio.apiKey, 'POST', '/multistream/target', {
      name: 'wrong key',
      url: `${studio.rtmpUrl}/0000-0000-0000-0000`
    })
    await as(studio.apiKey, 'PATCH', `/stream/${stream.id}`, {
      multistream: {
        targets: [
          { id: good.body.id, profile: 'source' },
          { id: refused.body.id, profile: 'source' }
        ]
      }
    })

    const hookA = await create(studio.apiKey, {
      name: 'A all',
      url: rx.url('/a'),
      events: ALL,
      sharedSecret: 'secret-of-a'
    })
    // Only the relay stream's events: nothing of `stream` reaches it.
    const onlyRelay = await create(studio.apiKey, {
      name: 'A relay only',
      url: rx.url('/relay-only'),
      events: ['stream.started'],
      streamId: relay.id
    })
    const flaky = await create(studio.apiKey, {
      name: 'flaky',
      url: rx.url('/flaky'),
      events: ['stream.started'],
      sharedSecret: 'flaky-secret'
    })
    const slow = await create(studio.apiKey, {
      name: 'never answers',
      url: rx.url('/slow'),
      events: ['stream.started']
    })
    const down = await create(studio.apiKey, {
      name: 'down',
      url: `http://127.0.0.1:${await closedPort()}/hook`,
      events: ['stream.started']
    })
    // B subscribes to everything, and must hear nothing of A's.
    await create(keyB, { name: 'B all', url: rx.url('/b'), events: ALL, sharedSecret: 'b' })

    const push = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, {
      seconds: 16,
      width: 640,
      height: 360
    })
    try {
      const started = await waitFor(
        async () => rx.at('/a', 'stream.started', stream.id)[0],
        20_000,
        'stream.started'
      )
      expect(started.body).toMatchObject({ webhookId: hookA.id, event: 'stream.started' })
      expect(started.body.stream).toMatchObject({ id: stream.id, isActive: true })
      expect(started.body.stream!.streamKey).toBeUndefined()
      expect(started.raw).not.toContain(stream.streamKey)
      expect(started.body.timestamp).toBeGreaterThanOrEqual(started.body.createdAt)

      // The targets: the good one connects, the refused one errs; disabling the good one while
      // live disconnects it.
      const connected = await waitFor(
        async () => rx.at('/a', 'multistream.connected', stream.id)[0],
        30_000,
        'multistream.connected'
      )
      expect(connected.body.payload).toEqual({
        target: { id: good.body.id, name: 'relay target', profile: 'source' }
      })
      const error = await waitFor(
        async () => rx.at('/a', 'multistream.error', stream.id)[0],
        30_000,
        'multistream.error'
      )
      expect(error.body.payload).toEqual({
        target: { id: refused.body.id, name: 'wrong key', profile: 'source' }
      })
      await as(studio.apiKey, 'PATCH', `/multistream/target/${good.body.id}`, { disabled: true })
      const gone = await waitFor(
        async () => rx.at('/a', 'multistream.disconnected', stream.id)[0],
        10_000,
        'multistream.disconnected'
      )
      expect(gone.body.payload).toMatchObject({ target: { id: good.body.id } })
      // The studio answered all along, whatever the receivers did.
      expect((await as(studio.apiKey, 'GET', `/stream/${stream.id}`)).status).toBe(200)
    } finally {
      await push.done
    }

    const session = await studioCalls(studio).finished(stream.id, 60_000)
    expect(session.recordingStatus).toBe('ready')
    const ready = await waitFor(
      async () => rx.at('/a', 'recording.ready', stream.id)[0],
      20_000,
      'recording.ready'
    )
    expect(ready.body.payload).toMatchObject({
      recordingUrl: session.recordingUrl,
      mp4Url: session.mp4Url,
      session: { id: session.id, parentId: stream.id, recordingStatus: 'ready' }
    })
    const idle = await waitFor(
      async () => rx.at('/a', 'stream.idle', stream.id)[0],
      20_000,
      'stream.idle'
    )
    expect(idle.body.stream).toMatchObject({ id: stream.id, isActive: false })

    // In order, once each, for this stream (the relay stream has events of its own).
    const events = rx.at('/a', undefined, stream.id).map((h) => h.body.event)
    expect(events.filter((e) => e.startsWith('stream.'))).toEqual(['stream.started', 'stream.idle'])
    expect(events.filter((e) => e === 'recording.ready')).toHaveLength(1)
    expect(events.indexOf('recording.ready')).toBeGreaterThan(events.indexOf('stream.started'))

    // Signed as Livepeer signs: the right secret verifies every request, a wrong one none.
    for (const h of rx.at('/a')) {
      expect(signatureOk(h, 'secret-of-a')).toBe(true)
      expect(signatureOk(h, 'secret-of-b')).toBe(false)
    }
    expect(rx.at('/a', 'stream.started', stream.id)[0]!.headers['content-type']).toBe(
      'application/json'
    )

    // streamId: the relay-only webhook heard the relay stream start, never `stream`.
    const relayOnly = rx.at('/relay-only')
    expect(relayOnly.length).toBeGreaterThan(0)
    expect(relayOnly.every((h) => h.body.stream?.id === relay.id)).toBe(true)
    expect(relayOnly[0]!.body.webhookId).toBe(onlyRelay.id)

    // User B heard nothing of A's.
    expect(rx.at('/b')).toEqual([])

    // The flaky receiver: 500, then the same event again (same id, new timestamp) answered 200.
    const tries = await waitFor(
      async () => {
        const t = rx.at('/flaky', 'stream.started', stream.id)
        return t.length >= 2 && t
      },
      20_000,
      'the retry after a 500'
    )
    expect(tries.map((t) => t.status).slice(0, 2)).toEqual([500, 200])
    expect(tries[1]!.body.id).toBe(tries[0]!.body.id)
    expect(tries[1]!.body.timestamp).toBeGreaterThan(tries[0]!.body.timestamp)
    expect(tries.every((t) => signatureOk(t, 'flaky-secret'))).toBe(true)
    // Delivered: no third try.
    expect(rx.at('/flaky', 'stream.started', stream.id)).toHaveLength(2)
    const flakyNow = (await as<Webhook>(studio.apiKey, 'GET', `/webhook/${flaky.id}`)).body
    expect(flakyNow.status?.lastFailure?.statusCode).toBe(500)
    expect(flakyNow.status?.lastTriggeredAt).toBeGreaterThan(flakyNow.status!.lastFailure!.timestamp)
    const flakyLog = (await as<LogEntry[]>(studio.apiKey, 'GET', `/webhook/${flaky.id}/log`)).body
    const mine = flakyLog.filter((l) => JSON.parse(l.request.body).stream?.id === stream.id)
    expect(mine.map((l) => [l.success, l.response.status])).toEqual([
      [true, 200],
      [false, 500]
    ])
    expect(Buffer.from(mine[1]!.response.body, 'base64').toString()).toBe(
      'receiver is down for a moment'
    )
    expect(mine[0]!.request.headers['Livepeer-Signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/)
    // One entry, and resending it.
    const one = await as<LogEntry>(studio.apiKey, 'GET', `/webhook/${flaky.id}/log/${mine[0]!.id}`)
    expect(one.body).toEqual(mine[0])
    const resent = await as<LogEntry>(
      studio.apiKey,
      'POST',
      `/webhook/${flaky.id}/log/${mine[0]!.id}/resend`
    )
    expect([resent.status, resent.body.success]).toEqual([200, true])
    expect(rx.at('/flaky', 'stream.started', stream.id)).toHaveLength(3)
    expect(rx.at('/flaky', 'stream.started', stream.id)[2]!.body.id).toBe(tries[0]!.body.id)
    // B cannot read A's log entries.
    expect((await as(keyB, 'GET', `/webhook/${flaky.id}/log/${mine[0]!.id}`)).status).toBe(404)

    // The receiver that never answers and the one that is down: failures on record, retried.
    const slowNow = await waitFor(
      async () => {
        const w = (await as<Webhook>(studio.apiKey, 'GET', `/webhook/${slow.id}`)).body
        return w.status?.lastFailure && w
      },
      10_000,
      'the slow receiver to time out'
    )
    expect(slowNow.status!.lastFailure!.error).toBe('no answer within 2 s')
    expect(slowNow.status!.lastFailure!.statusCode).toBeUndefined()
    const downNow = (await as<Webhook>(studio.apiKey, 'GET', `/webhook/${down.id}`)).body
    expect(downNow.status!.lastFailure!.error).toMatch(/ECONNREFUSED/)
    const downLog = (await as<LogEntry[]>(studio.apiKey, 'GET', `/webhook/${down.id}/log`)).body
    expect(downLog.length).toBeGreaterThanOrEqual(2)
    expect(downLog.every((l) => !l.success && l.response.status === undefined)).toBe(true)
    expect(studio.logLines().some((l) => /webhooks: stream\.started to webhook .* retrying/.test(l)))
      .toBe(true)
  })
})

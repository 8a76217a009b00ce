// Why the viewer count is unknown (core/viewers.ts), against a real HTTP service answering as
// Livepeer's /data/views/now can: no count (404), a key that may not read counts (403: Livepeer gives
// them to private keys only), a failure. Main says which, as a state; the live bar words it
// (features/viewers/viewers-text.ts: tests/unit/renderer/viewers-text.test.ts).
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiClient } from '../../../src/main/core/api-client'
import { viewerCalls } from '../../../src/main/core/viewers'

let server: Server
let base = ''

beforeAll(async () => {
  server = createServer((req, res) => {
    const json = (status: number, v: unknown): void =>
      void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(v))
    const id = new URL(req.url ?? '/', 'http://x').searchParams.get('playbackId')
    if (id === 'counted') return json(200, [{ viewCount: 3 }])
    if (id === 'public-key') return json(403, { errors: ['access forbidden'] })
    if (id === 'broken') return json(500, { errors: ['internal error'] })
    json(404, { errors: ['not found'] })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))

const calls = () =>
  viewerCalls({
    client: async () => new ApiClient({ baseUrl: base, apiKey: 'k' }),
    run: () => null
  })

describe('an unknown viewer count', () => {
  it('says why as a state, not as a sentence', async () => {
    const v = calls()
    expect(await v.viewersNow('s', 'counted')).toEqual({ now: 3, peak: null })
    expect(await v.viewersNow('s', 'not-counted')).toEqual({
      now: null,
      peak: null,
      unavailable: { kind: 'not-counted' }
    })
    expect(await v.viewersNow('s', 'public-key')).toEqual({
      now: null,
      peak: null,
      unavailable: { kind: 'key-refused' }
    })
    const broken = await v.viewersNow('s', 'broken')
    expect(broken.now).toBeNull()
    // A failure keeps its own error's sentence (an AppError's message: the cause).
    expect(broken.unavailable).toMatchObject({
      kind: 'failed',
      message: expect.stringMatching(/\S/)
    })
  })
})

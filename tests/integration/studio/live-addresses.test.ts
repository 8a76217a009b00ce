// Live HLS addresses (#32): a player that opens a stream the moment it goes live gets the master once
// it is written (not a 404, which hls.js never retries); each run's media has addresses of its own, so
// a cache can never serve an earlier session's segments; live playlists are never cached.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  api,
  pushTestPattern,
  startTestStudio,
  studioCalls,
  waitFor,
  type Pusher,
  type TestStudio
} from '../../helpers/studio'

let studio: TestStudio
let calls: ReturnType<typeof studioCalls>
const pushes: Pusher[] = []
const base = (): string => studio.apiUrl.replace(/\/api$/, '')

beforeAll(async () => {
  studio = await startTestStudio()
  calls = studioCalls(studio)
}, 60_000)
afterAll(async () => {
  await Promise.all(pushes.map((p) => p.kill()))
  await studio?.cleanup()
})

const uris = (playlist: string): string[] =>
  playlist.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'))

describe('live HLS addresses', () => {
  it('a master asked for as the stream goes live waits for its first playlist; each run has its own addresses', async () => {
    const stream = await calls.createStream({ name: 'addresses' })
    const master = `${base()}/hls/${stream.playbackId}/index.m3u8`
    const first = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, {
      seconds: 8,
      width: 320,
      height: 240
    })
    pushes.push(first)
    // The moment the stream is active, no segment exists yet: the request waits for the master.
    await waitFor(
      async () =>
        (await api<{ isActive: boolean }>(studio, studio.apiKey, 'GET', `/stream/${stream.id}`))
          .body.isActive,
      20_000,
      'the stream to be active'
    )
    const early = await fetch(`${master}?onair=monitor`)
    expect(early.status).toBe(200)
    expect(early.headers.get('cache-control')).toBe('no-store')
    const one = uris(await early.text())
    expect(one).toHaveLength(1)
    const [token1, rendition, file] = one[0]!.split('/')
    expect(token1).toMatch(/^[0-9a-f]{10}$/)
    expect([rendition, file]).toEqual(['source', 'index.m3u8'])
    const media = await fetch(new URL(one[0]!, master))
    expect(media.status).toBe(200)
    expect(media.headers.get('cache-control')).toBe('no-store')
    const segment = new URL(uris(await media.text())[0]!, new URL(one[0]!, master)).href
    const seg = await fetch(segment)
    expect(seg.status).toBe(200)
    expect(seg.headers.get('cache-control')).toContain('max-age')
    await seg.arrayBuffer()
    expect(await first.done).toBe(0)
    await calls.finished(stream.id, 60_000)

    // The next session of the same stream: other addresses, and the old ones are gone.
    const second = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, {
      seconds: 30,
      width: 320,
      height: 240
    })
    pushes.push(second)
    const two = uris(
      await waitFor(
        async () => {
          const r = await fetch(`${master}?onair=monitor`)
          return r.status === 200 ? r.text() : undefined
        },
        20_000,
        'the second session master'
      )
    )
    const token2 = two[0]!.split('/')[0]
    expect(token2).toMatch(/^[0-9a-f]{10}$/)
    expect(token2).not.toBe(token1)
    expect((await fetch(segment)).status).toBe(404)
    // No token, or a made-up one: nothing.
    expect((await fetch(`${base()}/hls/${stream.playbackId}/source/index.m3u8`)).status).toBe(404)
    expect(
      (await fetch(`${base()}/hls/${stream.playbackId}/0123456789/source/index.m3u8`)).status
    ).toBe(404)
    await second.kill()
  })

  it('a master of a stream that is not live is a 404 at once', async () => {
    const stream = await calls.createStream({ name: 'idle' })
    const t0 = Date.now()
    const r = await fetch(`${base()}/hls/${stream.playbackId}/index.m3u8`)
    expect(r.status).toBe(404)
    expect(Date.now() - t0).toBeLessThan(2000)
  })
})

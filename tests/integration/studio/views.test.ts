// Viewers now (#20): GET /data/views/now counts player sessions of a live stream, as Livepeer's
// realtime viewership does. Two players count two; Onair's own monitor counts none; another user sees
// none of it; bad input is a 4xx in Livepeer's shape. Real RTMP push, real live HLS over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApiKey } from '../../../src/studio/index'
import {
  api,
  pushTestPattern,
  startTestStudio,
  waitFor,
  type TestStudio
} from '../../helpers/studio'

let studio: TestStudio
let otherKey: string
let stream: { id: string; playbackId: string; streamKey: string }
let push: ReturnType<typeof pushTestPattern>
const base = (): string => studio.apiUrl.replace(/\/api$/, '')
const master = (): string => `${base()}/hls/${stream.playbackId}/index.m3u8`

interface Metric {
  playbackId?: string
  browser?: string
  device?: string
  viewCount: number
  errorRate: number
}

/** A player: fetches the master, then one of its media playlists (as hls.js does), with its UA. */
async function player(userAgent: string, url = master()): Promise<string[]> {
  const m = await (await fetch(url, { headers: { 'user-agent': userAgent } })).text()
  const uris = m.split('\n').filter((l) => l !== '' && !l.startsWith('#'))
  const media = await fetch(new URL(uris[0]!, url), { headers: { 'user-agent': userAgent } })
  expect(media.status).toBe(200)
  return uris
}

const now = (key: string, query = ''): Promise<{ status: number; body: Metric[] }> =>
  api<Metric[]>(studio, key, 'GET', `/data/views/now${query}`)

beforeAll(async () => {
  studio = await startTestStudio()
  otherKey = await createApiKey(studio.dataDir, 'neighbour')
  stream = (await api<typeof stream>(studio, studio.apiKey, 'POST', '/stream', { name: 'watched' }))
    .body
  push = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, {
    seconds: 60,
    width: 320,
    height: 240
  })
  await waitFor(
    async () => (await fetch(`${master()}?onair=monitor`)).status === 200,
    30_000,
    'the live master playlist'
  )
}, 60_000)
afterAll(async () => {
  await push?.kill()
  await studio?.cleanup()
})

describe('GET /data/views/now', () => {
  it('counts each player session: two players on one computer are two, the monitor is none', async () => {
    expect((await now(studio.apiKey, `?playbackId=${stream.playbackId}`)).body).toEqual([
      { viewCount: 0, errorRate: 0 }
    ])
    const chrome = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36'
    const safari = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0) AppleWebKit/605.1.15 Safari/604.1'
    const first = await player(chrome)
    const second = await player(chrome)
    await player(safari)
    // Each player's master names its own session on every media playlist.
    expect(first[0]).toMatch(/\?v=[a-z0-9]+$/)
    expect(first[0]).not.toBe(second[0])
    // Onair's monitor: the plain master, not counted.
    const monitor = await player(chrome, `${master()}?onair=monitor`)
    expect(monitor[0]).not.toContain('v=')
    const total = await now(studio.apiKey, `?playbackId=${stream.playbackId}`)
    expect(total.status).toBe(200)
    expect(total.body).toEqual([{ viewCount: 3, errorRate: 0 }])
    const byBrowser = await now(
      studio.apiKey,
      `?playbackId=${stream.playbackId}&breakdownBy[]=browser&breakdownBy[]=device`
    )
    expect(byBrowser.body).toEqual(
      expect.arrayContaining([
        { browser: 'Chrome', device: 'Desktop', viewCount: 2, errorRate: 0 },
        { browser: 'Safari', device: 'iPhone', viewCount: 1, errorRate: 0 }
      ])
    )
    expect(byBrowser.body).toHaveLength(2)
    // All the caller's streams at once, by playbackId.
    const byId = await now(studio.apiKey, '?breakdownBy[]=playbackId')
    expect(byId.body).toContainEqual({ playbackId: stream.playbackId, viewCount: 3, errorRate: 0 })
    // A media playlist reload of a known session keeps it; it does not start another.
    await fetch(new URL(first[0]!, master()))
    expect((await now(studio.apiKey, `?playbackId=${stream.playbackId}`)).body[0]!.viewCount).toBe(
      3
    )
    // A probe that reads the master and nothing else is no viewer.
    expect((await fetch(master())).status).toBe(200)
    expect((await now(studio.apiKey, `?playbackId=${stream.playbackId}`)).body[0]!.viewCount).toBe(
      3
    )
  })

  it('another user sees none of it; bad input is a 4xx with errors; no key is 401', async () => {
    const theirs = await now(otherKey, `?playbackId=${stream.playbackId}`)
    expect(theirs.status).toBe(404)
    expect(theirs.body).toEqual({ errors: ['not found'] })
    expect((await now(otherKey)).body).toEqual([{ viewCount: 0, errorRate: 0 }])
    expect((await now(otherKey, '?breakdownBy[]=playbackId')).body).toEqual([
      { viewCount: 0, errorRate: 0 }
    ])
    const bad = await now(studio.apiKey, '?breakdownBy[]=shoeSize')
    expect(bad.status).toBe(400)
    expect((bad.body as unknown as { errors: string[] }).errors[0]).toContain('breakdownBy[]')
    const none = await api(studio, undefined, 'GET', '/data/views/now')
    expect(none.status).toBe(401)
  })
})

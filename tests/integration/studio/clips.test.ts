// Clips (#20), as Livepeer's POST /clip: a stretch of a live stream, or of a recorded session, becomes
// an asset with its own HLS and an MP4 that lasts end minus start within one segment. Two users and no
// crossing; bad input is a 4xx in Livepeer's shape; a clip sends the asset.* webhooks. Real RTMP push,
// real ffmpeg, real SQLite.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApiKey } from '../../../src/studio/index'
import {
  api,
  decodeAll,
  ffprobe,
  pushTestPattern,
  startTestStudio,
  waitFor,
  type Pusher,
  type TestStudio
} from '../../helpers/studio'
import { startReceiver } from '../../helpers/webhook-receiver'

interface Asset {
  id: string
  playbackId: string
  name: string
  source: { type: string; sessionId: string; playbackId: string }
  status: { phase: string; errorMessage?: string }
  playbackUrl?: string
  downloadUrl?: string
  size?: number
  videoSpec?: { duration: number }
}
interface Session {
  id: string
  createdAt: number
  recordingStatus?: string
}
type Errors = { errors: string[] }

/** One segment: the studio cuts HLS every 2 s (the test pattern's keyframe interval). */
const SEGMENT_S = 2.05

let studio: TestStudio
let otherKey: string
let stream: { id: string; playbackId: string; streamKey: string }
let idle: { id: string; playbackId: string }
let push: Pusher

const clip = (key: string, body: unknown): ReturnType<typeof api<{ asset: Asset } & Errors>> =>
  api<{ asset: Asset; task: { id: string } } & Errors>(studio, key, 'POST', '/clip', body)

async function ready(id: string): Promise<Asset> {
  return waitFor(
    async () => {
      const a = (await api<Asset>(studio, studio.apiKey, 'GET', `/asset/${id}`)).body
      if (a.status.phase === 'failed') throw new Error(`clip failed: ${a.status.errorMessage}`)
      return a.status.phase === 'ready' && a
    },
    60_000,
    'the clip to be ready'
  )
}

/** The pushed stream's session, once its recording is ready. */
const recorded = (): Promise<Session> =>
  waitFor(
    async () => {
      const r = await api<Session[]>(studio, studio.apiKey, 'GET', `/stream/${stream.id}/sessions`)
      return r.body[0]?.recordingStatus === 'ready' && r.body[0]
    },
    60_000,
    'the recording'
  )

beforeAll(async () => {
  studio = await startTestStudio()
  otherKey = await createApiKey(studio.dataDir, 'neighbour')
  stream = (
    await api<typeof stream>(studio, studio.apiKey, 'POST', '/stream', {
      name: 'clipped',
      record: true
    })
  ).body
  idle = (await api<typeof idle>(studio, studio.apiKey, 'POST', '/stream', { name: 'quiet' })).body
  push = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, {
    seconds: 18,
    width: 320,
    height: 240
  })
}, 60_000)
afterAll(async () => {
  await push?.kill()
  await studio?.cleanup()
})

describe('POST /clip of a live stream', () => {
  let live: Asset
  let asked: { start: number; end: number }

  it('answers an asset that is cut once the media covering its end exists', async () => {
    // 8 s of media in: clip the 5 s that ended 1 s ago (the segment covering the end is not
    // complete yet: the clip waits for it).
    const sessions = await waitFor(async () => {
      const r = await api<Session[]>(studio, studio.apiKey, 'GET', `/stream/${stream.id}/sessions`)
      return r.body.length > 0 && r.body
    })
    await waitFor(
      async () => Date.now() - sessions[0]!.createdAt > 8000,
      20_000,
      '8 s of the session',
      250
    )
    asked = { start: Date.now() - 6000, end: Date.now() - 1000 }
    const r = await clip(studio.apiKey, {
      playbackId: stream.playbackId,
      startTime: asked.start,
      endTime: asked.end,
      name: 'the goal'
    })
    expect(r.status).toBe(200)
    expect(r.body.asset.status.phase).toMatch(/^(waiting|processing)$/)
    expect(r.body.asset.name).toBe('the goal')
    expect(r.body.asset.source).toMatchObject({
      type: 'clip',
      sessionId: sessions[0]!.id,
      playbackId: stream.playbackId
    })
    expect(r.body.asset.playbackUrl).toBeUndefined()
    live = await ready(r.body.asset.id)
  }, 60_000)

  it('its MP4 lasts end minus start within one segment, and decodes whole', async () => {
    const mp4 = await fetch(live.downloadUrl!)
    expect(mp4.status).toBe(200)
    expect(mp4.headers.get('content-type')).toBe('video/mp4')
    expect(Number(mp4.headers.get('content-length'))).toBe(live.size)
    const probe = await ffprobe(live.downloadUrl!)
    expect(Math.abs(probe.duration - (asked.end - asked.start) / 1000)).toBeLessThanOrEqual(
      SEGMENT_S
    )
    expect(Math.abs(live.videoSpec!.duration - probe.duration)).toBeLessThan(0.2)
    expect(probe.streams.map((s) => s.codec_type).sort()).toEqual(['audio', 'video'])
    expect((await decodeAll(live.downloadUrl!)).ok).toBe(true)
  }, 60_000)

  it('plays as HLS too, and GET /playback lists its HLS and MP4', async () => {
    const m3u8 = await (await fetch(live.playbackUrl!)).text()
    expect(m3u8).toContain('#EXT-X-ENDLIST')
    expect(m3u8).toContain('#EXT-X-PROGRAM-DATE-TIME:')
    expect((await decodeAll(live.playbackUrl!)).ok).toBe(true)
    const info = await api<{ type: string; meta: { source: { hrn: string; url: string }[] } }>(
      studio,
      undefined,
      'GET',
      `/playback/${live.playbackId}`
    )
    expect(info.body.type).toBe('vod')
    expect(info.body.meta.source.map((s) => [s.hrn, s.url])).toEqual([
      ['HLS (TS)', live.playbackUrl],
      ['MP4', live.downloadUrl]
    ])
  })

  it('is listed under its stream (by id or playbackId) and its session', async () => {
    for (const id of [stream.id, stream.playbackId]) {
      const r = await api<Asset[]>(studio, studio.apiKey, 'GET', `/stream/${id}/clips`)
      expect(r.status).toBe(200)
      expect(r.body.map((a) => a.id)).toEqual([live.id])
    }
    const s = await api<Asset[]>(
      studio,
      studio.apiKey,
      'GET',
      `/session/${live.source.sessionId}/clips`
    )
    expect(s.body.map((a) => a.id)).toEqual([live.id])
    expect(
      (await api<Asset[]>(studio, studio.apiKey, 'GET', `/stream/${idle.id}/clips`)).body
    ).toEqual([])
  })

  it('another user can neither clip, list, read nor delete it', async () => {
    const r = await clip(otherKey, { playbackId: stream.playbackId, startTime: asked.start })
    expect(r.status).toBe(404)
    expect(r.body.errors).toEqual(['stream not found'])
    for (const path of [
      `/stream/${stream.id}/clips`,
      `/stream/${stream.playbackId}/clips`,
      `/session/${live.source.sessionId}/clips`,
      `/asset/${live.id}`
    ]) {
      const g = await api<Errors>(studio, otherKey, 'GET', path)
      expect([path, g.status]).toEqual([path, 404])
      expect(g.body.errors).toHaveLength(1)
    }
    expect((await api<Asset[]>(studio, otherKey, 'GET', '/asset')).body).toEqual([])
    expect((await api(studio, otherKey, 'DELETE', `/asset/${live.id}`)).status).toBe(404)
    expect((await api(studio, studio.apiKey, 'GET', `/asset/${live.id}`)).status).toBe(200)
  })
})

describe('bad input', () => {
  it('answers 4xx with {"errors":[...]}, never 500, and makes no asset', async () => {
    const now = Date.now()
    const cases: Array<[unknown, number, RegExp]> = [
      [{}, 422, /required/],
      [{ playbackId: stream.playbackId }, 422, /startTime/],
      [{ playbackId: stream.playbackId, startTime: 'soon' }, 422, /number/],
      [{ playbackId: stream.playbackId, startTime: now - 5000, colour: 'red' }, 422, /additional/],
      [
        { playbackId: stream.playbackId, startTime: now - 1000, endTime: now - 5000 },
        400,
        /after startTime/
      ],
      [
        { playbackId: stream.playbackId, startTime: now - 11 * 60_000, endTime: now },
        400,
        /at most 10 minutes/
      ],
      [{ playbackId: stream.playbackId, startTime: now + 60_000 }, 400, /future/],
      [{ playbackId: idle.playbackId, startTime: now - 5000 }, 400, /not live: give the sessionId/],
      [{ playbackId: 'nope', startTime: now - 5000 }, 404, /stream not found/],
      [
        {
          playbackId: stream.playbackId,
          startTime: now - 5000,
          sessionId: '00000000-0000-0000-0000-000000000000'
        },
        404,
        /session not found/
      ]
    ]
    const before = (await api<Asset[]>(studio, studio.apiKey, 'GET', '/asset')).body.length
    for (const [body, status, message] of cases) {
      const r = await clip(studio.apiKey, body)
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), status])
      expect(r.body.errors.join(' ')).toMatch(message)
    }
    const raw = await fetch(`${studio.apiUrl}/clip`, {
      method: 'POST',
      headers: { authorization: `Bearer ${studio.apiKey}`, 'content-type': 'application/json' },
      body: '{"playbackId":'
    })
    expect(raw.status).toBe(400)
    expect((await api<Asset[]>(studio, studio.apiKey, 'GET', '/asset')).body).toHaveLength(before)
    expect((await api(studio, studio.apiKey, 'GET', '/asset/not-an-id')).status).toBe(404)
  })
})

describe('POST /clip of a recording', () => {
  it('cuts a recorded session by its sessionId, then the asset can be deleted', async () => {
    expect(await push.done).toBe(0)
    const session = await recorded()
    // Not live any more: without the sessionId there is nothing to clip.
    const gone = await clip(studio.apiKey, {
      playbackId: stream.playbackId,
      startTime: session.createdAt + 2000
    })
    expect(gone.status).toBe(400)
    const start = session.createdAt + 3000
    const end = session.createdAt + 10_000
    const r = await clip(studio.apiKey, {
      playbackId: stream.playbackId,
      sessionId: session.id,
      startTime: start,
      endTime: end
    })
    expect(r.status).toBe(200)
    const done = await ready(r.body.asset.id)
    expect(done.name).toBe('clipped clip')
    const probe = await ffprobe(done.downloadUrl!)
    expect(Math.abs(probe.duration - (end - start) / 1000)).toBeLessThanOrEqual(SEGMENT_S)
    expect((await decodeAll(done.downloadUrl!)).ok).toBe(true)

    const listed = await api<Asset[]>(studio, studio.apiKey, 'GET', `/stream/${stream.id}/clips`)
    expect(listed.body.map((a) => a.id)).toContain(done.id)
    expect((await api(studio, studio.apiKey, 'DELETE', `/asset/${done.id}`)).status).toBe(204)
    expect((await api(studio, studio.apiKey, 'GET', `/asset/${done.id}`)).status).toBe(404)
    expect((await fetch(done.downloadUrl!)).status).toBe(404)
    const after = await api<Asset[]>(studio, studio.apiKey, 'GET', `/stream/${stream.id}/clips`)
    expect(after.body.map((a) => a.id)).not.toContain(done.id)
  }, 90_000)
})

describe('a clip’s asset webhooks', () => {
  it('sends asset.created, asset.updated and asset.ready for a clip, with the asset as GET answers it', async () => {
    const receiver = await startReceiver<{ id: string; snapshot: Asset }>()
    const { events } = receiver
    try {
      const hook = await api(studio, studio.apiKey, 'POST', '/webhook', {
        name: 'clip assets',
        url: receiver.url,
        events: ['asset.created', 'asset.updated', 'asset.ready', 'asset.failed']
      })
      expect(hook.status).toBeLessThan(300)
      const session = await recorded()
      const r = await clip(studio.apiKey, {
        playbackId: stream.playbackId,
        sessionId: session.id,
        startTime: session.createdAt + 2000,
        endTime: session.createdAt + 6000
      })
      expect(r.status).toBe(200)
      const id = r.body.asset.id
      await ready(id)
      await waitFor(
        async () => events.some((e) => e.event === 'asset.ready' && e.payload.id === id),
        10_000,
        'asset.ready'
      )
      const mine = events.filter((e) => e.payload.id === id)
      expect(mine.map((e) => e.event)).toEqual(['asset.created', 'asset.updated', 'asset.ready'])
      const last = mine[mine.length - 1]!.payload.snapshot
      expect(last.status.phase).toBe('ready')
      expect(last.source).toMatchObject({ type: 'clip', sessionId: session.id })
      expect(last.playbackUrl).toBe((await ready(id)).playbackUrl)
      await api(studio, studio.apiKey, 'DELETE', `/asset/${id}`)
    } finally {
      receiver.close()
    }
  }, 90_000)
})

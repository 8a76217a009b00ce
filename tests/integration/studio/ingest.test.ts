// Real RTMP publish (ffmpeg lavfi) into a real studio: sessions, the ABR ladder, recordings, refusals,
// drop-and-resume. One studio for the file; each test uses its own stream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  api,
  decodeAll,
  ffprobe,
  LADDER_720_480_360,
  pushTestPattern,
  startTestStudio,
  waitFor,
  type TestStudio
} from '../../helpers/studio'

interface Stream {
  id: string
  streamKey: string
  playbackId: string
}
interface Session {
  id: string
  parentId: string
  record: boolean
  recordingStatus?: string
  recordingUrl?: string
  mp4Url?: string
  sourceSegmentsDuration: number
  profiles: unknown[]
}

let studio: TestStudio

beforeAll(async () => {
  studio = await startTestStudio({ resumeWindowMs: 4000 })
})
afterAll(async () => {
  await studio?.cleanup()
})

async function createStream(body: Record<string, unknown>): Promise<Stream> {
  const res = await api<Stream>(studio, studio.apiKey, 'POST', '/stream', body)
  expect(res.status).toBe(201)
  return res.body
}

const sessionsOf = async (id: string): Promise<Session[]> =>
  (await api<Session[]>(studio, studio.apiKey, 'GET', `/stream/${id}/sessions`)).body

async function finished(id: string): Promise<Session> {
  return waitFor(
    async () => {
      const s = (await sessionsOf(id))[0]
      return s && s.recordingStatus !== 'waiting' ? s : undefined
    },
    30_000,
    'the recording to be finalized'
  )
}

const variants = (master: string): string[] =>
  master.split('\n').filter((l) => l.startsWith('#EXT-X-STREAM-INF'))

describe('publishing to the local studio', () => {
  it('transcodes a 3-profile ladder live and records it as HLS + MP4', async () => {
    const stream = await createStream({
      name: 'ladder',
      record: true,
      profiles: LADDER_720_480_360
    })
    const push = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, { seconds: 8 })
    const session = await waitFor(async () => (await sessionsOf(stream.id))[0], 15_000, 'a session')
    expect(session.parentId).toBe(stream.id)
    expect(session.record).toBe(true)
    expect(session.recordingStatus).toBe('waiting')
    expect(session.profiles).toEqual(LADDER_720_480_360)
    const live = (
      await api<Stream & { isActive: boolean }>(
        studio,
        studio.apiKey,
        'GET',
        `/stream/${stream.id}`
      )
    ).body
    expect(live.isActive).toBe(true)
    // Locked while live, as the reference.
    const lockedRecord = await api<{ errors: string[] }>(
      studio,
      studio.apiKey,
      'PATCH',
      `/stream/${stream.id}`,
      { record: false }
    )
    expect(lockedRecord.status).toBe(400)
    expect(lockedRecord.body.errors).toEqual([
      "cannot change 'record' field while stream is active"
    ])
    const lockedProfiles = await api<{ errors: string[] }>(
      studio,
      studio.apiKey,
      'PATCH',
      `/stream/${stream.id}`,
      { profiles: [] }
    )
    expect(lockedProfiles.body.errors).toEqual([
      "cannot change 'profiles' field while stream is active"
    ])
    expect(
      (await api(studio, studio.apiKey, 'PATCH', `/stream/${stream.id}/record`, { record: false }))
        .status
    ).toBe(400)
    expect(
      (await api(studio, studio.apiKey, 'PATCH', `/stream/${stream.id}`, { name: 'renamed live' }))
        .status
    ).toBe(204)

    const base = studio.apiUrl.replace(/\/api$/, '')
    const masterUrl = `${base}/hls/${stream.playbackId}/index.m3u8`
    const master = await waitFor(
      async () => {
        const r = await fetch(masterUrl)
        return r.status === 200 ? r.text() : undefined
      },
      20_000,
      'the live master playlist'
    )
    const lines = variants(master)
    expect(lines).toHaveLength(3)
    for (const [i, res] of ['1280x720', '854x480', '640x360'].entries()) {
      expect(lines[i]).toContain(`RESOLUTION=${res}`)
      expect(lines[i]).toMatch(/BANDWIDTH=\d+/)
      expect(lines[i]).toMatch(/CODECS="avc1\.[0-9a-f]{6},mp4a\.40\.2"/)
    }
    expect(await push.done).toBe(0)

    const done = await finished(stream.id)
    expect(done.recordingStatus).toBe('ready')
    expect(done.recordingUrl).toBe(`${base}/recordings/${done.id}/index.m3u8`)
    expect(done.sourceSegmentsDuration).toBeGreaterThan(6.5)
    expect(done.sourceSegmentsDuration).toBeLessThan(9.5)
    const vod = await (await fetch(done.recordingUrl!)).text()
    expect(variants(vod)).toHaveLength(3)
    // Each rendition: the right frame size, ends with ENDLIST, decodes end to end.
    for (const [i, [w, h]] of [
      [1280, 720],
      [854, 480],
      [640, 360]
    ].entries()) {
      const url = `${base}/recordings/${done.id}/v${i}.m3u8`
      const text = await (await fetch(url)).text()
      expect(text).toContain('#EXT-X-ENDLIST')
      const probe = await ffprobe(url)
      const video = probe.streams.find((s) => s.codec_type === 'video')!
      expect([video.width, video.height]).toEqual([w, h])
      expect(probe.streams.some((s) => s.codec_type === 'audio')).toBe(true)
      expect(probe.duration).toBeGreaterThan(6.5)
      expect(probe.duration).toBeLessThan(9.5)
    }
    const played = await decodeAll(done.recordingUrl!)
    expect(played.stderr).toBe('')
    expect(played.ok).toBe(true)
    expect(done.mp4Url).toBe(`${base}/recordings/${done.id}/recording.mp4`)
    const mp4 = await ffprobe(done.mp4Url!)
    expect(mp4.duration).toBeGreaterThan(6.5)
    const after = (
      await api<{ isActive: boolean }>(studio, studio.apiKey, 'GET', `/stream/${stream.id}`)
    ).body
    expect(after.isActive).toBe(false)
    expect((await fetch(masterUrl)).status).toBe(404)
  })

  it('without profiles keeps the source as the one rendition (no ABR)', async () => {
    const stream = await createStream({ name: 'plain', record: true })
    const push = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, {
      seconds: 5,
      width: 640,
      height: 360
    })
    expect(await push.done).toBe(0)
    const done = await finished(stream.id)
    expect(done.recordingStatus).toBe('ready')
    expect(done.profiles).toEqual([])
    const master = await (await fetch(done.recordingUrl!)).text()
    expect(variants(master)).toHaveLength(1)
    expect(variants(master)[0]).toContain('RESOLUTION=640x360')
    const probe = await ffprobe(done.recordingUrl!)
    const video = probe.streams.find((s) => s.codec_type === 'video')!
    expect([video.codec_name, video.width, video.height]).toEqual(['h264', 640, 360])
    expect((await decodeAll(done.recordingUrl!)).ok).toBe(true)
  })

  it('refuses an unknown stream key and makes no session', async () => {
    const before = (await api<Session[]>(studio, studio.apiKey, 'GET', '/session?limit=1000')).body
      .length
    const push = pushTestPattern(`${studio.rtmpUrl}/abcd-efgh-ijkl-mnop`, { seconds: 3 })
    expect(await push.done).not.toBe(0)
    const after = (await api<Session[]>(studio, studio.apiKey, 'GET', '/session?limit=1000')).body
      .length
    expect(after).toBe(before)
  })

  it('allows one publisher per stream at a time', async () => {
    const stream = await createStream({ name: 'one-at-a-time' })
    const first = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, {
      seconds: 6,
      width: 320,
      height: 240
    })
    await waitFor(async () => (await sessionsOf(stream.id))[0], 15_000, 'a session')
    const second = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, {
      seconds: 3,
      width: 320,
      height: 240
    })
    expect(await second.done).not.toBe(0)
    expect(await first.done).toBe(0)
    await waitFor(async () => (await sessionsOf(stream.id))[0]?.sourceSegmentsDuration, 15_000)
    expect(await sessionsOf(stream.id)).toHaveLength(1)
  })

  it('continues the same session and recording when the publisher comes back inside the window', async () => {
    const stream = await createStream({ name: 'resume', record: true })
    const url = `${studio.rtmpUrl}/${stream.streamKey}`
    const first = pushTestPattern(url, { seconds: 60, width: 640, height: 360 })
    // Drop only once media has reached the recording (a segment is listed).
    await waitFor(
      async () => ((await sessionsOf(stream.id))[0]?.sourceSegmentsDuration ?? 0) > 3,
      20_000
    )
    await first.kill()
    const second = pushTestPattern(url, { seconds: 4, width: 640, height: 360 })
    expect(await second.done).toBe(0)
    const done = await finished(stream.id)
    const all = await sessionsOf(stream.id)
    expect(all).toHaveLength(1)
    expect(done.recordingStatus).toBe('ready')
    const vod = await (
      await fetch(`${studio.apiUrl.replace(/\/api$/, '')}/recordings/${done.id}/v0.m3u8`)
    ).text()
    expect(vod).toContain('#EXT-X-DISCONTINUITY')
    expect(vod).toContain('run0/')
    expect(vod).toContain('run1/')
    expect(done.sourceSegmentsDuration).toBeGreaterThan(5)
    const played = await decodeAll(done.recordingUrl!, false)
    expect(played.ok).toBe(true)
    expect((await ffprobe(done.recordingUrl!)).duration).toBeGreaterThan(5)
    // Each run on its own decodes without a single error.
    const dir = `${studio.dataDir}/media/${done.id}`
    for (const run of ['run0', 'run1']) {
      expect((await decodeAll(`${dir}/${run}/v0/index.m3u8`)).stderr).toBe('')
    }
  })

  it('ends the session after the window when the publisher does not come back', async () => {
    const stream = await createStream({ name: 'dropped', record: true })
    const push = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, {
      seconds: 60,
      width: 320,
      height: 240
    })
    await waitFor(
      async () => ((await sessionsOf(stream.id))[0]?.sourceSegmentsDuration ?? 0) > 2.5,
      20_000
    )
    await push.kill()
    const waiting = (await sessionsOf(stream.id))[0]!
    expect(waiting.recordingStatus).toBe('waiting')
    const done = await finished(stream.id)
    expect(done.recordingStatus).toBe('ready')
    expect(
      (await api<{ isActive: boolean }>(studio, studio.apiKey, 'GET', `/stream/${stream.id}`)).body
        .isActive
    ).toBe(false)
  })

  it('never writes a stream key or the API key to its log', async () => {
    const all = await api<Stream[]>(studio, studio.apiKey, 'GET', '/stream?limit=1000')
    const log = studio.logLines().join('\n')
    expect(log).toContain('refused a publisher on live/****')
    for (const s of all.body) expect(log).not.toContain(s.streamKey)
    expect(log).not.toContain('abcd-efgh-ijkl-mnop')
    expect(log).not.toContain(studio.apiKey)
  })

  it('terminate ends the live run and finalizes the session at once', async () => {
    const stream = await createStream({ name: 'terminated', record: true })
    const push = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, {
      seconds: 60,
      width: 320,
      height: 240
    })
    await waitFor(
      async () => ((await sessionsOf(stream.id))[0]?.sourceSegmentsDuration ?? 0) > 2.5,
      20_000
    )
    const res = await api(studio, studio.apiKey, 'DELETE', `/stream/${stream.id}/terminate`)
    expect(res.status).toBe(204)
    expect(await push.done).not.toBe(0)
    const s = (await sessionsOf(stream.id))[0]!
    expect(s.recordingStatus).toBe('ready')
    const again = await api<{ errors: string[] }>(
      studio,
      studio.apiKey,
      'DELETE',
      `/stream/${stream.id}/terminate`
    )
    expect(again.status).toBe(429)
  })
})

describe('clean stop vs dropped ingest (a 2-minute resume window)', () => {
  let long: TestStudio
  beforeAll(async () => {
    long = await startTestStudio({ resumeWindowMs: 120_000 })
  })
  afterAll(async () => {
    await long?.cleanup()
  })
  const sessions = async (id: string): Promise<Session[]> =>
    (await api<Session[]>(long, long.apiKey, 'GET', `/stream/${id}/sessions`)).body

  it('a clean RTMP unpublish finalizes at once, without waiting for the window', async () => {
    const s = (
      await api<Stream>(long, long.apiKey, 'POST', '/stream', { name: 'clean', record: true })
    ).body
    const push = pushTestPattern(`${long.rtmpUrl}/${s.streamKey}`, {
      seconds: 4,
      width: 320,
      height: 240
    })
    expect(await push.done).toBe(0)
    // Well inside the 120 s window: only the clean-stop path can have finished it.
    const done = await waitFor(
      async () => (await sessions(s.id))[0]?.recordingStatus === 'ready',
      30_000,
      'ready after a clean stop'
    )
    expect(done).toBe(true)
  })

  it('stopIngest drops the publisher while the API serves; a publisher back after startIngest resumes the session', async () => {
    const s = (
      await api<Stream>(long, long.apiKey, 'POST', '/stream', { name: 'fault', record: true })
    ).body
    const url = `${long.rtmpUrl}/${s.streamKey}`
    const first = pushTestPattern(url, { seconds: 60, width: 320, height: 240 })
    const grown = await waitFor(
      async () => {
        const d = (await sessions(s.id))[0]?.sourceSegmentsDuration ?? 0
        return d > 2.5 ? d : undefined
      },
      20_000,
      'media'
    )
    // Still growing while media arrives.
    await waitFor(
      async () => ((await sessions(s.id))[0]?.sourceSegmentsDuration ?? 0) > grown + 1,
      20_000,
      'growth'
    )
    await long.stopIngest()
    expect(await first.done).not.toBe(0)
    const meanwhile = await api<Session[]>(long, long.apiKey, 'GET', `/stream/${s.id}/sessions`)
    expect(meanwhile.status).toBe(200)
    expect(meanwhile.body[0]!.recordingStatus).toBe('waiting')
    await long.startIngest()
    const second = pushTestPattern(url, { seconds: 3, width: 320, height: 240 })
    expect(await second.done).toBe(0)
    // The clean end of the resumed run finalizes the one session.
    const done = await waitFor(
      async () => {
        const list = await sessions(s.id)
        return list[0]?.recordingStatus === 'ready' ? list : undefined
      },
      30_000,
      'ready'
    )
    expect(done).toHaveLength(1)
    expect(done[0]!.sourceSegmentsDuration).toBeGreaterThan(grown + 1)
  })

  it('serves live HLS cross-origin', async () => {
    const s = (await api<Stream>(long, long.apiKey, 'POST', '/stream', { name: 'cors' })).body
    const push = pushTestPattern(`${long.rtmpUrl}/${s.streamKey}`, {
      seconds: 60,
      width: 320,
      height: 240
    })
    const url = `${long.apiUrl.replace(/\/api$/, '')}/hls/${s.playbackId}/index.m3u8`
    const res = await waitFor(
      async () => {
        const r = await fetch(url, { headers: { origin: 'http://localhost:5173' } })
        return r.status === 200 ? r : undefined
      },
      20_000,
      'live playlist'
    )
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    expect(res.headers.get('content-type')).toBe('application/vnd.apple.mpegurl')
    expect(await res.text()).toContain('RESOLUTION=320x240')
    expect((await api(long, long.apiKey, 'DELETE', `/stream/${s.id}/terminate`)).status).toBe(204)
    await push.done
    // Not recorded: its live media is removed once the session ends.
    const sid = (await sessions(s.id))[0]!.id
    expect(
      (await fetch(`${long.apiUrl.replace(/\/api$/, '')}/recordings/${sid}/index.m3u8`)).status
    ).toBe(404)
    const { existsSync } = await import('node:fs')
    expect(existsSync(`${long.dataDir}/media/${sid}`)).toBe(false)
  })
})

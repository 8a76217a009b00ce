// Drop, resume and termination of live runs over real RTMP: the resume window, a clean unpublish
// against a dropped socket, stopIngest/startIngest, DELETE /terminate, live HLS over CORS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  api,
  decodeAll,
  ffprobe,
  pushTestPattern,
  startTestStudio,
  waitFor,
  studioCalls,
  type StudioSession,
  type StudioStream,
  type TestStudio
} from '../../helpers/studio'

let studio: TestStudio
let calls: ReturnType<typeof studioCalls>

beforeAll(async () => {
  studio = await startTestStudio({ resumeWindowMs: 4000 })
  calls = studioCalls(studio)
})
afterAll(async () => {
  await studio?.cleanup()
})

describe('resume window and termination', () => {
  it('continues the same session and recording when the publisher comes back inside the window', async () => {
    const stream = await calls.createStream({ name: 'resume', record: true })
    const url = `${studio.rtmpUrl}/${stream.streamKey}`
    const first = pushTestPattern(url, { seconds: 60, width: 640, height: 360 })
    // Drop only once media has reached the recording (a segment is listed).
    await waitFor(
      async () => ((await calls.sessionsOf(stream.id))[0]?.sourceSegmentsDuration ?? 0) > 3,
      20_000
    )
    await first.kill()
    const second = pushTestPattern(url, { seconds: 4, width: 640, height: 360 })
    expect(await second.done).toBe(0)
    const done = await calls.finished(stream.id)
    const all = await calls.sessionsOf(stream.id)
    expect(all).toHaveLength(1)
    expect(done.recordingStatus).toBe('ready')
    const vod = await (
      await fetch(`${studio.apiUrl.replace(/\/api$/, '')}/recordings/${done.id}/source.m3u8`)
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
      expect((await decodeAll(`${dir}/${run}/source/index.m3u8`)).stderr).toBe('')
    }
  })

  it('ends the session after the window when the publisher does not come back', async () => {
    const stream = await calls.createStream({ name: 'dropped', record: true })
    const push = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, {
      seconds: 60,
      width: 320,
      height: 240
    })
    await waitFor(
      async () => ((await calls.sessionsOf(stream.id))[0]?.sourceSegmentsDuration ?? 0) > 2.5,
      20_000
    )
    await push.kill()
    const waiting = (await calls.sessionsOf(stream.id))[0]!
    expect(waiting.recordingStatus).toBe('waiting')
    const done = await calls.finished(stream.id)
    expect(done.recordingStatus).toBe('ready')
    expect(
      (await api<{ isActive: boolean }>(studio, studio.apiKey, 'GET', `/stream/${stream.id}`)).body
        .isActive
    ).toBe(false)
  })

  it('terminate ends the live run and finalizes the session at once', async () => {
    const stream = await calls.createStream({ name: 'terminated', record: true })
    const push = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, {
      seconds: 60,
      width: 320,
      height: 240
    })
    await waitFor(
      async () => ((await calls.sessionsOf(stream.id))[0]?.sourceSegmentsDuration ?? 0) > 2.5,
      20_000
    )
    const res = await api(studio, studio.apiKey, 'DELETE', `/stream/${stream.id}/terminate`)
    expect(res.status).toBe(204)
    expect(await push.done).not.toBe(0)
    const s = (await calls.sessionsOf(stream.id))[0]!
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
  const sessions = async (id: string): Promise<StudioSession[]> =>
    (await api<StudioSession[]>(long, long.apiKey, 'GET', `/stream/${id}/sessions`)).body

  it('a clean RTMP unpublish finalizes at once, without waiting for the window', async () => {
    const s = (
      await api<StudioStream>(long, long.apiKey, 'POST', '/stream', { name: 'clean', record: true })
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
      await api<StudioStream>(long, long.apiKey, 'POST', '/stream', { name: 'fault', record: true })
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
    const meanwhile = await api<StudioSession[]>(
      long,
      long.apiKey,
      'GET',
      `/stream/${s.id}/sessions`
    )
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
    const s = (await api<StudioStream>(long, long.apiKey, 'POST', '/stream', { name: 'cors' })).body
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

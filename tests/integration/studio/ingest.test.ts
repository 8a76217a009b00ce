// Real RTMP publish (ffmpeg lavfi) into a real studio: sessions, the ABR ladder, recordings, the
// no-profile source rendition, refusals, key redaction. One studio for the file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  api,
  decodeAll,
  ffprobe,
  LADDER_720_480_360,
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

const variants = (master: string): string[] =>
  master.split('\n').filter((l) => l.startsWith('#EXT-X-STREAM-INF'))

describe('publishing to the local studio', () => {
  it('transcodes a 3-profile ladder live and records it as HLS + MP4', async () => {
    const stream = await calls.createStream({
      name: 'ladder',
      record: true,
      profiles: LADDER_720_480_360
    })
    const push = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, { seconds: 8 })
    const session = await waitFor(
      async () => (await calls.sessionsOf(stream.id))[0],
      15_000,
      'a session'
    )
    expect(session.parentId).toBe(stream.id)
    expect(session.record).toBe(true)
    expect(session.recordingStatus).toBe('waiting')
    expect(session.profiles).toEqual(LADDER_720_480_360)
    const live = (
      await api<StudioStream & { isActive: boolean }>(
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
    // As Onair's monitor asks for it: a viewer's copy names its session on each URI (viewers.ts).
    const masterUrl = `${base}/hls/${stream.playbackId}/index.m3u8?onair=monitor`
    const master = await waitFor(
      async () => {
        const r = await fetch(masterUrl)
        return r.status === 200 ? r.text() : undefined
      },
      20_000,
      'the live master playlist'
    )
    // The source first (pushed at 1280x720), then the ladder.
    const lines = variants(master)
    expect(lines).toHaveLength(4)
    // Each URI under the run's own token (a later session's media has other addresses).
    expect(master.split('\n').filter((l) => l.endsWith('.m3u8'))).toEqual(
      ['source', 'v0', 'v1', 'v2'].map((r) =>
        expect.stringMatching(`^[0-9a-f]{10}/${r}/index.m3u8$`)
      )
    )
    for (const [i, res] of ['1280x720', '1280x720', '854x480', '640x360'].entries()) {
      expect(lines[i]).toContain(`RESOLUTION=${res}`)
      expect(lines[i]).toMatch(/BANDWIDTH=\d+/)
      expect(lines[i]).toMatch(/CODECS="avc1\.[0-9a-f]{6},mp4a\.40\.2"/)
    }
    expect(await push.done).toBe(0)

    const done = await calls.finished(stream.id)
    expect(done.recordingStatus).toBe('ready')
    expect(done.recordingUrl).toBe(`${base}/recordings/${done.id}/index.m3u8`)
    expect(done.sourceSegmentsDuration).toBeGreaterThan(6.5)
    expect(done.sourceSegmentsDuration).toBeLessThan(9.5)
    const vod = await (await fetch(done.recordingUrl!)).text()
    expect(variants(vod)).toHaveLength(4)
    // Each rendition, the source included: the right frame size, ends with ENDLIST, decodes end to
    // end.
    for (const [dir, [w, h]] of [
      ['source', [1280, 720]],
      ['v0', [1280, 720]],
      ['v1', [854, 480]],
      ['v2', [640, 360]]
    ] as const) {
      const url = `${base}/recordings/${done.id}/${dir}.m3u8`
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
    // The MP4 is the source, copied: the publisher's H.264 at its size.
    expect(mp4.streams.find((s) => s.codec_type === 'video')).toMatchObject({
      codec_name: 'h264',
      width: 1280,
      height: 720
    })
    const after = (
      await api<{ isActive: boolean }>(studio, studio.apiKey, 'GET', `/stream/${stream.id}`)
    ).body
    expect(after.isActive).toBe(false)
    expect((await fetch(masterUrl)).status).toBe(404)
  })

  it('without profiles keeps the source as the one rendition (no ABR)', async () => {
    const stream = await calls.createStream({ name: 'plain', record: true })
    const push = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, {
      seconds: 5,
      width: 640,
      height: 360
    })
    expect(await push.done).toBe(0)
    const done = await calls.finished(stream.id)
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
    const before = (await api<StudioSession[]>(studio, studio.apiKey, 'GET', '/session?limit=1000'))
      .body.length
    const push = pushTestPattern(`${studio.rtmpUrl}/abcd-efgh-ijkl-mnop`, { seconds: 3 })
    expect(await push.done).not.toBe(0)
    const after = (await api<StudioSession[]>(studio, studio.apiKey, 'GET', '/session?limit=1000'))
      .body.length
    expect(after).toBe(before)
  })

  it('refuses suspended and deleted streams', async () => {
    const suspended = await calls.createStream({ name: 'suspended' })
    const sus = await api(studio, studio.apiKey, 'PATCH', `/stream/${suspended.id}/suspended`, {
      suspended: true
    })
    expect(sus.status).toBe(204)
    const a = pushTestPattern(`${studio.rtmpUrl}/${suspended.streamKey}`, { seconds: 3 })
    expect(await a.done).not.toBe(0)
    expect(await calls.sessionsOf(suspended.id)).toEqual([])
    const deleted = await calls.createStream({ name: 'deleted' })
    expect((await api(studio, studio.apiKey, 'DELETE', `/stream/${deleted.id}`)).status).toBe(204)
    const b = pushTestPattern(`${studio.rtmpUrl}/${deleted.streamKey}`, { seconds: 3 })
    expect(await b.done).not.toBe(0)
    expect(studio.logLines().join('\n')).toContain('the stream was deleted')
  })

  it('allows one publisher per stream at a time', async () => {
    const stream = await calls.createStream({ name: 'one-at-a-time' })
    const first = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, {
      seconds: 6,
      width: 320,
      height: 240
    })
    await waitFor(async () => (await calls.sessionsOf(stream.id))[0], 15_000, 'a session')
    const second = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, {
      seconds: 3,
      width: 320,
      height: 240
    })
    expect(await second.done).not.toBe(0)
    // Raw RTMP is not played back to anyone: not by stream key, not by playbackId.
    for (const name of [stream.streamKey, stream.playbackId]) {
      const played = await decodeAll(`${studio.rtmpUrl}/${name}`)
      expect(played.ok).toBe(false)
    }
    expect(await first.done).toBe(0)
    await waitFor(
      async () => (await calls.sessionsOf(stream.id))[0]?.sourceSegmentsDuration,
      15_000
    )
    expect(await calls.sessionsOf(stream.id)).toHaveLength(1)
  })

  it('never writes a stream key or the API key to its log', async () => {
    const all = await api<StudioStream[]>(studio, studio.apiKey, 'GET', '/stream?limit=1000')
    const log = studio.logLines().join('\n')
    expect(log).toContain('refused a publisher on live/****')
    for (const s of all.body) expect(log).not.toContain(s.streamKey)
    expect(log).not.toContain('abcd-efgh-ijkl-mnop')
    expect(log).not.toContain(studio.apiKey)
  })
})

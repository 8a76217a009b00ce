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
    const stream = await createStream({ name: 'ladder', record: true, profiles: LADDER_720_480_360 })
    const push = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, { seconds: 8 })
    const session = await waitFor(async () => (await sessionsOf(stream.id))[0], 15_000, 'a session')
    expect(session.parentId).toBe(stream.id)
    expect(session.record).toBe(true)
    expect(session.recordingStatus).toBe('waiting')
    expect(session.profiles).toEqual(LADDER_720_480_360)
    const live = (await api<Stream & { isActive: boolean }>(studio, studio.apiKey, 'GET', `/stream/${stream.id}`)).body
    expect(live.isActive).toBe(true)

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
    for (const [i, [w, h]] of [[1280, 720], [854, 480], [640, 360]].entries()) {
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
    const after = (await api<{ isActive: boolean }>(studio, studio.apiKey, 'GET', `/stream/${stream.id}`)).body
    expect(after.isActive).toBe(false)
    expect((await fetch(masterUrl)).status).toBe(404)
  })
})

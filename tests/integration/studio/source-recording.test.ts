// The source is recorded apart from the ladder: a transcoder that dies (kill -9) or can never run
// (a profile no encoder makes, forced into the database past the API's rules) costs no recorded
// media. The stream says so while it lasts (isHealthy false, an issue naming the Transcoding
// condition and its cause), and the renditions resume after a crash. Real ffmpegs, real RTMP, real
// SQLite.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import Database from 'libsql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  api,
  decodeAll,
  ffprobe,
  pushTestPattern,
  startTestStudio,
  studioCalls,
  waitFor,
  type TestStudio
} from '../../helpers/studio'
import { processesWith } from '../../helpers/proc'

let studio: TestStudio
let calls: ReturnType<typeof studioCalls>
let media = ''

// Light on CPU (the test machine is shared), still three renditions.
const LADDER = [
  { name: '360p', width: 640, height: 360, bitrate: 600_000, fps: 30 },
  { name: '240p', width: 426, height: 240, bitrate: 300_000, fps: 30 },
  { name: '180p', width: 320, height: 180, bitrate: 200_000, fps: 30 }
]

interface HealthReport {
  id: string
  healthy: { status: boolean | null }
  conditions: Array<{ type: string; status: boolean | null; lastTransitionTime: number | null }>
}

interface Health {
  isHealthy: boolean | null
  issues: string[] | null
}

beforeAll(async () => {
  studio = await startTestStudio()
  calls = studioCalls(studio)
  media = join(studio.dataDir, 'media')
})
afterAll(async () => {
  await studio?.cleanup()
})

const base = (): string => studio.apiUrl.replace(/\/api$/, '')
const health = async (streamId: string): Promise<Health> => {
  const { isHealthy, issues } = (
    await api<Health>(studio, studio.apiKey, 'GET', `/stream/${streamId}`)
  ).body
  return { isHealthy, issues }
}
const segments = async (path: string): Promise<number> =>
  ((await readFile(path, 'utf8').catch(() => '')).match(/^#EXTINF/gm) ?? []).length

/** Polls the stream until `ok` holds; resolves with the answer and how long it took. */
async function healthUntil(
  streamId: string,
  ok: (h: Health) => boolean,
  timeoutMs: number,
  what: string
): Promise<{ h: Health; ms: number }> {
  const t0 = Date.now()
  const h = await waitFor(
    async () => {
      const x = await health(streamId)
      return ok(x) ? x : undefined
    },
    timeoutMs,
    what,
    100
  )
  return { h, ms: Date.now() - t0 }
}

describe('the source is recorded whatever the ladder does', () => {
  it('kill -9 of the transcoder at 7 s of 24: the source is whole, the renditions resume, the health says so', async () => {
    const stream = await calls.createStream({
      name: 'ladder killed',
      record: true,
      profiles: LADDER
    })
    const pushed = 24
    const t0 = Date.now()
    const push = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, {
      seconds: pushed,
      width: 640,
      height: 360
    })
    const session = await waitFor(async () => (await calls.sessionsOf(stream.id))[0], 15_000)
    const run0 = join(media, session.id, 'run0')
    // The ladder is making its renditions, and the stream is healthy.
    await waitFor(async () => (await segments(join(run0, 'v0', 'index.m3u8'))) >= 1, 20_000)
    expect(await health(stream.id)).toEqual({ isHealthy: true, issues: [] })
    await waitFor(async () => Date.now() - t0 >= 7000, 10_000, 'the 7 s mark', 50)
    const [ladder, ...others] = processesWith('-var_stream_map', run0)
    expect(ladder).toBeDefined()
    expect(others).toEqual([])
    // The source recorder is another process, and it outlives the ladder.
    const [recorder] = processesWith(join(run0, 'source', 'index.m3u8'))
    expect(recorder).toBeDefined()
    const before = await Promise.all(
      LADDER.map((_, i) => segments(join(run0, `v${i}`, 'index.m3u8')))
    )

    const killedAt = Date.now()
    process.kill(ladder!, 'SIGKILL')
    // The health says so soon (the bound is generous: how soon is the bench's business).
    const down = await healthUntil(stream.id, (h) => h.isHealthy === false, 10_000, 'unhealthy')
    expect(down.h.issues).toEqual(['Transcoding: the transcoder failed (killed by SIGKILL)'])
    // Restarted from the live source: healthy again, and every rendition's playlist goes on.
    await healthUntil(stream.id, (h) => h.isHealthy === true, 15_000, 'healthy again')
    expect((await health(stream.id)).issues).toEqual([])
    // The same in Livepeer's health conditions: Transcoding went false and back to true, and the
    // verdict is healthy once the new attempt's pace is measured.
    const report = await waitFor(
      async () => {
        const r = (
          await api<HealthReport>(studio, studio.apiKey, 'GET', `/data/stream/${stream.id}/health`)
        ).body
        return r.healthy.status === true ? r : undefined
      },
      10_000,
      'a healthy report'
    )
    const transcoding = report.conditions.find((c) => c.type === 'Transcoding')!
    expect(transcoding.status).toBe(true)
    expect(transcoding.lastTransitionTime).toBeGreaterThan(killedAt)
    await waitFor(
      async () => {
        const now = await Promise.all(
          LADDER.map((_, i) => segments(join(run0, `v${i}`, 'index.m3u8')))
        )
        return now.every((n, i) => n > before[i]!)
      },
      15_000,
      'the renditions to resume'
    )
    expect(processesWith(join(run0, 'source', 'index.m3u8'))).toEqual([recorder])
    expect(await push.done).toBe(0)

    const done = await calls.finished(stream.id, 60_000)
    expect(done.recordingStatus).toBe('ready')
    expect((await calls.sessionsOf(stream.id)).map((s) => s.id)).toEqual([session.id])
    const rec = `${base()}/recordings/${done.id}`
    // The master lists the source beside the renditions, the source first.
    const master = await (await fetch(`${rec}/index.m3u8`)).text()
    expect(master.split('\n').filter((l) => l.endsWith('.m3u8'))).toEqual([
      'source.m3u8',
      'v0.m3u8',
      'v1.m3u8',
      'v2.m3u8'
    ])
    // The source covers at least 90 % of what was pushed, in one piece.
    const source = await ffprobe(`${rec}/source.m3u8`)
    expect(source.duration).toBeGreaterThanOrEqual(pushed * 0.9)
    expect(await (await fetch(`${rec}/source.m3u8`)).text()).not.toContain('DISCONTINUITY')
    expect((await decodeAll(`${rec}/source.m3u8`)).ok).toBe(true)
    // Each rendition marks its gap and plays.
    for (const i of [0, 1, 2]) {
      const vod = await (await fetch(`${rec}/v${i}.m3u8`)).text()
      expect(vod).toContain('#EXT-X-DISCONTINUITY')
      expect((await decodeAll(`${rec}/v${i}.m3u8`, false)).ok).toBe(true)
    }
    expect((await decodeAll(done.recordingUrl!, false)).ok).toBe(true)
    expect(done.sourceSegmentsDuration).toBeGreaterThanOrEqual(pushed * 0.9)
    // The MP4 is the source: its size, its whole length.
    const mp4 = await ffprobe(done.mp4Url!)
    expect(mp4.streams.find((s) => s.codec_type === 'video')).toMatchObject({
      width: 640,
      height: 360
    })
    expect(mp4.duration).toBeGreaterThanOrEqual(pushed * 0.9)
    // Every rendition as an MP4 for a download menu, listed as the reference lists its static
    // MP4s: the HLS first, then the source, then the ladder.
    const pb = await api<{
      type: string
      meta: { source: Array<{ hrn: string; url: string; size?: number; width?: number }> }
    }>(studio, undefined, 'GET', `/playback/${done.id}`)
    expect(pb.body.type).toBe('recording')
    expect(pb.body.meta.source.map((x) => [x.hrn, x.url.split('/').pop(), x.width])).toEqual([
      ['HLS (TS)', 'index.m3u8', undefined],
      ['MP4', 'recording.mp4', 640],
      ['MP4', 'v0.mp4', 640],
      ['MP4', 'v1.mp4', 426],
      ['MP4', 'v2.mp4', 320]
    ])
    for (const x of pb.body.meta.source.slice(1)) expect(x.size).toBeGreaterThan(0)
    const small = await ffprobe(pb.body.meta.source[4]!.url)
    expect(small.streams.find((x) => x.codec_type === 'video')).toMatchObject({ width: 320 })
  }, 150_000)

  it('a profile no encoder makes, forced into the database: the source is whole, the cause is reported', async () => {
    const stream = await calls.createStream({ name: 'impossible', record: true, profiles: LADDER })
    // Past the API's rules (which refuse it with 422): straight into SQLite, as an older build or
    // a hand edit could have left it.
    const db = new Database(join(studio.dataDir, 'studio.db'))
    db.prepare(`UPDATE streams SET doc = json_set(doc, '$.profiles', json(?)) WHERE id = ?`).run(
      JSON.stringify([{ ...LADDER[0], width: 99999 }, LADDER[1]]),
      stream.id
    )
    db.close()
    const pushed = 12
    const push = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, {
      seconds: pushed,
      width: 640,
      height: 360
    })
    await waitFor(
      async () =>
        (await api<{ isActive: boolean }>(studio, studio.apiKey, 'GET', `/stream/${stream.id}`))
          .body.isActive,
      15_000,
      'the stream to go live',
      50
    )
    // The health says so soon (the bound is generous: how soon is the bench's business).
    const down = await healthUntil(stream.id, (h) => h.isHealthy === false, 10_000, 'unhealthy')
    expect(down.h.issues).toEqual([
      'Transcoding: the transcoder failed (width 99999 is more than 4096)'
    ])
    const report = (
      await api<HealthReport>(studio, studio.apiKey, 'GET', `/data/stream/${stream.id}/health`)
    ).body
    expect(report.id).toBe(stream.id)
    expect(report.healthy.status).toBe(false)
    expect(report.conditions.map((c) => [c.type, c.status])).toEqual([
      ['Transcoding', false],
      ['TranscodeRealTime', null],
      ['Multistreaming', null]
    ])
    // Viewers (and the app's live monitor) get the source meanwhile: the live master lists it.
    const live = await waitFor(
      async () => {
        // As Onair's monitor asks for it: a viewer's copy names its session on each URI.
        const r = await fetch(`${base()}/hls/${stream.playbackId}/index.m3u8?onair=monitor`)
        return r.status === 200 ? r.text() : undefined
      },
      15_000,
      'the live master'
    )
    expect(live.split('\n').filter((l) => l.endsWith('.m3u8'))).toEqual([
      expect.stringMatching(/^[0-9a-f]{10}\/source\/index\.m3u8$/)
    ])
    expect(await push.done).toBe(0)

    const done = await calls.finished(stream.id, 60_000)
    expect(done.recordingStatus).toBe('ready')
    // Not live: no verdict, as the reference.
    expect(await health(stream.id)).toEqual({ isHealthy: null, issues: null })
    const after = (
      await api<HealthReport>(studio, studio.apiKey, 'GET', `/data/stream/${stream.id}/health`)
    ).body
    expect(after.healthy.status).toBeNull()
    const rec = `${base()}/recordings/${done.id}`
    const master = await (await fetch(`${rec}/index.m3u8`)).text()
    expect(master.split('\n').filter((l) => l.endsWith('.m3u8'))).toEqual(['source.m3u8'])
    expect((await ffprobe(`${rec}/source.m3u8`)).duration).toBeGreaterThanOrEqual(pushed * 0.9)
    expect((await decodeAll(done.recordingUrl!)).ok).toBe(true)
    expect((await ffprobe(done.mp4Url!)).duration).toBeGreaterThanOrEqual(pushed * 0.9)
  }, 120_000)
})

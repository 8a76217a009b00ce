// The source recorder (the one ffmpeg of a stream without profiles) that crashes while the publisher
// is still live is supervised: it is started again from the live ingest after its backoff, appending
// to the same run's playlist after a discontinuity, and the publisher never notices. The recording
// holds both attempts and plays. Real ffmpegs, real RTMP; the crash is a SIGKILL. (The ladder's own
// crash is source-recording.test.ts.)
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
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

beforeAll(async () => {
  studio = await startTestStudio()
  calls = studioCalls(studio)
})
afterAll(async () => {
  await studio?.cleanup()
})

describe('transcoder supervision', () => {
  it('restarts a killed source recorder in the same run while the publisher goes on', async () => {
    const stream = await calls.createStream({ name: 'crashing transcoder', record: true })
    const pushed = 20
    const push = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, {
      seconds: pushed,
      width: 640,
      height: 360
    })
    const session = await waitFor(async () => {
      const s = (await calls.sessionsOf(stream.id))[0]
      return s && s.sourceSegmentsDuration > 3 ? s : undefined
    }, 20_000)
    const media = join(studio.dataDir, 'media', session.id)
    const [transcoder, ...others] = processesWith('-hls_segment_filename', join(media, 'run0'))
    expect(transcoder).toBeDefined()
    expect(others).toEqual([])

    process.kill(transcoder!, 'SIGKILL')
    const playlist = join(media, 'run0', 'source', 'index.m3u8')
    await waitFor(
      async () => (await readFile(playlist, 'utf8')).includes('#EXT-X-DISCONTINUITY'),
      15_000,
      'the restart to append to the playlist'
    )
    expect(studio.logLines().some((l) => l.includes('source recorder of session'))).toBe(true)
    // A restart is not a new run.
    expect(existsSync(join(media, 'run1'))).toBe(false)
    // The publisher never noticed: its push ends in order.
    expect(await push.done).toBe(0)

    const done = await calls.finished(stream.id, 60_000)
    expect((await calls.sessionsOf(stream.id)).map((s) => s.id)).toEqual([session.id])
    expect(done.recordingStatus).toBe('ready')
    const vod = await (
      await fetch(`${studio.apiUrl.replace(/\/api$/, '')}/recordings/${done.id}/source.m3u8`)
    ).text()
    expect(vod).toContain('run0/source/')
    expect(vod).toContain('#EXT-X-DISCONTINUITY')
    expect((await decodeAll(done.recordingUrl!, false)).ok).toBe(true)
    // Only the restart's gap (its backoff and a new pull) is missing.
    const duration = (await ffprobe(done.recordingUrl!)).duration
    expect(duration).toBeGreaterThan(pushed - 8)
    expect(duration).toBeLessThan(pushed + 2)
    expect(done.sourceSegmentsDuration).toBeGreaterThan(pushed - 8)
  }, 120_000)
})

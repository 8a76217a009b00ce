// Each rendition of a recording saved as an MP4: a real local studio serving a real recording (made by
// ffmpeg: two renditions under one master playlist), the session read through the studio's API as the
// core sees it, and the rendition remuxed by a real ffmpeg, then probed.
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApiSession } from '../../../src/main/core/view-models'
import { RenditionDownloads } from '../../../src/main/core/rendition-downloads'
import { toSessionView } from '../../../src/main/core/view-models'
import type { SessionView } from '../../../src/shared/contract'
import { failure } from '../../helpers/failure'
import {
  FIXTURE_RENDITIONS,
  FIXTURE_SECONDS,
  writeRecording
} from '../../helpers/recording-fixture'
import { seedSessions } from '../../helpers/seed-sessions'
import {
  api,
  decodeAll,
  ffprobe,
  startTestStudio,
  studioCalls,
  testFfmpeg,
  type TestStudio
} from '../../helpers/studio'

describe('rendition downloads', () => {
  let studio: TestStudio
  let out: string
  let session: SessionView
  const downloads = new RenditionDownloads({ ffmpeg: testFfmpeg })

  beforeAll(async () => {
    studio = await startTestStudio()
    out = await mkdtemp(join(tmpdir(), 'onair-renditions-'))
    const { streamId } = await seedSessions(studio.dataDir, studio.apiKey, 1, {
      streamName: 'Rendition show'
    })
    const [seeded] = await studioCalls(studio).sessionsOf(streamId)
    writeRecording(join(studio.dataDir, 'media', seeded!.id))
    session = toSessionView(
      (await api<ApiSession>(studio, studio.apiKey, 'GET', `/session/${seeded!.id}`)).body
    )
  }, 60_000)
  afterAll(async () => {
    await studio?.cleanup()
    await rm(out, { recursive: true, force: true })
  })

  it('saves the 320x180 rendition as an MP4 that plays whole, named after the stream and the rendition', async () => {
    expect(session.recordingStatus).toBe('ready')
    const small = new URL('v1.m3u8', session.recordingUrl).href
    const d = await downloads.prepare(session, small)
    expect(d).toMatchObject({ url: small, format: 'hls' })
    expect(d.filename).toMatch(/^Rendition show \d{4}-\d{2}-\d{2} \d{2}\.\d{2} 180p\.mp4$/)
    const file = join(out, d.filename)
    await downloads.save(d.url, file)
    const probed = await ffprobe(file)
    const video = probed.streams.find((s) => s.codec_type === 'video')
    expect(video).toMatchObject({ width: FIXTURE_RENDITIONS[1].width, height: 180 })
    expect(probed.streams.map((s) => s.codec_type).sort()).toEqual(['audio', 'video'])
    expect(probed.duration).toBeGreaterThan(FIXTURE_SECONDS - 0.5)
    expect((await decodeAll(file)).ok).toBe(true)
    // Written beside the file first: nothing half-made is left.
    expect(await readdir(out)).toEqual([d.filename])
  }, 60_000)

  it("refuses a playlist that is not one of the recording's renditions, and never fetches one it did not name", async () => {
    const e = await failure(downloads.prepare(session, 'http://127.0.0.1:9/elsewhere.m3u8'))
    expect(e).toMatchObject({ code: 'bad-request', field: 'rendition' })
    const never = await failure(
      new RenditionDownloads({ ffmpeg: testFfmpeg }).save(
        new URL('v0.m3u8', session.recordingUrl).href,
        join(out, 'x.mp4')
      )
    )
    expect(never.code).toBe('bad-request')
    const none = await failure(
      downloads.prepare({ ...session, recordingStatus: 'waiting' }, session.recordingUrl!)
    )
    expect(none.code).toBe('not-found')
  })

  it('a rendition that cannot be read fails with a named error and leaves no file', async () => {
    const d = await downloads.prepare(session, new URL('v0.m3u8', session.recordingUrl).href)
    // Gone between the listing and the save (the session deleted meanwhile): ffmpeg gets a 404.
    await rm(join(studio.dataDir, 'media', session.id, 'v0.m3u8'))
    const e = await failure(downloads.save(d.url, join(out, 'broken.mp4')))
    expect(e.code).toBe('ffmpeg-failed')
    expect(e.message).toMatch(/^The rendition could not be saved as MP4: /)
    expect((await readdir(out)).filter((f) => f.startsWith('broken'))).toEqual([])
  }, 60_000)
})

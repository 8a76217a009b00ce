// The automatic upload (#35): with the creator's switch on, a finished local copy is watched until
// the service's recording of its session is final, then compared; a short recording has the full
// copy uploaded by itself (it becomes a ready asset as long as the copy). Nothing happens with the
// switch off, nor when the recording is whole. Real studio, real sessions and recordings, real tus.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiClient } from '../../../src/main/core/api-client'
import type { ActiveService } from '../../../src/main/core/connections'
import { LocalRecordings } from '../../../src/main/core/local-recording/recordings'
import { uploadCalls } from '../../../src/main/core/uploads/publish'
import type { LocalRecordingView } from '../../../src/shared/contract'
import type { UploadSettings } from '../../../src/shared/uploads'
import { openDb } from '../../../src/studio/db'
import { FIXTURE_SECONDS, writeRecording } from '../../helpers/recording-fixture'
import { seedSessions } from '../../helpers/seed-sessions'
import {
  ffprobe,
  makeMediaFile,
  startTestStudio,
  studioCalls,
  testFfmpeg,
  waitFor,
  type StudioSession,
  type TestStudio
} from '../../helpers/studio'

const SHORT_COPY_SECONDS = 12

let studio: TestStudio
let tmp: string
let calls: ReturnType<typeof uploadCalls>
let settings: UploadSettings = { autoUploadFullCopy: false }
let asked = 0
const copies: Record<'short' | 'whole', { copy: LocalRecordingView; sessionId: string }> =
  {} as never

/** A seeded session of its own stream, its recording FIXTURE_SECONDS long, and a local copy of it. */
async function broadcast(
  name: string,
  copySeconds: number,
  recordings: (now: number) => LocalRecordings
): Promise<{ copy: LocalRecordingView; sessionId: string }> {
  const { streamId } = await seedSessions(studio.dataDir, studio.apiKey, 1, { streamName: name })
  const [seeded] = (await studioCalls(studio).sessionsOf(streamId)) as (StudioSession & {
    createdAt: number
  })[]
  writeRecording(join(studio.dataDir, 'media', seeded!.id))
  const mkv = makeMediaFile(join(tmp, `${name}.mkv`), [
    ...['-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=30'],
    ...['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000'],
    ...['-t', String(copySeconds), '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '30'],
    ...['-pix_fmt', 'yuv420p', '-c:a', 'aac', '-f', 'matroska']
  ])
  const rec = recordings(seeded!.createdAt).begin({
    runId: `run-${name}`,
    streamId,
    streamName: name
  })
  rec.write(await readFile(mkv))
  await rec.finish()
  return { copy: rec.view, sessionId: seeded!.id }
}

/** The session's recording status, set in the studio's store (as its recorder would). */
function setRecordingStatus(sessionId: string, status: string): void {
  const db = openDb(resolve(studio.dataDir))
  try {
    db.prepare('UPDATE sessions SET recording_status = ? WHERE id = ?').run(status, sessionId)
  } finally {
    db.close()
  }
}

beforeAll(async () => {
  studio = await startTestStudio()
  tmp = await mkdtemp(join(tmpdir(), 'onair-auto-upload-'))
  let now = Date.now()
  const recordings = new LocalRecordings({
    appDataDir: join(tmp, 'app'),
    folder: () => join(tmp, 'Videos'),
    ffmpeg: testFfmpeg,
    now: () => now
  })
  const at = (t: number): LocalRecordings => ((now = t), recordings)
  copies.short = await broadcast('Short show', SHORT_COPY_SECONDS, at)
  copies.whole = await broadcast('Whole show', FIXTURE_SECONDS, at)
  const client = new ApiClient({ baseUrl: studio.apiUrl, apiKey: studio.apiKey })
  const active = async (): Promise<ActiveService> => {
    asked++
    return {
      conn: { id: 'local', kind: 'local', name: 'Local studio', baseUrl: studio.apiUrl },
      client,
      ingest: { rtmp: studio.rtmpUrl, playbackBase: '' }
    }
  }
  calls = uploadCalls({
    appDataDir: join(tmp, 'app'),
    active,
    recordings,
    emit: () => undefined,
    settings: { get: () => settings, set: (u) => (settings = u) },
    autoPollMs: 200
  })
}, 120_000)
afterAll(async () => {
  await calls?.stop()
  await studio?.cleanup()
  if (tmp) await rm(tmp, { recursive: true, force: true })
})

describe('the automatic upload', () => {
  it('is off by default, and does nothing then, even for a short recording', async () => {
    expect((await calls.calls.getUploadSettings()).autoUploadFullCopy).toBe(false)
    expect((await calls.calls.checkRecording(copies.short.sessionId)).verdict.kind).toBe('short')
    expect(await calls.copyChanged(copies.short.copy)).toBe('off')
    expect(await calls.calls.listUploads()).toEqual([])
  })

  it('does nothing when the recording is whole', async () => {
    await calls.calls.setUploadSettings({ autoUploadFullCopy: true })
    expect((await calls.calls.getUploadSettings()).autoUploadFullCopy).toBe(true)
    expect(await calls.copyChanged(copies.whole.copy)).toBe('complete')
    expect(await calls.calls.listUploads()).toEqual([])
  })

  it('waits for the recording to be final, then uploads the full copy of a short one', async () => {
    // The service is still making the recording: nothing is decided until it is ready.
    setRecordingStatus(copies.short.sessionId, 'waiting')
    const before = asked
    const decided = calls.copyChanged(copies.short.copy)
    await waitFor(async () => asked >= before + 4, 30_000, 'the session to be asked about again')
    expect(await calls.calls.listUploads()).toEqual([])
    setRecordingStatus(copies.short.sessionId, 'ready')
    expect(await decided).toBe('uploaded')

    const [up] = await calls.calls.listUploads()
    expect(up?.sessionId).toBe(copies.short.sessionId)
    const ready = await waitFor(
      async () => {
        const v = (await calls.calls.listUploads()).find((x) => x.id === up!.id)
        if (v?.state === 'failed') throw new Error(`failed: ${JSON.stringify(v.error)}`)
        return v?.state === 'ready' && v
      },
      60_000,
      'the upload to be ready'
    )
    const played = await ffprobe(ready.playbackUrl!)
    expect(Math.abs(played.duration - SHORT_COPY_SECONDS)).toBeLessThan(0.5)
    // Once per copy: the same copy again starts no second upload.
    expect(await calls.copyChanged(copies.short.copy)).toBe('already-watched')
    expect(await calls.calls.listUploads()).toHaveLength(1)
  }, 90_000)
})

// The contract's upload calls (#35) on a real studio and a real local copy: a session whose service
// recording plays 4 s while its local copy plays 12 s is called short (the length read from the
// recording's playlist, not the session's count); "Upload the full copy" sends the local copy as
// an asset that becomes ready and plays 12 s. Only Onair's own copies can be sent.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiClient } from '../../../src/main/core/api-client'
import type { ActiveService } from '../../../src/main/core/connections'
import { LocalRecordings } from '../../../src/main/core/local-recording/recordings'
import { uploadCalls } from '../../../src/main/core/uploads/publish'
import { toSessionView, type ApiSession } from '../../../src/main/core/view-models'
import type { SessionView } from '../../../src/shared/contract'
import type { UploadView } from '../../../src/shared/uploads'
import { FIXTURE_SECONDS, writeRecording } from '../../helpers/recording-fixture'
import { seedSessions } from '../../helpers/seed-sessions'
import {
  api,
  ffprobe,
  makeMediaFile,
  startTestStudio,
  studioCalls,
  testFfmpeg,
  waitFor,
  type TestStudio
} from '../../helpers/studio'

const COPY_SECONDS = 12

let studio: TestStudio
let tmp: string
let session: SessionView
let recordings: LocalRecordings
let copyId: string
let calls: ReturnType<typeof uploadCalls>
const events: UploadView[] = []

beforeAll(async () => {
  studio = await startTestStudio()
  tmp = await mkdtemp(join(tmpdir(), 'onair-upload-calls-'))
  const { streamId } = await seedSessions(studio.dataDir, studio.apiKey, 1, {
    streamName: 'Cut show'
  })
  const [seeded] = await studioCalls(studio).sessionsOf(streamId)
  writeRecording(join(studio.dataDir, 'media', seeded!.id))
  session = toSessionView(
    (await api<ApiSession>(studio, studio.apiKey, 'GET', `/session/${seeded!.id}`)).body
  )
  // The local copy of that broadcast, 12 s, written as main writes a camera run's Matroska.
  const mkv = makeMediaFile(join(tmp, 'page.mkv'), [
    ...['-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=30'],
    ...['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000'],
    ...['-t', String(COPY_SECONDS), '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '30'],
    ...['-pix_fmt', 'yuv420p', '-c:a', 'aac', '-f', 'matroska']
  ])
  recordings = new LocalRecordings({
    appDataDir: join(tmp, 'app'),
    folder: () => join(tmp, 'Videos'),
    ffmpeg: testFfmpeg,
    now: () => session.createdAt
  })
  const rec = recordings.begin({ runId: 'run-1', streamId, streamName: 'Cut show' })
  rec.write(await readFile(mkv))
  await rec.finish()
  copyId = rec.view.id
  const client = new ApiClient({ baseUrl: studio.apiUrl, apiKey: studio.apiKey })
  const active = async (): Promise<ActiveService> => ({
    conn: { id: 'local', kind: 'local', name: 'Local studio', baseUrl: studio.apiUrl },
    client,
    ingest: { rtmp: studio.rtmpUrl, playbackBase: '' }
  })
  calls = uploadCalls({
    appDataDir: join(tmp, 'app'),
    active,
    recordings,
    emit: (v) => events.push(v),
    settings: { get: () => ({ autoUploadFullCopy: false }), set: (u) => u }
  })
}, 120_000)
afterAll(async () => {
  await calls?.stop()
  await studio?.cleanup()
  if (tmp) await rm(tmp, { recursive: true, force: true })
})

describe('checkRecording', () => {
  it('calls the service recording short by what its playlist plays, against the local copy', async () => {
    expect(session.recordingStatus).toBe('ready')
    const check = await calls.calls.checkRecording(session.id)
    expect(check.service).toBe('Local studio')
    expect(check.localRecordingId).toBe(copyId)
    expect(check.verdict.kind).toBe('short')
    if (check.verdict.kind !== 'short') return
    expect(Math.abs(check.verdict.recordedSec - FIXTURE_SECONDS)).toBeLessThan(0.5)
    expect(Math.abs(check.verdict.localSec - COPY_SECONDS)).toBeLessThan(0.5)
  })
})

describe('publishLocalCopy', () => {
  it('uploads the full copy as an asset that becomes ready and plays as long as the copy', async () => {
    const up = await calls.calls.publishLocalCopy({
      localRecordingId: copyId,
      sessionId: session.id
    })
    expect(up.sessionId).toBe(session.id)
    expect(up.name).toMatch(/^Cut show \d{4}-\d{2}-\d{2} \d{2}\.\d{2}\.mp4$/)
    const ready = await waitFor(
      async () => {
        const v = (await calls.calls.listUploads()).find((x) => x.id === up.id)
        if (v?.state === 'failed') throw new Error(`failed: ${JSON.stringify(v.error)}`)
        return v?.state === 'ready' && v
      },
      60_000,
      'the upload to be ready'
    )
    expect(events.some((e) => e.id === up.id && e.state === 'processing')).toBe(true)
    const played = await ffprobe(ready.playbackUrl!)
    expect(Math.abs(played.duration - COPY_SECONDS)).toBeLessThan(0.5)
    await calls.calls.dismissUpload(up.id)
    expect((await calls.calls.listUploads()).map((v) => v.id)).not.toContain(up.id)
  }, 90_000)

  it('refuses what is not one of Onair’s local copies', async () => {
    await expect(
      calls.calls.publishLocalCopy({ localRecordingId: '/etc/passwd' })
    ).rejects.toMatchObject({ error: { code: 'not-found' } })
    await expect(calls.calls.pauseUpload('nope')).rejects.toMatchObject({
      error: { code: 'not-found' }
    })
  })
})

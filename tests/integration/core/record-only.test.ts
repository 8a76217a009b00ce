// Record without going live (#34 §2) through the core (no Electron), with the real parts: raw I420
// frames and a tone (packRaw) go by core.pushFrames(recordingId) into Onair's encoder process, whose
// Matroska is written to the Record on this computer folder and finished into an MP4.
// - 5 s recorded with no stream: a finished MP4 of about 5 s holding the frames sent; no stream was
//   made on the service, no live run and no broadcaster ffmpeg were started.
// - Recording, then Go live mid-way (with Record on this computer on), stop live, go on, stop the
//   recording: one file (the live run makes no copy of its own), continuous (no gap over 0.5 s in its
//   video packets), as long as the whole recording.
import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCore, type Core } from '../../../src/main/core/core'
import { resolveFfprobe } from '../../../src/node/ffmpeg/locate'
import { trackedChildren } from '../../../src/node/process'
import type { LocalRecordingView } from '../../../src/shared/contract'
import { testFfmpeg } from '../../helpers/studio'
import { waitUntil } from '../../helpers/wait-until'
import { ffmpegChildren } from './live-helpers'
import { RAW_SOURCE, X264_OUTPUT, largestGap, packetTimes, rawFeeder } from './raw-media'
import { NO_KEYCHAIN, useSecretService } from './secret-service'

const run = promisify(execFile)
const ss = await useSecretService()
const service = `onair-test-${randomUUID().slice(0, 8)}`

const OUTPUT = X264_OUTPUT
const SOURCE = RAW_SOURCE

/** The number of video frames and the seconds an MP4 plays, by ffprobe. */
async function probe(file: string): Promise<{ frames: number; seconds: number }> {
  const { stdout } = await run(resolveFfprobe(), [
    '-v',
    'error',
    '-select_streams',
    'v:0',
    '-count_packets',
    '-show_entries',
    'stream=nb_read_packets:format=duration',
    '-of',
    'json',
    file
  ])
  const j = JSON.parse(stdout) as {
    streams: { nb_read_packets: string }[]
    format: { duration: string }
  }
  return { frames: Number(j.streams[0]!.nb_read_packets), seconds: Number(j.format.duration) }
}

if (!ss.ok && process.env.ONAIR_ALLOW_NO_KEYCHAIN === '1') {
  it.skip(`record-only core tests skipped: ${ss.reason}`, () => {})
} else if (!ss.ok) {
  it('needs a Secret Service', () => {
    throw new Error(NO_KEYCHAIN(ss.reason))
  })
} else {
  describe('record without going live, through the core', () => {
    let dir: string
    let core: Core
    const copies: LocalRecordingView[] = []
    /** The index's latest view of each copy. */
    const latest = (): Map<string, LocalRecordingView> =>
      new Map(copies.map((c) => [c.id, c] as const))
    const saved = async (id: string): Promise<LocalRecordingView> => {
      await waitUntil(() => latest().get(id)?.state === 'saved', `recording ${id} saved`, 60_000)
      return latest().get(id)!
    }

    beforeAll(async () => {
      testFfmpeg()
      dir = await mkdtemp(join(tmpdir(), 'onair-record-'))
      core = await createCore({
        appDataDir: join(dir, 'app'),
        shell: 'web',
        appVersion: '0.0.0-test',
        keychainService: service,
        recordingsDir: join(dir, 'Videos'),
        broadcast: { backoff: { initialMs: 300, capMs: 1500 }, preset: 'ultrafast' }
      })
      core.events.on('live:local-recording', (v) => copies.push(v))
    }, 60_000)
    afterAll(async () => {
      await core?.shutdown()
      expect(trackedChildren().filter((c) => c.kind === 'encoder')).toEqual([])
      if (dir) await rm(dir, { recursive: true, force: true })
    })

    it('records 5 s into a finished MP4, with no stream and no RTMP', async () => {
      const t0 = Date.now()
      const { recordingId, encoder } = await core.startRecording({ source: SOURCE, output: OUTPUT })
      expect(encoder.kind).toBe('app')
      const feed = rawFeeder((b) => core.pushFrames(recordingId, b), OUTPUT)
      await waitUntil(() => feed.sent() >= 5 * OUTPUT.fps, '5 s of frames sent', 20_000)
      // No live run and no broadcaster ffmpeg while it records.
      expect(await core.liveStatus()).toBeNull()
      expect(await ffmpegChildren()).toEqual([])
      feed.stop()
      await feed.done
      expect(feed.errors).toEqual([])
      await core.stopRecording(recordingId)
      const v = await saved(recordingId)
      expect(v.streamId).toBe('')
      expect(v.file).toMatch(/\.mp4$/)
      expect(v.startedAt).toBeGreaterThanOrEqual(t0)
      expect(existsSync(v.file)).toBe(true)
      const p = await probe(v.file)
      const sentSec = feed.sent() / OUTPUT.fps
      expect(
        Math.abs(p.frames - feed.sent()),
        `${p.frames} frames of ${feed.sent()}`
      ).toBeLessThanOrEqual(5)
      expect(Math.abs(p.seconds - sentSec), `plays ${p.seconds} s of ${sentSec}`).toBeLessThan(0.5)
      expect(Math.abs(v.durationSec! - sentSec)).toBeLessThan(0.5)
      // Nothing went to the service: no stream was made.
      expect((await core.listStreams({})).items).toEqual([])
    }, 90_000)

    it('keeps one continuous file through going live and stopping live', async () => {
      const before = new Set(latest().keys())
      const { recordingId } = await core.startRecording({ source: SOURCE, output: OUTPUT })
      let liveId: string | null = null
      const feed = rawFeeder(async (b) => {
        await core.pushFrames(recordingId, b)
        const l = liveId
        if (l) await core.pushFrames(l, b)
      }, OUTPUT)
      await waitUntil(() => feed.sent() >= 2 * OUTPUT.fps, '2 s recorded', 20_000)
      const stream = await core.createStream({
        name: 'record then live',
        profiles: [],
        record: false
      })
      const started = await core.goLive({
        streamId: stream.id,
        source: SOURCE,
        output: OUTPUT,
        recordLocally: true
      })
      expect(started.encoder.kind).toBe('app')
      liveId = started.runId
      await waitUntil(
        async () => (await core.liveStatus())?.state === 'live',
        'the run live',
        30_000
      )
      const atLive = feed.sent()
      await waitUntil(
        () => feed.sent() >= atLive + 2 * OUTPUT.fps,
        '2 s recorded while live',
        20_000
      )
      liveId = null
      await core.stopLive(started.runId)
      const atStop = feed.sent()
      await waitUntil(() => feed.sent() >= atStop + 2 * OUTPUT.fps, '2 s more recorded', 20_000)
      feed.stop()
      await feed.done
      expect(feed.errors).toEqual([])
      await core.stopRecording(recordingId)
      const v = await saved(recordingId)
      // One file: the live run made no copy of its own.
      expect([...latest().keys()].filter((id) => !before.has(id))).toEqual([recordingId])
      const times = await packetTimes(v.file, 'v')
      expect(largestGap(times)).toBeLessThan(0.5)
      const sentSec = feed.sent() / OUTPUT.fps
      const p = await probe(v.file)
      expect(Math.abs(p.seconds - sentSec), `plays ${p.seconds} s of ${sentSec}`).toBeLessThan(0.5)
      expect(Math.abs(p.frames - feed.sent())).toBeLessThanOrEqual(5)
    }, 120_000)
  })
}

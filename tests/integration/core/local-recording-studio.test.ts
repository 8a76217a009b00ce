// Record on this computer while live (issue 18 §3), with a local studio in this process: its RTMP
// ingest, ffmpeg, and a tmpfs that fills up.
// - The ingest goes away for 5 s mid-run: the broadcast reconnects, the file has no gap.
// - The folder's disk fills up: the file stops with the named error disk-full, the broadcast stays live.
// - The saved MP4 is a file an editor takes (issue 32 §4, local-copy-checks.ts): AAC sound, the
//   output's frame rate in its header, and not one error from a full decode; the page's own Matroska
//   (tests/fixtures/core/page-camera-22s.mkv, written by the app's page encoder in Chromium: WebCodecs
//   H.264 + Opus muxed by mediabunny, the page's muxer when it was made; frame times as the camera gave
//   them) is its input.
// What it asserts is in media time, not wall time: it runs beside other files. The app killed while
// live: local-recording.test.ts.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiClient } from '../../../src/main/core/api-client'
import { Broadcaster } from '../../../src/main/core/broadcaster'
import { LocalRecordings } from '../../../src/main/core/local-recording/recordings'
import { resolveFfmpeg } from '../../../src/node/ffmpeg/locate'
import type {
  LiveHealthEvent,
  LiveStateEvent,
  LocalRecordingView
} from '../../../src/shared/contract'
import { decodeAll, startTestStudio, waitFor, type TestStudio } from '../../helpers/studio'
import { waitUntil } from '../../helpers/wait-until'
import { expectEditorReady } from './local-copy-checks'
import { largestGap, packetTimes } from './raw-media'
import { FAST, feedPaced, ffmpegChildren, makeCameraFile, OUTPUT } from './live-helpers'

let dir: string
let camera: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'onair-localrec-studio-'))
  camera = makeCameraFile(dir, 30)
})
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

/** The page's own Matroska: 22 s of 1280x720 30 fps H.264 + Opus from WebCodecs, muxed by mediabunny. */
const PAGE_CAMERA = join(__dirname, '../../fixtures/core/page-camera-22s.mkv')

describe('with a studio in this process', () => {
  let studio: TestStudio
  let client: ApiClient
  beforeAll(async () => {
    studio = await startTestStudio({ resumeWindowMs: 10_000 })
    client = new ApiClient({ baseUrl: studio.apiUrl, apiKey: studio.apiKey })
  })
  afterAll(async () => {
    await studio?.cleanup()
  })

  function recorder(folder: string) {
    const states: LiveStateEvent[] = []
    const health: LiveHealthEvent[] = []
    const views: LocalRecordingView[] = []
    const recordings = new LocalRecordings({
      appDataDir: join(folder, '..', 'app data'),
      folder: () => folder,
      ffmpeg: () => resolveFfmpeg().path,
      emit: (v) => views.push(v)
    })
    const b = new Broadcaster({
      tuning: FAST,
      recordings,
      onState: (s) => states.push(s),
      onHealth: (h) => health.push(h)
    })
    const seen = (want: string, after = 0): boolean =>
      states.slice(after).some((s) => s.state === want)
    return { b, states, health, views, recordings, seen }
  }

  /**
   * Live for about 3 s (three health events: one a second while live), then the ingest away until the
   * broadcaster has failed two reconnects and, on the camera path, 5 s more of media has reached the
   * file meanwhile; then live again for about 3 s more. Every step waits for what it names.
   */
  async function liveThroughOutage(
    r: ReturnType<typeof recorder>,
    pushedSeconds?: () => number
  ): Promise<void> {
    const { states, health, seen } = r
    const blocks = async (n: number, what: string): Promise<void> => {
      const from = health.length
      await waitUntil(() => health.length >= from + n, what, 30_000)
    }
    await waitUntil(() => seen('live'), 'live', 30_000)
    await blocks(3, '3 s live')
    const mark = states.length
    const cutAt = pushedSeconds?.() ?? 0
    await studio.stopIngest()
    try {
      await waitUntil(
        () =>
          states.slice(mark).some((x) => x.state === 'reconnecting' && (x.attempt ?? 0) >= 3) &&
          (pushedSeconds === undefined || pushedSeconds() >= cutAt + 5),
        'two failed reconnects (and 5 s of media pushed) while the ingest is away',
        30_000
      )
    } finally {
      await studio.startIngest()
    }
    await waitUntil(() => seen('live', mark), 'live again', 30_000)
    await blocks(3, '3 s more live')
  }

  it('goes on without a gap while the ingest is away for 5 s (camera path), then saves an MP4', async () => {
    const folder = join(dir, 'cut', 'Videos', 'Onair')
    const rec = recorder(folder)
    const { b, views, recordings } = rec
    const s = await client.createStream({ name: 'cut', profiles: [], record: false })
    const runId = b.start({
      args: {
        streamId: s.id!,
        source: { kind: 'media', mimeType: 'video/x-matroska;codecs=avc1,opus' },
        output: OUTPUT,
        recordLocally: true
      },
      streamName: s.name,
      streamKey: s.streamKey!,
      ingestRtmp: studio.rtmpUrl
    })
    const feed = feedPaced((c) => b.pushMedia(runId, c), camera, 30)
    await liveThroughOutage(rec, feed.pushedSeconds)
    feed.stop()
    await feed.done
    await b.stop(runId)
    await b.recordingSaved()
    expect(await ffmpegChildren()).toEqual([])

    const saved = recordings.get(runId)!
    expect(saved.state).toBe('saved')
    expect(saved.file).toMatch(/\.mp4$/)
    expect(views.map((v) => v.state)).toEqual(['recording', 'saved'])
    const v = await packetTimes(saved.file, 'v')
    const a = await packetTimes(saved.file, 'a')
    // 25 fps with a keyframe each second: consecutive frames 40 ms apart, none missing over the cut.
    expect(largestGap(v)).toBeLessThan(0.1)
    expect(largestGap(a)).toBeLessThan(0.1)
    expect(Math.max(...v) - Math.min(...v)).toBeGreaterThan(12)
    const decoded = await decodeAll(saved.file)
    expect(decoded.ok, decoded.stderr).toBe(true)
    await expectEditorReady(saved.file, OUTPUT.fps)
  })

  it("a camera copy from the page's own Matroska is saved as an MP4 an editor takes", async () => {
    const folder = join(dir, 'editor', 'Videos', 'Onair')
    const rec = recorder(folder)
    const { b, recordings, seen } = rec
    const s = await client.createStream({ name: 'editor', profiles: [], record: false })
    const output = { ...OUTPUT, width: 1280, height: 720, fps: 30 }
    const runId = b.start({
      args: {
        streamId: s.id!,
        source: { kind: 'media', mimeType: 'video/x-matroska;codecs=avc1,opus' },
        output,
        recordLocally: true
      },
      streamName: s.name,
      streamKey: s.streamKey!,
      ingestRtmp: studio.rtmpUrl
    })
    const feed = feedPaced((c) => b.pushMedia(runId, c), PAGE_CAMERA, 22)
    await waitUntil(() => seen('live'), 'live', 30_000)
    await feed.done
    await b.stop(runId)
    await b.recordingSaved()
    const saved = recordings.get(runId)!
    expect(saved.state).toBe('saved')
    await expectEditorReady(saved.file, output.fps)
    // Every picture is kept (a copy, never a second encode), sound and picture the same length.
    const v = await packetTimes(saved.file, 'v')
    const a = await packetTimes(saved.file, 'a')
    expect(v.length).toBe((await packetTimes(PAGE_CAMERA, 'v')).length)
    expect(Math.abs(Math.max(...v) - Math.max(...a))).toBeLessThan(0.2)
  })

  it('test pattern: each reconnect writes a new part (its ffmpeg is new); a clean stop joins them into one MP4', async () => {
    const folder = join(dir, 'cut-pattern', 'Videos', 'Onair')
    const rec = recorder(folder)
    const { b, recordings } = rec
    const s = await client.createStream({ name: 'cut pattern', profiles: [], record: false })
    const runId = b.start({
      args: {
        streamId: s.id!,
        source: { kind: 'test-pattern' },
        output: { ...OUTPUT, width: 320, height: 180 },
        recordLocally: true
      },
      streamName: s.name,
      streamKey: s.streamKey!,
      ingestRtmp: studio.rtmpUrl
    })
    await liveThroughOutage(rec)
    const during = recordings.get(runId)!
    expect(during.moreFiles?.length).toBeGreaterThanOrEqual(1)
    await b.stop(runId)
    await b.recordingSaved()
    const saved = recordings.get(runId)!
    expect(saved.state).toBe('saved')
    expect(saved.file).toMatch(/\.mp4$/)
    expect(saved.moreFiles).toBeUndefined()
    for (const part of [during.file, ...during.moreFiles!]) expect(existsSync(part)).toBe(false)
    const v = await packetTimes(saved.file, 'v')
    // One file, in one timeline: the parts follow each other (the pattern was not made while away).
    expect(largestGap(v)).toBeLessThan(0.1)
    expect(Math.max(...v) - Math.min(...v)).toBeGreaterThan(5)
    const decoded = await decodeAll(saved.file)
    expect(decoded.ok, decoded.stderr).toBe(true)
    await expectEditorReady(saved.file, OUTPUT.fps)
  })

  it.each(['camera', 'test pattern'])(
    'a full disk stops the file with disk-full; the broadcast stays live (%s)',
    async (path) => {
      if (process.getuid?.() !== 0) {
        // Mounting a tmpfs needs root (CI runs as root).
        console.warn('skipped: mounting a small tmpfs needs root')
        return
      }
      const folder = join(dir, `full-${path.replace(' ', '-')}`)
      mkdirSync(folder, { recursive: true })
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', folder])
      try {
        // Leave about 600 kB: a few seconds of the 0.9 Mbit/s camera.
        writeFileSync(join(folder, 'filler'), Buffer.alloc(8 * 1024 * 1024 - 600 * 1024))
        const { b, states, health, views, recordings, seen } = recorder(folder)
        expect((await recordings.info()).lowSpace).toBe(true)
        const s = await client.createStream({ name: 'full', profiles: [], record: false })
        const runId = b.start({
          args: {
            streamId: s.id!,
            source:
              path === 'camera'
                ? { kind: 'media', mimeType: 'video/x-matroska;codecs=avc1,opus' }
                : { kind: 'test-pattern' },
            output: OUTPUT,
            recordLocally: true
          },
          streamName: s.name,
          streamKey: s.streamKey!,
          ingestRtmp: studio.rtmpUrl
        })
        const feed =
          path === 'camera' ? feedPaced((c) => b.pushMedia(runId, c), camera, 30) : undefined
        await waitUntil(() => seen('live'), 'live', 30_000)
        const stoppedView = await waitFor(
          async () => views.find((v) => v.state === 'stopped'),
          30_000,
          'the local file to stop'
        )
        expect(stoppedView.error?.code).toBe('disk-full')
        expect(stoppedView.error?.message).toMatch(/full.*The broadcast goes on/)
        // Still live: media keeps flowing to the ingest after the file stopped.
        const after = states.length
        // Two more seconds live (two health events: one a second while live) with the file stopped.
        const blocksBefore = health.length
        await waitUntil(() => health.length >= blocksBefore + 2, '2 s more live', 30_000)
        expect(b.status()?.state).toBe('live')
        expect(states.slice(after).map((x) => x.state)).toEqual([])
        expect((await client.getStream(s.id!)).isActive).toBe(true)
        feed?.stop()
        await feed?.done
        await b.stop(runId)
        await b.recordingSaved()
        expect(recordings.get(runId)!.state).toBe('stopped')
      } finally {
        // Lazily: a failed run may still hold a file there (its ffmpeg is being stopped).
        execFileSync('umount', ['-l', folder])
      }
    }
  )
})

// Going live for real: the broadcaster's ffmpeg publishes to the local studio's RTMP ingest.
import { execFile } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { beforeAll, describe, expect, it } from 'vitest'
import { MediaBuffer } from '../../../src/main/core/broadcast/media-buffer'
import { resolveFfprobe } from '../../../src/node/ffmpeg/locate'
import type { ApiStream } from '../../../src/main/core/view-models'
import { decodeAll, ffprobe, waitFor } from '../../helpers/studio'
import {
  feedPaced,
  ffmpegChildren,
  liveBroadcaster,
  makeCameraFile,
  OUTPUT
} from './live-helpers'
import { studioForFile } from './file-studio'
import type { LiveHealthEvent } from '../../../src/shared/contract'

const run = promisify(execFile)
const file = studioForFile({ resumeWindowMs: 1500 })
let camera: string

beforeAll(() => {
  camera = makeCameraFile(file.dir, 20)
})

const newStream = (name: string, record = true): Promise<ApiStream> =>
  file.client.createStream({ name, profiles: [], record })

const startRun = (
  b: ReturnType<typeof liveBroadcaster>['b'],
  s: ApiStream,
  source: Parameters<typeof b.start>[0]['args']['source']
) =>
  b.start({
    args: { streamId: s.id!, source, output: OUTPUT },
    streamName: s.name,
    streamKey: s.streamKey!,
    ingestRtmp: file.studio.rtmpUrl
  })

async function readyRecording(streamId: string) {
  const session = await waitFor(
    async () => (await file.client.listStreamSessions(streamId)).items[0],
    30_000,
    'a session'
  )
  expect(session.parentId).toBe(streamId)
  return waitFor(
    async () => {
      const x = await file.client.getSession(session.id!)
      return x.recordingStatus === 'ready' && x
    },
    60_000,
    'recording ready'
  )
}

describe('reconnect start point', () => {
  it('header + newest keyframe cluster, cut from mid-stream, decodes cleanly from its first frame', async () => {
    const bytes = await readFile(camera)
    const buf = new MediaBuffer()
    const cut = Math.floor(bytes.length * 0.55)
    for (let at = 0; at < cut; at += 7000) buf.push(bytes.subarray(at, Math.min(cut, at + 7000)))
    const start = Buffer.concat(buf.startPoint()!.map((p) => p.bytes))
    expect(start.length).toBeLessThan(cut)
    // What a reconnecting ffmpeg gets, plus the rest of the stream as it keeps arriving.
    const resumed = join(file.dir, 'resumed.mkv')
    await writeFile(resumed, Buffer.concat([start, bytes.subarray(cut)]))
    const { stdout } = await run(resolveFfprobe(), [
      ...['-v', 'error', '-select_streams', 'v:0', '-read_intervals', '%+#1'],
      ...['-show_entries', 'frame=key_frame,pict_type', '-of', 'csv=p=0', resumed]
    ])
    expect(stdout.trim().split('\n')[0]).toBe('1,I')
    expect(await decodeAll(resumed)).toMatchObject({ ok: true })
  })
})

/** Waits until the run's media clock says `seconds` of media went out (its health's at - mediaEpoch). */
async function untilSent(health: LiveHealthEvent[], seconds: number, after = 0): Promise<void> {
  await waitFor(
    async () => {
      const h = health.slice(after).at(-1)
      return h?.mediaEpoch !== undefined && h.at - h.mediaEpoch >= seconds * 1000 && h.fps > 0
    },
    seconds * 1000 + 30_000,
    `${seconds} s of media sent`
  )
}

describe('broadcaster against the local studio', () => {
  it('test pattern: live for 8 s, stop, a session of the stream with a ready recording', async () => {
    const s = await newStream('pattern')
    const { b, states, health, waitState } = liveBroadcaster()
    const runId = startRun(b, s, { kind: 'test-pattern' })
    await waitState('live')
    await untilSent(health, 8)
    expect(health.length).toBeGreaterThanOrEqual(4)
    expect(health.at(-1)!.fps).toBeGreaterThan(0)
    await b.stop(runId)
    expect(states.map((x) => x.state)).toEqual(['connecting', 'live', 'stopping', 'ended'])
    expect(JSON.stringify(states)).not.toContain(s.streamKey!)
    const rec = await readyRecording(s.id!)
    const probe = await ffprobe(rec.recordingUrl!)
    expect(probe.duration).toBeGreaterThan(6)
    expect(probe.streams.map((x) => x.codec_type).sort()).toEqual(['audio', 'video'])
  })

  it('camera-like chunks: H.264 is copied, Opus becomes AAC, the recording plays', async () => {
    const s = await newStream('camera')
    const { b, health, waitState } = liveBroadcaster()
    const runId = startRun(b, s, { kind: 'media', mimeType: 'video/x-matroska;codecs=avc1,opus' })
    const feed = feedPaced((c) => b.pushMedia(runId, c), camera, 20)
    await waitState('live')
    await untilSent(health, 8)
    feed.stop()
    await feed.done
    await b.stop(runId)
    expect(b.status()!.state).toBe('ended')
    const rec = await readyRecording(s.id!)
    const probe = await ffprobe(rec.recordingUrl!)
    expect(probe.duration).toBeGreaterThan(6)
    const video = probe.streams.find((x) => x.codec_type === 'video')!
    // Copied, not re-encoded: the camera's own size comes through.
    expect(video).toMatchObject({ codec_name: 'h264', width: 640, height: 360 })
    expect(probe.streams.find((x) => x.codec_type === 'audio')?.codec_name).toBe('aac')
  })

  it('ingest stops mid-stream and comes back: reconnects and media flows again (media path)', async () => {
    const s = await newStream('reconnect', false)
    const { b, states, health, waitState } = liveBroadcaster()
    const runId = startRun(b, s, { kind: 'media', mimeType: 'video/webm;codecs=h264,opus' })
    const feed = feedPaced((c) => b.pushMedia(runId, c), camera, 20)
    await waitState('live')
    await untilSent(health, 2)
    const before = states.length
    await file.studio.stopIngest()
    const rec = await waitState('reconnecting', 20_000, before)
    expect(rec.error?.message ?? '').not.toContain(s.streamKey!)
    // The ingest stays down until a retry has met it closed (a second attempt is announced).
    await waitFor(
      async () =>
        states.slice(before).some((x) => x.state === 'reconnecting' && (x.attempt ?? 0) >= 2),
      30_000,
      'a retry against the closed ingest'
    )
    await file.studio.startIngest()
    await waitState('live', 30_000, before)
    // Media flows again: the studio sees the stream active with a fresh publish.
    await waitFor(
      async () => (await file.client.getStream(s.id!)).isActive === true,
      20_000,
      'stream active again'
    )
    // Media flows again: two more seconds go out on the new connection.
    await untilSent(health, 2, health.length)
    expect(b.status()!.state).toBe('live')
    feed.stop()
    await feed.done
    await b.stop(runId)
    expect(b.status()!.state).toBe('ended')
  })

  it('stop while reconnecting ends at once', async () => {
    const s = await newStream('stop-mid-retry', false)
    const { b, states, waitState } = liveBroadcaster({
      backoff: { initialMs: 5000, capMs: 5000, jitter: 0 },
      preset: 'ultrafast'
    })
    const runId = startRun(b, s, { kind: 'test-pattern' })
    await waitState('live')
    await file.studio.stopIngest()
    try {
      await waitState('reconnecting', 20_000)
      const at = states.length
      await b.stop(runId)
      // Waiting out a 5 s backoff with no ffmpeg running: Stop goes straight to ended, nothing starts.
      expect(states.slice(at).map((x) => x.state)).toEqual(['ended'])
      expect(await ffmpegChildren()).toEqual([])
    } finally {
      await file.studio.startIngest()
    }
  })
})

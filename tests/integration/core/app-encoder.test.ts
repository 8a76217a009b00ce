// Onair's own encoder (#33) with the real parts: raw frames (a synthetic I420 picture and a tone, packed
// with packRaw as the page packs them) go through Broadcaster.begin/pushFrames (what goLive and
// pushFrames call) into the encoder process (node-av's x264), whose Matroska goes to the local studio's
// RTMP ingest by the broadcaster's ffmpeg and into the local copy.
// - The studio's recording is H.264 High made by x264 (its SEI names it), and the local copy holds the
//   same packets (the same frame count within a few, the same profile): one encode for both.
// - A link throttled to 300 kbit/s: the uplink controller lowers the bitrate and Onair's encoder makes
//   less (its own figures), with no live:encoder event to a page.
// - SIGSTOP pulses on the encoder process: frames are skipped before it and the health strip's cause
//   is 'encoder' with its sentence; before the pulses the machine's load names it (the network, or
//   the computer at 97 % CPU).
// - An encoder that cannot start: goLive answers 'browser' with the reason, and the page's Matroska
//   (pushMedia) goes out as before. An encoder that dies mid-run fails the run with its reason.
// After each: no encoder process and no broadcaster ffmpeg left.
import { execFile } from 'node:child_process'
import { createServer, connect, type Server, type Socket } from 'node:net'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { Broadcaster } from '../../../src/main/core/broadcaster'
import { LocalRecordings } from '../../../src/main/core/local-recording/recordings'
import { BUSY_SHARE } from '../../../src/main/core/broadcast/uplink/tuning'
import type { ChildCommand } from '../../../src/main/core/child-command'
import type { ApiStream } from '../../../src/main/core/view-models'
import { resolveFfmpeg, resolveFfprobe } from '../../../src/node/ffmpeg/locate'
import { trackedChildren } from '../../../src/node/process'
import type {
  LiveHealthEvent,
  LiveStateEvent,
  LocalRecordingView
} from '../../../src/shared/contract'
import { AppFailure } from '../../../src/shared/result'
import { waitFor } from '../../helpers/studio'
import { waitUntil } from '../../helpers/wait-until'
import { FAST, feedPaced, makeCameraFile, sleep } from './live-helpers'
import { studioForFile } from './file-studio'
import { RAW_SOURCE, X264_OUTPUT, rawFeeder } from './raw-media'

const run = promisify(execFile)
const file = studioForFile({ resumeWindowMs: 1500 })

const OUTPUT = X264_OUTPUT
const PAGE_SOURCE = RAW_SOURCE

afterEach(() => {
  // The process tracker's view too: no encoder process outlives a run (studioForFile checks that no
  // broadcaster ffmpeg does).
  expect(trackedChildren().filter((c) => c.kind === 'encoder')).toEqual([])
})

/**
 * The causes possible while Onair's encoder skips nothing: the computer at BUSY_SHARE of the CPU or
 * more, else the network (the percent shown is rounded: at the boundary either).
 */
const calmCauses = (h: LiveHealthEvent): string[] => {
  const busy = BUSY_SHARE * 100
  const p = h.uplink?.cpuPercent ?? 0
  return p > busy ? ['computer'] : p < busy - 1 ? ['network'] : ['computer', 'network']
}

function broadcaster(o: { recordings?: LocalRecordings; encoderCommand?: ChildCommand } = {}) {
  const states: LiveStateEvent[] = []
  const health: LiveHealthEvent[] = []
  const pageEvents: unknown[] = []
  const b = new Broadcaster({
    tuning: FAST,
    onState: (s) => states.push(s),
    onHealth: (h) => health.push(h),
    onEncoder: (e) => pageEvents.push(e),
    ...o
  })
  const waitState = (want: string, timeoutMs = 30_000) =>
    found(() => states.find((s) => s.state === want), `state ${want}`, timeoutMs)
  return { b, states, health, pageEvents, waitState }
}

const begin = (b: Broadcaster, s: ApiStream, output = OUTPUT, recordLocally = false) =>
  b.begin({
    args: { streamId: s.id!, source: PAGE_SOURCE, output, recordLocally },
    streamName: s.name,
    streamKey: s.streamKey!,
    ingestRtmp: file.studio.rtmpUrl
  })

/** Waits until the run's media clock says `seconds` of media went out (health at - mediaEpoch). */
const untilSent = (health: LiveHealthEvent[], seconds: number, after = 0) =>
  waitUntil(
    () => {
      const h = health.slice(after).at(-1)
      return h?.mediaEpoch !== undefined && h.at - h.mediaEpoch >= seconds * 1000 && h.fps > 0
    },
    `${seconds} s of media sent`,
    seconds * 1000 + 30_000
  )

/** Polls until `pick` finds something; answers it. */
const found = <T>(pick: () => T | undefined, what: string, timeoutMs: number): Promise<T> =>
  waitFor(async () => pick(), timeoutMs, what, 50)

const newStream = (name: string, record = true): Promise<ApiStream> =>
  file.client.createStream({ name, profiles: [], record })

/** The video stream's profile and packet count (counted by reading every packet). */
async function videoPackets(target: string): Promise<{ profile: string; packets: number }> {
  const { stdout } = await run(resolveFfprobe(), [
    ...['-v', 'error', '-select_streams', 'v:0', '-count_packets'],
    ...['-show_entries', 'stream=profile,nb_read_packets', '-of', 'json', target]
  ])
  const s = (JSON.parse(stdout) as { streams: { profile: string; nb_read_packets: string }[] })
    .streams[0]!
  return { profile: s.profile, packets: Number(s.nb_read_packets) }
}

/** The raw H.264 of a file or playlist (its SEI user data names the encoder that made it). */
async function annexB(target: string): Promise<Buffer> {
  const { stdout } = await run(
    resolveFfmpeg().path,
    ['-v', 'error', '-i', target, '-map', '0:v:0', '-c', 'copy', '-f', 'h264', '-'],
    { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 }
  )
  return stdout
}

/**
 * A TCP relay in front of the studio's RTMP port whose upstream direction can be held to a rate (a
 * token bucket, refilled every 50 ms): the network the uplink controller sees.
 */
async function throttledRelay(port: number) {
  let bytesPerS = Infinity
  let budget = 0
  const senders = new Set<Socket>()
  const server: Server = createServer((down) => {
    const up = connect(port, '127.0.0.1')
    senders.add(down)
    down.on('data', (d: Buffer) => {
      up.write(d)
      if (bytesPerS === Infinity) return
      budget -= d.length
      if (budget < 0) down.pause()
    })
    up.pipe(down)
    const close = () => {
      senders.delete(down)
      down.destroy()
      up.destroy()
    }
    down.on('close', close).on('error', close)
    up.on('close', close).on('error', close)
  })
  const refill = setInterval(() => {
    if (bytesPerS === Infinity) return
    budget = Math.min(budget + bytesPerS / 20, bytesPerS / 10)
    if (budget > 0) for (const s of senders) s.resume()
  }, 50)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const address = server.address()
  return {
    url: `rtmp://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/live`,
    limit: (kbps: number) => {
      bytesPerS = (kbps * 1000) / 8
      budget = 0
    },
    close: () => {
      clearInterval(refill)
      for (const s of senders) s.destroy()
      server.close()
    }
  }
}

describe("Onair's encoder feeding the broadcast", () => {
  it('x264 High in the studio, and the local copy holds the same packets (one encode)', async () => {
    const s = await newStream('app encoder')
    const views: LocalRecordingView[] = []
    const recordings = new LocalRecordings({
      appDataDir: join(file.dir, 'app data'),
      folder: () => join(file.dir, 'copies'),
      ffmpeg: () => resolveFfmpeg().path,
      emit: (v) => views.push(v)
    })
    const { b, states, health, pageEvents, waitState } = broadcaster({ recordings })
    const r = await begin(b, s, OUTPUT, true)
    expect(r.encoder).toEqual({ kind: 'app', id: 'x264', label: 'x264 (software)' })
    expect(states[0]!.encoder).toEqual(r.encoder)
    expect(b.status()!.encoder).toEqual(r.encoder)
    const feed = rawFeeder((c) => b.pushFrames(r.runId, c), OUTPUT)
    await waitState('live')
    await untilSent(health, 10)
    feed.stop()
    await feed.done
    await b.stop(r.runId)
    await b.recordingSaved()
    expect(feed.errors).toEqual([])
    expect(b.status()!.state).toBe('ended')
    // The page's encoder was never asked for anything: the controller speaks to Onair's.
    expect(pageEvents).toEqual([])
    const h = health.at(-1)!
    // No skips: the machine's load names the cause (this one's real CPU counters), never the encoder.
    expect(calmCauses(h)).toContain(h.uplink?.cause)
    expect(h.uplink?.encoderSkipped).toBeTypeOf('number')

    const session = await waitFor(
      async () => (await file.client.listStreamSessions(s.id!)).items[0],
      30_000,
      'a session'
    )
    const rec = await waitFor(
      async () => {
        const x = await file.client.getSession(session.id!)
        return x.recordingStatus === 'ready' && x
      },
      60_000,
      'recording ready'
    )
    const studioSide = await videoPackets(rec.recordingUrl!)
    expect(studioSide.profile).toBe('High')
    // x264 writes its name and settings into an SEI (user data unregistered) of its first frame.
    const sei = (await annexB(rec.recordingUrl!)).toString('latin1')
    expect(sei).toMatch(/x264 - core \d+/)
    expect(sei).toContain('bframes=2')

    const copy = views.find((v) => v.state === 'saved')
    expect(copy, JSON.stringify(views)).toBeDefined()
    const local = await videoPackets(copy!.file)
    expect(local.profile).toBe(studioSide.profile)
    expect((await annexB(copy!.file)).toString('latin1')).toMatch(/x264 - core \d+/)
    console.log(
      `frames: local copy ${local.packets}, studio recording ${studioSide.packets}, pushed ${feed.sent()}`
    )
    expect(Math.abs(local.packets - studioSide.packets)).toBeLessThanOrEqual(5)
  })

  it('a link held to 300 kbit/s: the controller lowers the bitrate and the encoder makes less', async () => {
    const relay = await throttledRelay(Number(new URL(file.studio.rtmpUrl).port))
    try {
      const s = await newStream('app encoder throttled', false)
      const { b, health, pageEvents, waitState } = broadcaster()
      const r = await b.begin({
        args: { streamId: s.id!, source: PAGE_SOURCE, output: OUTPUT },
        streamName: s.name,
        streamKey: s.streamKey!,
        ingestRtmp: relay.url
      })
      expect(r.encoder.kind).toBe('app')
      const feed = rawFeeder((c) => b.pushFrames(r.runId, c), OUTPUT)
      await waitState('live')
      await untilSent(health, 4)
      const host = b.encoderHost!
      // At the Output's bitrate while the link is open (x264 CBR on a noisy picture).
      await waitUntil(() => host.stats().videoKbps >= 600, 'the encoder at its bitrate', 15_000)
      const before = host.stats().videoKbps
      relay.limit(300)
      const lowered = await found(
        () => health.find((h) => (h.uplink?.videoTargetKbps ?? Infinity) <= 400),
        'the controller to lower the bitrate',
        30_000
      )
      // The encoder follows within a few seconds (its stats are the last half second's output).
      await waitUntil(
        () => host.stats().videoKbps <= lowered.uplink!.videoTargetKbps * 1.3,
        `the encoder to follow ${lowered.uplink!.videoTargetKbps} kbit/s`,
        15_000
      )
      console.log(
        `encoder output ${before} kbit/s, asked ${lowered.uplink!.videoTargetKbps}, then ${host.stats().videoKbps}`
      )
      expect(pageEvents).toEqual([])
      feed.stop()
      await feed.done
      await b.stop(r.runId)
      expect(feed.errors).toEqual([])
    } finally {
      relay.close()
    }
  })

  it("SIGSTOP pulses on the encoder: frames skipped, the health strip's cause is 'encoder'", async () => {
    const s = await newStream('app encoder stalled', false)
    const { b, health, waitState } = broadcaster()
    const r = await begin(b, s)
    const feed = rawFeeder((c) => b.pushFrames(r.runId, c), OUTPUT)
    await waitState('live')
    await untilSent(health, 4)
    const calm = health.length
    expect(calmCauses(health.at(-1)!)).toContain(health.at(-1)!.uplink?.cause)
    const pid = b.encoderHost!.pid!
    let pulsing = true
    const pulses = (async () => {
      while (pulsing) {
        process.kill(pid, 'SIGSTOP')
        await sleep(500)
        process.kill(pid, 'SIGCONT')
        await sleep(300)
      }
    })()
    try {
      const seen = await found(
        () => health.slice(calm).find((h) => h.uplink?.cause === 'encoder'),
        "cause 'encoder'",
        20_000
      )
      expect(seen.uplink!.encoderSkipped).toBeGreaterThan(0)
      // The renderer words it (health-text.test.ts): "this computer cannot encode fast enough ...".
      expect(seen.shortfall).toMatchObject({ cause: 'encoder-skips', windowS: 3 })
      expect(seen.congestion).toBeGreaterThanOrEqual(2)
      console.log(`health: ${JSON.stringify(seen.shortfall)}`)
    } finally {
      pulsing = false
      await pulses
      process.kill(pid, 'SIGCONT')
    }
    feed.stop()
    await feed.done
    await b.stop(r.runId)
    expect(b.status()!.state).toBe('ended')
  })

  it("an encoder that cannot start: 'browser' with the reason, and the page's media goes out as before", async () => {
    const s = await newStream('no encoder', false)
    const { b, states, health, waitState } = broadcaster({
      encoderCommand: { command: join(file.dir, 'no-such-encoder'), args: [] }
    })
    const r = await begin(b, s)
    expect(r.encoder.kind).toBe('browser')
    // Why, as a state with the OS's words (the live bar words it: encoder-text.ts).
    const failure = r.encoder.kind === 'browser' ? r.encoder.failure : undefined
    expect(failure?.kind).toBe('spawn-failed')
    expect(failure?.kind === 'spawn-failed' && failure.detail).toMatch(/ENOENT/)
    expect(states[0]!.encoder).toEqual(r.encoder)
    await expect(b.pushFrames(r.runId, new Uint8Array(24))).rejects.toBeInstanceOf(AppFailure)
    const camera = makeCameraFile(file.dir, 12)
    const feed = feedPaced((c) => b.pushMedia(r.runId, c), camera, 12)
    await waitState('live')
    await untilSent(health, 5)
    feed.stop()
    await feed.done
    await b.stop(r.runId)
    expect(b.status()!.state).toBe('ended')
  })

  it("the encoder dies mid-run: the run fails and says it was Onair's encoder", async () => {
    const s = await newStream('encoder dies', false)
    const { b, health, waitState } = broadcaster()
    const r = await begin(b, s)
    const feed = rawFeeder((c) => b.pushFrames(r.runId, c), OUTPUT)
    await waitState('live')
    await untilSent(health, 3)
    process.kill(b.encoderHost!.pid!, 'SIGKILL')
    const failed = await waitState('failed', 15_000)
    expect(failed.error?.code).toBe('encoder-failed')
    expect(failed.error?.message).toMatch(/^Onair's encoder stopped: .*SIGKILL/)
    feed.stop()
    await feed.done
  })
})

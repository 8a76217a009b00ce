// A closed-loop simulation of the uplink (#33): the real BroadcastSupervisor (its MediaFeed queue and
// drops, its rates, the real UplinkController, the keyframe asks) between an encoder model and a link
// model, on the caller's fake clock. It judges a rule change in seconds, where the uplink bench takes
// minutes in a network namespace; the bench stays the measure of record.
//
// - The encoder makes 30 fps video at its target bitrate (each frame's size drawn around target/fps
//   from a seeded generator; a keyframe every 2 s, or at once when asked, 4x a frame's share, opening a
//   new cluster as the page's muxer does), reaching a new target over about a second, and 128 kbit/s of
//   sound in 20 ms blocks; every block is pushed the moment it is made, as the page does.
// - The ffmpeg model reads its stdin (a pipe that holds OS_PIPE_BYTES, as Linux's socketpair did)
//   through the real MatroskaScanner, only while it holds fewer than FFMPEG_INPUT_PACKETS packets, and
//   writes each packet into the socket's send buffer (twice the `-send_buffer_size` the real
//   arguments ask for, as the OS doubles it) while there is room: its progress (ten a second) says the
//   media time and bytes written so far, as ffmpeg's out_time and total_size do. The sound goes out
//   at AUDIO_OUT_SHARE of its size (main's ffmpeg re-encodes the page's Opus to AAC).
// - The link drains the send buffer at its capacity at that moment (and at most a window per round
//   trip); a picture is delivered when its last byte is, half a round trip later. Its delay behind
//   live: delivered − made.
import { EventEmitter } from 'node:events'
import { PassThrough } from 'node:stream'
import { MatroskaScanner } from '../../src/main/core/broadcast/matroska-scanner'
import { BroadcastSupervisor, type ChildLike } from '../../src/main/core/broadcast/supervisor'
import type { EncoderControl } from '../../src/main/core/broadcast/uplink/encoder-control'
import {
  FFMPEG_INPUT_PACKETS,
  PROGRESS_PERIOD_S
} from '../../src/main/core/broadcast/uplink/tuning'
import type { LiveHealthEvent, OutputSettings } from '../../src/shared/contract'
import { block, open, streamHeader, uint } from './matroska-writer'

/** What Linux's socketpair held of stdin before a write waited (measured, media-feed's LEAD_MS note). */
const OS_PIPE_BYTES = 95 * 1024
/** What ffmpeg reads from its pipe at once. */
const READ_BYTES = 4096
/** The bench's tone, 128 kbit/s from the page, went out at ~48 as AAC. */
const AUDIO_OUT_SHARE = 48 / 128
const FPS = 30
const AUDIO_BLOCK_MS = 20
/** A keyframe costs this many frames' share of the bitrate (the others share the rest of the GOP). */
const KEY_WEIGHT = 4
/** The encoder reaches a new target with this time constant (95 % in about a second). */
const ENCODER_TAU_MS = 330
/** Each frame's size varies by up to this share either way (seeded, so every run is the same). */
const FRAME_JITTER = 0.15
const STEP_MS = 10

export interface SimOptions {
  output: OutputSettings
  /** The link's capacity (kbit/s) at a time since the start (ms). */
  capacityKbps: (ms: number) => number
  rttMs?: number
  durationMs: number
  /** Moves the fake clock on, running the timers due (vi.advanceTimersByTimeAsync). */
  advance: (ms: number) => Promise<void>
  seed?: number
}

export interface SimResult {
  /** Each bitrate the controller asked for: when (ms since start) and what (kbit/s). */
  targets: { at: number; kbps: number }[]
  keyframesAsked: number
  /** Each picture delivered: when (ms since start) and how far behind live (ms). */
  delivered: { at: number; behindMs: number }[]
  health: LiveHealthEvent[]
  /** The video bitrate asked for at a time since the start. */
  targetAt(ms: number): number
}

/** A seeded generator (mulberry32): the same run every time. */
function seeded(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** stdin as main sees it: Node's own buffer (writableLength), then the OS pipe ffmpeg reads. */
class SimPipe extends EventEmitter {
  destroyed = false
  ended = false
  writableLength = 0
  private held: Buffer[] = []
  private os: Buffer[] = []
  private osBytes = 0
  private needDrain = false

  write(b: Buffer): boolean {
    this.held.push(b)
    this.writableLength += b.length
    this.toOs()
    // A child's stdin waits for 'drain' past its 16 KiB high-water mark.
    if (this.writableLength >= 16 * 1024) this.needDrain = true
    return !this.needDrain
  }

  end(): void {
    this.ended = true
  }

  /** ffmpeg reads up to `max` bytes. */
  read(max: number): Buffer | undefined {
    const out: Buffer[] = []
    let n = 0
    while (n < max && this.os.length > 0) {
      const b = this.os[0]!
      const take = Math.min(b.length, max - n)
      out.push(b.subarray(0, take))
      n += take
      if (take === b.length) this.os.shift()
      else this.os[0] = b.subarray(take)
    }
    this.osBytes -= n
    this.toOs()
    if (this.needDrain && this.writableLength === 0) {
      this.needDrain = false
      this.emit('drain')
    }
    return n > 0 ? Buffer.concat(out) : undefined
  }

  get drained(): boolean {
    return this.osBytes === 0 && this.writableLength === 0
  }

  private toOs(): void {
    while (this.held.length > 0 && this.osBytes < OS_PIPE_BYTES) {
      const b = this.held.shift()!
      this.writableLength -= b.length
      this.os.push(b)
      this.osBytes += b.length
    }
  }
}

interface Packet {
  ms: number
  video: boolean
  bytes: number
}

/** The broadcaster's ffmpeg, copying the page's stream into the socket; it reports progress. */
class SimFfmpeg extends EventEmitter {
  readonly pid = undefined
  readonly stdin = new SimPipe()
  readonly stdout = new PassThrough()
  readonly stderr = new PassThrough()
  private scanner = new MatroskaScanner()
  private last: { ms: number; video: boolean; at: number } | undefined
  private packets: Packet[] = []
  private firstMs: number | undefined
  private outMs = 0
  private totalSize = 0
  private frames = 0
  exited = false
  /** What the socket holds (bytes still to cross the link, per packet) and its room. */
  readonly socket: { p: Packet; left: number }[] = []
  socketBytes = 0

  constructor(readonly sendBufferBytes: number) {
    super()
  }

  /** ffmpeg's loop for one step: read while few packets wait, write while the socket has room. */
  step(): void {
    for (;;) {
      while (this.packets.length < FFMPEG_INPUT_PACKETS) {
        const chunk = this.stdin.read(READ_BYTES)
        if (!chunk) break
        this.parse(chunk)
      }
      const p = this.packets[0]
      if (!p || this.socketBytes + p.bytes > this.sendBufferBytes) break
      this.packets.shift()
      this.socket.push({ p, left: p.bytes })
      this.socketBytes += p.bytes
      this.totalSize += p.bytes
      this.firstMs ??= p.ms
      this.outMs = Math.max(this.outMs, p.ms - this.firstMs)
      if (p.video) this.frames++
    }
    if (this.stdin.ended && this.stdin.drained && this.packets.length === 0 && !this.exited) {
      this.exited = true
      setTimeout(() => this.emit('exit', 0, null), 10)
    }
  }

  /** A packet's size is known once the next block begins (the bytes between two block starts). */
  private parse(chunk: Buffer): void {
    for (const ev of this.scanner.push(chunk)) {
      if (ev.type !== 'block') continue
      if (this.last) {
        const size = ev.at - this.last.at
        const bytes = this.last.video ? size : Math.round(size * AUDIO_OUT_SHARE)
        this.packets.push({ ms: this.last.ms, video: this.last.video, bytes })
      }
      this.last = { ms: ev.ms, video: ev.video, at: ev.at }
    }
  }

  /** One progress block, as `-progress pipe:1` writes it. */
  report(): void {
    if (this.firstMs === undefined) return
    this.stdout.write(
      `frame=${this.frames}\nfps=${FPS}\nbitrate=N/A\ntotal_size=${this.totalSize}\n` +
        `out_time_us=${Math.round(this.outMs * 1000)}\ndrop_frames=0\ndup_frames=0\n` +
        `speed=1.0x\nprogress=continue\n`
    )
  }

  kill(): boolean {
    if (!this.exited) {
      this.exited = true
      setTimeout(() => this.emit('exit', 255, null), 10)
    }
    return true
  }
}

/** The page's encoder: follows the bitrate it is asked for, makes a keyframe when asked. */
class SimEncoder implements EncoderControl {
  private rateKbps: number
  private targetKbps: number
  private keyAsked = false
  private frame = 0
  private audioMs = 0
  private clusterMs = 0
  private random: () => number
  readonly targets: { at: number; kbps: number }[] = []
  keyframesAsked = 0

  constructor(
    private readonly o: OutputSettings,
    seed: number,
    private readonly since: () => number
  ) {
    this.rateKbps = this.targetKbps = o.videoBitrateKbps
    this.random = seeded(seed)
  }

  setBitrate(videoKbps: number): void {
    this.targetKbps = videoKbps
    this.targets.push({ at: this.since(), kbps: videoKbps })
  }

  requestKeyframe(): void {
    this.keyAsked = true
    this.keyframesAsked++
  }

  /** The blocks made up to media time `ms`, in time order, as the page's muxer writes them. */
  make(ms: number): Buffer[] {
    const out: Buffer[] = []
    const gop = FPS * this.o.keyframeIntervalSec
    for (;;) {
      const videoMs = Math.round((this.frame * 1000) / FPS)
      const next = Math.min(videoMs, this.frame === 0 ? Infinity : this.audioMs)
      if (next > ms) break
      if (this.frame > 0 && this.audioMs <= videoMs) {
        const bytes = Math.round((this.o.audioBitrateKbps * AUDIO_BLOCK_MS) / 8)
        out.push(block(2, true, bytes, this.audioMs - this.clusterMs))
        this.audioMs += AUDIO_BLOCK_MS
        continue
      }
      // The encoder moves toward its target over about a second (ENCODER_TAU_MS).
      this.rateKbps +=
        (this.targetKbps - this.rateKbps) * (1 - Math.exp(-1000 / FPS / ENCODER_TAU_MS))
      const key = this.frame % gop === 0 || this.keyAsked
      const share = key ? KEY_WEIGHT : (gop - KEY_WEIGHT) / (gop - 1)
      const jitter = 1 + FRAME_JITTER * (2 * this.random() - 1)
      const bytes = Math.max(50, Math.round(((this.rateKbps * 1000) / 8 / FPS) * share * jitter))
      if (key) {
        this.keyAsked = false
        this.clusterMs = videoMs
        out.push(Buffer.concat([open(0x1f43b675), uint(0xe7, videoMs)]))
      }
      out.push(block(1, key, bytes, videoMs - this.clusterMs))
      if (this.frame === 0) this.audioMs = videoMs
      this.frame++
    }
    return out
  }
}

/** Runs one broadcast through the loop for `durationMs` of the fake clock. */
export async function simulateUplink(o: SimOptions): Promise<SimResult> {
  const start = Date.now()
  const since = (): number => Date.now() - start
  const encoder = new SimEncoder(o.output, o.seed ?? 1, since)
  const health: LiveHealthEvent[] = []
  const delivered: { at: number; behindMs: number }[] = []
  let ffmpeg: SimFfmpeg | undefined
  const sup = new BroadcastSupervisor({
    runId: 'sim',
    streamId: 'sim',
    streamName: 'Simulation',
    source: { kind: 'media', mimeType: 'video/x-matroska;codecs=avc1,opus' },
    output: o.output,
    url: 'rtmp://127.0.0.1/live/sim-key',
    secrets: ['sim-key'],
    spawn: (args) => {
      const i = args.indexOf('-send_buffer_size')
      // The OS doubles the send buffer ffmpeg asks for.
      ffmpeg = new SimFfmpeg(2 * Number(args[i + 1]))
      return ffmpeg as unknown as ChildLike
    },
    encoder,
    onHealth: (h) => health.push(h),
    // An idle computer: what queues is the link's.
    cpuBusy: () => 0.3,
    autoReconnect: false
  })
  sup.start()
  await sup.pushMedia(streamHeader())
  const rtt = o.rttMs ?? 40
  const reportEvery = PROGRESS_PERIOD_S * 1000
  /** One step of the world: the encoder (while `making`), ffmpeg, the link, ffmpeg's report. */
  const step = async (t: number, making: boolean): Promise<void> => {
    if (making) for (const b of encoder.make(t)) await sup.pushMedia(b)
    const f = ffmpeg
    if (f) {
      f.step()
      // The link: its capacity now, and at most the send buffer per round trip (TCP's window).
      const kbps = Math.min(o.capacityKbps(t), (f.sendBufferBytes * 8) / rtt)
      let budget = (kbps * STEP_MS) / 8
      while (budget > 0 && f.socket.length > 0) {
        const head = f.socket[0]!
        const take = Math.min(budget, head.left)
        head.left -= take
        budget -= take
        f.socketBytes -= take
        if (head.left <= 0) {
          f.socket.shift()
          if (head.p.video) delivered.push({ at: t, behindMs: t + rtt / 2 - head.p.ms })
        }
      }
      f.step()
      if (t % reportEvery === 0) f.report()
    }
    await o.advance(STEP_MS)
  }
  let t = 0
  for (; t < o.durationMs; t += STEP_MS) await step(t, true)
  // An orderly stop: what is queued goes out, then ffmpeg ends with its stdin.
  const done = sup.stop()
  for (let i = 0; i < 1000 && !ffmpeg?.exited; i++, t += STEP_MS) await step(t, false)
  await o.advance(1000)
  await done
  const targets = encoder.targets
  return {
    targets,
    keyframesAsked: encoder.keyframesAsked,
    delivered,
    health,
    targetAt(ms) {
      let kbps = o.output.videoBitrateKbps
      for (const x of targets) if (x.at <= ms) kbps = x.kbps
      return kbps
    }
  }
}

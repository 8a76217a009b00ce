// The page's own encoder: the capture's tracks -> WebCodecs (H.264 video, Opus audio) -> streamed
// Matroska (live-mux.ts) -> pushMedia, one push in flight at a time, as MediaPusher does. Unlike
// MediaRecorder, it holds a constant bitrate, takes a new one live (main's uplink controller, the
// live:encoder event), makes a keyframe on demand, holds its output to the bitrate whatever its rate
// control does (OutputBudget: frames over it are not encoded), and steps the picture down when the
// content will not fit the bitrate (encoder-plan.ts). The sound is read and encoded in a worker
// (audio-worker.ts), so a busy page does not read it late; sound the capture lost is filled with
// silence, so the sound keeps the picture's clock.
//
// The stream's size never changes mid-stream: main copies the H.264 into FLV and the muxer writes the
// codec's headers (SPS/PPS) once, in the track header, so a new size could not be decoded. A lower
// rung is drawn small and the encoder scales it up to the output's size: fewer details to spend bits
// on, the same frame size for every decoder down the line.
import type { OnairApi, OutputSettings } from '../../../../../shared/contract'
import type { AppError } from '../../../../../shared/result'
import type { EncoderStats, Pusher } from './pusher'
import {
  OutputBudget,
  RateLadder,
  admittedFps,
  demandKbps,
  encoderFramerate,
  type OutputWindow,
  buildLadder,
  probeConfig,
  probeEncoders,
  retargetRestartsWindow,
  type EncoderSupport,
  type Rung
} from './encoder-plan'
import { packetAt, startLiveMux, type LiveMux } from './live-mux'
import { SoundStamps } from './sound-stamps'
import { FrameFitter } from './frame-fit'
import { CaptureOpus, receivedChunk } from './audio-encode'
import { AUDIO_QUEUE, endReading, readSoundInWorker, readTrack } from './track-reader'

/** The output's measured bitrate is judged over windows of this much media time. */
const WINDOW_US = 2_000_000
/** Frames waiting in the encoder beyond this are dropped: live, late frames are worth nothing. */
const MAX_ENCODE_QUEUE = 3

export interface WebCodecsChoice {
  kind: 'hardware' | 'software'
  codec: string
}

const emptyWindow = (startUs: number): OutputWindow => ({
  startUs,
  given: 0,
  bytes: 0,
  frames: 0,
  keyBytes: 0,
  keys: 0,
  offered: 0
})

export class WebCodecsPusher implements Pusher {
  private mux: LiveMux | undefined
  private video: VideoEncoder | undefined
  /** The sound's encoder where it runs on this thread (no worker could start). */
  private audio: AudioEncoder | undefined
  private audioWorker: Worker | undefined
  /** Where the sound is read and encoded: a worker, or this thread where none could start. */
  private audioIn: 'worker' | 'page' | undefined
  private loops: Promise<void>[] = []
  private tracks: MediaStreamTrack[] = []
  private muxChain: Promise<void> = Promise.resolve()
  private pending: Uint8Array[] = []
  private inFlight: Promise<void> | undefined
  private drained: (() => void) | undefined
  private failed = false
  private stopped = false
  private readonly ladder: RateLadder
  private readonly size: { width: number; height: number }
  private config: VideoEncoderConfig
  private wantKey = true
  private lastKeyUs = -Infinity
  private nextFrameUs = -Infinity
  /** The first video frame's timestamp, and when it came: the stream's zero. */
  private zero: { us: number; at: number } | undefined
  private audioMeta: EncodedAudioChunkMetadata | undefined
  /**
   * The window's bytes and frames out (and of them the keyframes'), and the frames offered to the
   * encoder (some held back by the budget).
   */
  private window = emptyWindow(-1)
  private readonly budget = new OutputBudget()
  /** Frames not encoded because the output had spent its budget (OutputBudget). */
  budgetSkips = 0
  private measuredFps: number | null = null
  private lagMs: number | null = null
  private lastVideoUs = 0
  private lastAudioUs: number | undefined
  /** The sound's time on the picture's clock, late sound dropped (sound-stamps.ts). */
  private readonly soundStamps = new SoundStamps()
  /** Sound the capture lost and silence made up for (µs). */
  private audioFilledUs = 0
  /** The frame rate the encoder is told (encoderFramerate): the rung's, or what the source gives. */
  private toldFps: number
  private measuredKbps: number | null = null
  private measuredForKbps: number | null = null
  private readonly fitter = new FrameFitter()
  private firstParams: { key: string; level: number } | undefined
  droppedFrames = 0

  constructor(
    private readonly api: OnairApi,
    private readonly runId: string,
    private readonly stream: MediaStream,
    private readonly output: OutputSettings,
    private readonly choice: WebCodecsChoice,
    private readonly onError: (e: AppError) => void,
    private readonly onStats: (s: EncoderStats) => void = () => {}
  ) {
    // Even sizes: 4:2:0 video cannot have odd ones.
    this.size = { width: output.width & ~1, height: output.height & ~1 }
    this.ladder = new RateLadder(
      buildLadder({ ...this.size, fps: output.fps }),
      output.videoBitrateKbps
    )
    this.toldFps = this.ladder.rung.fps
    this.config = this.encoderConfig()
  }

  /** The mimeType main is told (it copies H.264 as it comes when it says avc1). */
  static mimeType(stream: MediaStream): string {
    return stream.getAudioTracks().length
      ? 'video/x-matroska;codecs=avc1,opus'
      : 'video/x-matroska;codecs=avc1'
  }

  get stats(): EncoderStats {
    const r = this.ladder.rung
    return {
      path: 'webcodecs',
      encoder: this.choice.kind,
      codec: this.choice.codec,
      width: r.width,
      height: r.height,
      fps: r.fps,
      targetKbps: this.ladder.targetKbps,
      measuredKbps: this.measuredKbps,
      measuredForKbps: this.measuredForKbps,
      measuredFps: this.measuredFps,
      backlogBytes: this.pending.reduce((n, p) => n + p.length, 0),
      lagMs: this.lagMs,
      audioJumps: this.soundStamps.jumps,
      audioLate: this.soundStamps.late,
      audioFilledMs: Math.round(this.audioFilledUs / 1000),
      ...(this.audioIn ? { audioIn: this.audioIn } : {}),
      budgetSkips: this.budgetSkips,
      queueSkips: this.droppedFrames,
      audioBehindMs:
        this.lastAudioUs === undefined
          ? null
          : Math.round((this.lastVideoUs - this.lastAudioUs) / 1000)
    }
  }

  private encoderConfig(): VideoEncoderConfig {
    const hw = this.choice.kind === 'hardware' ? 'prefer-hardware' : 'prefer-software'
    return probeConfig(
      this.choice.codec,
      { ...this.size, fps: Math.min(this.toldFps, this.ladder.rung.fps) },
      this.ladder.targetKbps,
      hw
    )
  }

  async start(): Promise<void> {
    const [videoTrack] = this.stream.getVideoTracks()
    if (!videoTrack) throw new Error('the source has no video')
    const audioTrack = this.stream.getAudioTracks()[0]
    this.mux = await startLiveMux({ audio: !!audioTrack }, (b) => this.send(b))
    this.video = new VideoEncoder({
      output: (chunk, meta) => this.onVideoChunk(chunk, meta),
      error: (e) => this.fail(`The video encoder stopped: ${e.message}`)
    })
    this.video.configure(this.config)
    this.onStats(this.stats)
    // Clones: stopping the encoder's reading must not stop the preview's picture or sound.
    const v = videoTrack.clone()
    this.tracks.push(v)
    this.loops.push(this.read(v, (f: VideoFrame) => this.onFrame(f)))
    if (audioTrack) {
      const a = audioTrack.clone()
      this.tracks.push(a)
      this.loops.push(this.readAudio(a))
    }
  }

  /**
   * The sound, read and encoded in a worker (readSoundInWorker); its packets come back to
   * onAudioChunk. Where no worker loads, it is read and encoded on this thread.
   */
  private readAudio(track: MediaStreamTrack): Promise<void> {
    return readSoundInWorker({
      track,
      mode: { bitrateKbps: this.output.audioBitrateKbps },
      onMessage: (m) => {
        if (!('chunk' in m)) return
        this.audioFilledUs = m.filledUs
        this.onAudioChunk(receivedChunk(m.chunk), m.meta)
      },
      onError: (message) => this.fail(`The audio encoder stopped: ${message}`),
      gone: () => this.stopped || this.failed,
      here: () => this.readAudioHere(track),
      onWorker: (w) => (this.audioWorker = w),
      onWhere: (where) => (this.audioIn = where)
    })
  }

  /** The sound, read and encoded on this thread: where no worker can start. */
  private readAudioHere(track: MediaStreamTrack): Promise<void> {
    const enc = (this.audio = new AudioEncoder({
      output: (chunk, meta) => this.onAudioChunk(chunk, meta),
      error: (e) => this.fail(`The audio encoder stopped: ${e.message}`)
    }))
    const opus = new CaptureOpus(enc, this.output.audioBitrateKbps)
    return this.read(
      track,
      (d: AudioData) => {
        opus.take(d)
        this.audioFilledUs = opus.filledUs
      },
      AUDIO_QUEUE
    )
  }

  private read<T extends VideoFrame | AudioData>(
    track: MediaStreamTrack,
    each: (item: T) => void | Promise<void>,
    maxBufferSize?: number
  ): Promise<void> {
    return readTrack<T>(
      track,
      // One at a time: a frame is closed only once it has been copied (fit).
      (item) => (!this.stopped && !this.failed ? each(item) : undefined),
      (e) => this.fail(`The encoder stopped: ${String(e)}`),
      maxBufferSize
    )
  }

  private async onFrame(frame: VideoFrame): Promise<void> {
    const enc = this.video
    if (!enc || enc.state !== 'configured') return
    const ts = frame.timestamp
    this.zero ??= { us: ts, at: performance.now() }
    this.window.given++
    const rung = this.ladder.rung
    // A lower frame rate (the rung's, or a quarter above what the encoder is told: admittedFps)
    // drops frames before the encoder, on the frames' own clock; at the output's rate every frame
    // the source gives goes in.
    const fps = admittedFps(rung.fps, this.toldFps)
    const step = 1e6 / fps
    if (fps < this.output.fps) {
      if (ts < this.nextFrameUs) return
      this.nextFrameUs = Math.max(this.nextFrameUs + step, ts + step / 2)
    }
    if (enc.encodeQueueSize > MAX_ENCODE_QUEUE) {
      this.droppedFrames++
      return
    }
    this.window.offered++
    // A keyframe due is always made: segmenters cut on it, and main waits on it after a drop.
    if (!this.budget.admit(ts, this.ladder.targetKbps) && !this.keyDue(ts, step)) {
      this.budgetSkips++
      return
    }
    const scaled = await this.fit(frame, rung)
    try {
      // The copy and scaling took a moment: the encoder may have been stopped or remade meanwhile.
      if (this.stopped || this.failed || enc.state !== 'configured') return
      const key = this.keyDue(ts, step)
      if (key) {
        this.wantKey = false
        this.lastKeyUs = ts
      }
      enc.encode(scaled ?? frame, { keyFrame: key })
    } finally {
      scaled?.close()
    }
  }

  /** A keyframe is asked for, or the interval since the last one ends with this frame. */
  private keyDue(ts: number, stepUs: number): boolean {
    return this.wantKey || ts - this.lastKeyUs >= this.output.keyframeIntervalSec * 1e6 - stepUs / 2
  }

  /**
   * The frame as the encoder takes it: as it is when it has the output's size and the rung is the top
   * one; at the top rung in another size, drawn (kept in shape, black around) at the output's size;
   * at a lower rung, drawn at the rung's size only. The encoder, configured at the output's size,
   * scales a smaller frame up itself (Chromium, off the page's thread; measured: the coded size
   * stays the output's). The drawing's smoothing is what lets the content fit: strong camera noise
   * at 720p cost OpenH264 2.5 Mbit/s whatever the target (its QP at the limit, a keyframe every half
   * second), the same noise drawn at 360p and scaled up 0.93 Mbit/s for a 1.0 target, at the same
   * frame rate. Drawing it again at the output's size as well (as before) cost the page's thread a
   * second full-size draw for every frame.
   *
   * The scaling is frame-fit.ts's: in YUV for a camera, on a canvas for a screen or a scene.
   */
  private async fit(frame: VideoFrame, rung: Rung): Promise<VideoFrame | undefined> {
    const { width: W, height: H } = this.size
    const top = rung.width === W && rung.height === H
    if (top && frame.displayWidth === W && frame.displayHeight === H) return undefined
    return this.fitter.fit(frame, rung.width, rung.height)
  }

  private onVideoChunk(chunk: EncodedVideoChunk, meta?: EncodedVideoChunkMetadata): void {
    const zero = this.zero
    if (!zero || !this.mux) return
    if (meta?.decoderConfig) this.checkParams(meta.decoderConfig)
    // A keyframe the encoder made on its own (a restart) starts the keyframe interval again.
    if (chunk.type === 'key') this.lastKeyUs = Math.max(this.lastKeyUs, chunk.timestamp)
    this.budget.spend(chunk.byteLength)
    this.measure(chunk)
    const packet = packetAt(chunk, chunk.timestamp - zero.us)
    this.lastVideoUs = chunk.timestamp - zero.us
    const mux = this.mux
    this.muxChain = this.muxChain
      .then(() => mux.video(packet, meta))
      .catch((e) => this.muxFailed(e))
  }

  private onAudioChunk(chunk: EncodedAudioChunk, meta?: EncodedAudioChunkMetadata): void {
    // The encoder gives its config once, perhaps with a chunk from before the first picture.
    if (meta?.decoderConfig) this.audioMeta = meta
    const zero = this.zero
    if (!zero || !this.mux) return
    const at = this.soundStamps.stamp(
      { timestampUs: chunk.timestamp, durationUs: chunk.duration },
      zero,
      performance.now(),
      this.lastVideoUs
    )
    if (at === undefined) return
    const packet = packetAt(chunk, at)
    this.lastAudioUs = at
    const mux = this.mux
    const kept = this.audioMeta
    this.muxChain = this.muxChain
      .then(() => mux.audio(packet, kept))
      .catch((e) => this.muxFailed(e))
  }

  /**
   * The muxer keeps the first SPS/PPS for the whole stream: a reconfigure that changed how the stream
   * decodes (profile, a higher level, size, PPS) would make the rest undecodable, so say so rather
   * than send a broken stream. The SPS's colour tags may change and are let through: camera frames
   * come tagged BT.709, the scaled canvas frames sRGB, and Chromium's encoder writes a new SPS for
   * that alone; they do not change decoding. So may a lower level under new ids (avcDecodingParams).
   */
  private checkParams(config: VideoDecoderConfig): void {
    const d = config.description
    if (!d) return
    const bytes =
      d instanceof ArrayBuffer || d instanceof SharedArrayBuffer
        ? new Uint8Array(d)
        : new Uint8Array(d.buffer, d.byteOffset, d.byteLength)
    const params = avcDecodingParams(bytes, config)
    if (this.firstParams === undefined) this.firstParams = params
    else if (!avcParamsCarry(this.firstParams, params))
      this.fail(
        'The encoder changed its H.264 parameters mid-stream, which the stream cannot carry.'
      )
  }

  /**
   * The output's own bitrate and frame rate over each window of media time; the ladder hears every
   * window, and the encoder is told the frame rate it really gets.
   */
  private measure(chunk: EncodedVideoChunk): void {
    const w = this.window
    if (w.startUs < 0) w.startUs = chunk.timestamp
    const span = chunk.timestamp - w.startUs
    if (span >= WINDOW_US) {
      this.measuredKbps = Math.round((w.bytes * 8) / (span / 1e6) / 1000)
      this.measuredForKbps = this.ladder.targetKbps
      this.measuredFps = Math.round((w.frames / (span / 1e6)) * 10) / 10
      if (this.zero)
        this.lagMs = Math.round(
          performance.now() - this.zero.at - (chunk.timestamp - this.zero.us) / 1000
        )
      const demand = demandKbps(w, span / 1e6)
      this.window = emptyWindow(chunk.timestamp)
      const before = this.ladder.at
      // The ladder judges what the encoder would have made with every frame: held to its budget,
      // an encoder that cannot fit the rung shows it in frames skipped, not in bytes.
      const stepped = this.ladder.measured(demand) !== before
      // Told what the source gives, not what was encoded: told what the budget let through, the
      // encoder spent the whole bitrate on ever fewer, ever larger frames (measured: 7 fps at 360p).
      const givenFps = w.given / (span / 1e6)
      const fps = encoderFramerate(this.ladder.rung.fps, givenFps, this.toldFps)
      if (fps !== undefined) this.toldFps = fps
      if (stepped || fps !== undefined) this.reconfigure()
      this.onStats(this.stats)
    }
    this.window.bytes += chunk.byteLength
    this.window.frames++
    if (chunk.type === 'key') {
      this.window.keyBytes += chunk.byteLength
      this.window.keys++
    }
  }

  /** A new bitrate from main (the uplink's): the ladder may step the picture too. */
  setVideoBitrate(kbps: number): void {
    if (kbps === this.ladder.targetKbps || this.failed || this.stopped) return
    const from = this.ladder.targetKbps
    const rung = this.ladder.at
    this.ladder.retarget(kbps)
    this.reconfigure(retargetRestartsWindow(from, kbps, this.ladder.at !== rung))
    this.onStats(this.stats)
  }

  requestKeyframe(): void {
    this.wantKey = true
  }

  /**
   * The encoder takes a new bitrate or frame rate by configure() again. No keyframe is forced: on a
   * starved uplink every forced keyframe is a burst the link cannot carry (measured: the lowered
   * target overshot by half again). Chromium applies a bitrate or frame-rate change to the running
   * encoder; an encoder that must start over makes a keyframe of its own first frame, and the muxer
   * and main go by each chunk's own type, so a decoder can pick the stream up either way.
   */
  private reconfigure(restartWindow = true): void {
    this.config = this.encoderConfig()
    const enc = this.video
    if (!enc || enc.state !== 'configured') return
    enc.configure(this.config)
    // The window restarts (see retargetRestartsWindow): bytes from before the change say nothing of
    // a lower target or another picture.
    if (restartWindow) this.window = emptyWindow(-1)
  }

  private send(bytes: Uint8Array): void {
    if (this.failed) return
    this.pending.push(bytes)
    this.pump()
  }

  /** One push in flight; what the muxer wrote meanwhile goes in the next one, in order. */
  private pump(): void {
    if (this.inFlight || this.failed) return
    if (this.pending.length === 0) {
      this.drained?.()
      return
    }
    const parts = this.pending
    this.pending = []
    const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
    let at = 0
    for (const p of parts) {
      all.set(p, at)
      at += p.length
    }
    this.inFlight = this.api.pushMedia(this.runId, all).then((r) => {
      this.inFlight = undefined
      if (!r.ok) this.failWith(r.error)
      this.pump()
    })
  }

  private muxFailed(e: unknown): void {
    this.fail(`The stream could not be written: ${e instanceof Error ? e.message : String(e)}`)
  }

  private fail(message: string): void {
    this.failWith({ code: 'media', message })
  }

  private failWith(e: AppError): void {
    if (this.failed) return
    this.abandon()
    this.onError(e)
  }

  /**
   * Ends the reading by stopping the tracks (clones), not by cancelling the streams: a cancelled
   * stream drops the frames still queued in it without closing them, and Chromium warns of each one
   * garbage-collected. An ended track closes its stream after the queued frames, which the loops
   * read and close.
   */
  private release(): void {
    for (const t of this.tracks) t.stop()
    for (const enc of [this.video, this.audio]) if (enc && enc.state !== 'closed') enc.close()
    this.audioWorker?.terminate()
  }

  /** Stops reading, encodes what was read, and resolves once the last bytes were handed to main. */
  async stop(): Promise<void> {
    if (this.stopped || this.failed) return
    this.stopped = true
    await endReading(this.tracks, this.loops)
    await Promise.all(
      [this.video, this.audio].map((enc) =>
        enc && enc.state === 'configured' ? enc.flush().catch(() => {}) : undefined
      )
    )
    await this.muxChain
    await this.mux?.finish().catch((e: unknown) => this.muxFailed(e))
    const drained = new Promise<void>((resolve) => (this.drained = resolve))
    this.pump()
    if (this.inFlight || this.pending.length) await drained
    this.release()
  }

  /** Stops without waiting (the run already ended on main's side). */
  abandon(): void {
    if (this.failed) return
    this.failed = true
    this.release()
    void this.mux?.cancel().catch(() => {})
    // A stop waiting for the last push must not wait for one that will never be made.
    this.drained?.()
  }
}

/**
 * What this browser's WebCodecs can encode at the output's size, hardware and software; nothing where
 * it has no VideoEncoder or cannot read a track's frames (then MediaRecorder does the work).
 */
export async function browserEncoderSupport(output: OutputSettings): Promise<EncoderSupport> {
  if (typeof VideoEncoder === 'undefined' || !('MediaStreamTrackProcessor' in globalThis)) return {}
  return probeEncoders(
    (c) => VideoEncoder.isConfigSupported(c),
    { width: output.width & ~1, height: output.height & ~1, fps: output.fps },
    output.videoBitrateKbps
  )
}

/**
 * What in an avcC record decides decoding: `key`, text to compare (profile and constraints, the coded
 * size, and each PPS but for its own id and its SPS's id), and the level. The SPS itself is left out
 * (its VUI carries colour tags), and so are the ids: after a frame-rate change (a recording running
 * beside the broadcast slows the source), Chromium's software encoder wrote a lower level under a new
 * SPS id, and a PPS that differed only in pointing at it. The slices name only the PPS id, so the
 * first record still decodes them.
 */
export function avcDecodingParams(
  avcC: Uint8Array,
  size: { codedWidth?: number; codedHeight?: number }
): { key: string; level: number } {
  const hex = (b: Uint8Array): string =>
    Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')
  const len = (at: number): number => ((avcC[at] ?? 0) << 8) | (avcC[at + 1] ?? 0)
  let at = 6
  const spsCount = (avcC[5] ?? 0) & 0x1f
  for (let i = 0; i < spsCount; i++) at += 2 + len(at)
  const ppsCount = avcC[at] ?? 0
  at++
  const pps: string[] = []
  for (let i = 0; i < ppsCount && at < avcC.length; i++) {
    const n = len(at)
    // The NAL's header byte is skipped; the rest is read past pic_parameter_set_id and seq_parameter_set_id.
    pps.push(ppsWithoutIds(avcC.subarray(at + 3, at + 2 + n)))
    at += 2 + n
  }
  return {
    key: `${hex(avcC.subarray(1, 3))} ${size.codedWidth}x${size.codedHeight} ${pps.join(' ')} ${hex(avcC.subarray(at))}`,
    level: avcC[3] ?? 0
  }
}

/**
 * A stream that began with `first` can go on under `next`: the same decoding, at no higher a level
 * than the one the stream declared (a lower level is a promise the stream still keeps).
 */
export function avcParamsCarry(
  first: { key: string; level: number },
  next: { key: string; level: number }
): boolean {
  return next.key === first.key && next.level <= first.level
}

/** A PPS's RBSP (emulation bytes removed) as bits, past its two leading ue(v) ids, to its stop bit. */
function ppsWithoutIds(nal: Uint8Array): string {
  const bytes: number[] = []
  for (let i = 0; i < nal.length; i++) {
    const n = bytes.length
    if (nal[i] === 3 && n >= 2 && bytes[n - 1] === 0 && bytes[n - 2] === 0) continue
    bytes.push(nal[i]!)
  }
  const bits = bytes.map((b) => b.toString(2).padStart(8, '0')).join('')
  let at = 0
  const skipUe = (): void => {
    let zeros = 0
    while (at < bits.length && bits[at] === '0') {
      zeros++
      at++
    }
    at += 1 + zeros
  }
  skipUe()
  skipUe()
  // Byte alignment pads the end with zeros, as many as the ids' lengths leave.
  return bits.slice(at).replace(/0+$/, '')
}

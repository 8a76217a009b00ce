// The capture handed to Onair's encoder (#33) as raw media, OBS's shape: the page is the compositor
// (camera, screen, scene) and the encoder process, outside the page, makes the H.264 every output
// shares. Each video frame is fitted to the Output's size as I420 (frame-fit.ts: copied as it is,
// scaled in YUV, or converted from RGB), frames beyond the Output's rate left out on their own clock;
// the sound is read in the audio worker as 48 kHz stereo f32 planar copies (raw-sound.ts, silence where
// the capture lost sound). Both go in raw-media messages (shared/raw-media.ts) with their capture times,
// a frame and the sound read since in one pushFrames call.
//
// Two calls may be unanswered at once (raw-calls.ts: both ways pushFrames takes keep the order); what
// comes meanwhile waits and goes in the next call, up to MAX_BATCH frames: a call costs a fixed part
// on top of its bytes, so a slow call is followed by a larger one rather than by skipped frames. A
// frame that finds the batch full is skipped and counted (pipeSkips: "skipped by this computer");
// sound is never skipped for that, it waits for the next call (up to MAX_SOUND_WAIT_US).
import type { OnairApi, OutputSettings, VideoEncoderId } from '../../../../../shared/contract'
import { RAW_HEADER_BYTES, i420Bytes, writeRawHeader } from '../../../../../shared/raw-media'
import type { AppError } from '../../../../../shared/result'
import type { EncoderStats, Pusher } from './pusher'
import { FrameFitter } from './frame-fit'
import { BytePool } from './byte-pool'
import { RawCalls } from './raw-calls'
import { rawSoundOf } from './audio-encode'
import { RAW_CHANNELS, RAW_SAMPLE_RATE, SoundToRaw } from './raw-sound'
import { soundClockOffset } from './sound-stamps'
import { AUDIO_QUEUE, endReading, readSoundInWorker, readTrack } from './track-reader'

/** Frames waiting for the call in flight to end; one more finding them there is skipped. */
export const MAX_BATCH = 3
/** Sound sent on its own (no frame to go with it) once this much waits and the way is free. */
const SOUND_ALONE_US = 100_000
/** Sound waiting longer than this (the way to main blocked) is dropped, oldest first. */
const MAX_SOUND_WAIT_US = 2_000_000
/** The figures the live bar shows are made over this much of the frames' time. */
const WINDOW_US = 1_000_000

/** Onair's encoder for the run, as goLive answered it. */
export interface AppEncoder {
  id: VideoEncoderId
  /** In words for the live bar: "x264 veryfast", "NVIDIA NVENC H.264". */
  label: string
}

interface Sound {
  bytes: Uint8Array
  timestampUs: number
  frames: number
  /** When it came (performance.now()), to line a sound clock up with the picture's. */
  at: number
}

export class RawPusher implements Pusher {
  private tracks: MediaStreamTrack[] = []
  private loops: Promise<void>[] = []
  private audioWorker: Worker | undefined
  private audioIn: 'worker' | 'page' | undefined
  private readonly fitter = new FrameFitter()
  /** The messages' buffers, taken back once their call is answered (no fresh buffer a frame). */
  private readonly pool = new BytePool()
  private readonly soundIn = new SoundToRaw()
  private readonly size: { width: number; height: number }
  private readonly stepUs: number
  private nextFrameUs = -Infinity
  /** The first frame sent: its time, and when it came. */
  private zero: { us: number; at: number } | undefined
  /** Subtracted from the sound's times to put them on the picture's clock (0: the same clock). */
  private soundShift: number | undefined
  private sound: Sound[] = []
  /** The calls to main: what waits for the next one, and those unanswered. */
  private readonly calls: RawCalls
  /** A frame being copied holds its hand-over. */
  private preparing = false
  private drained: (() => void) | undefined
  private ending = false
  private failed = false
  private filledUs = 0
  /** Frames skipped because both hand-overs were taken. */
  pipeSkips = 0
  private window = { startUs: -1, sent: 0, copyMs: 0, calls: 0, callMs: 0 }
  private measuredFps: number | null = null
  private copyMs: number | null = null
  private callMs: number | null = null

  constructor(
    private readonly api: OnairApi,
    private readonly runId: string,
    private readonly stream: MediaStream,
    private readonly output: OutputSettings,
    private readonly encoder: AppEncoder,
    private readonly onError: (e: AppError) => void,
    private readonly onStats: (s: EncoderStats) => void = () => {}
  ) {
    // Even sizes: 4:2:0 pictures cannot have odd ones.
    this.size = { width: output.width & ~1, height: output.height & ~1 }
    this.stepUs = 1e6 / output.fps
    this.calls = new RawCalls({
      send: (bytes) => this.api.pushFrames(this.runId, bytes),
      pool: this.pool,
      onAnswer: (ms) => {
        this.window.calls++
        this.window.callMs += ms
      },
      onError: (e) => this.failWith(e),
      onEmpty: () => {
        if (!this.preparing) this.drained?.()
      }
    })
  }

  get stats(): EncoderStats {
    return {
      path: 'app',
      label: this.encoder.label,
      codec: 'H.264',
      ...this.size,
      fps: this.output.fps,
      targetKbps: this.output.videoBitrateKbps,
      measuredKbps: null,
      measuredFps: this.measuredFps,
      copyMs: this.copyMs,
      callMs: this.callMs,
      backlogBytes: this.calls.waitingBytes + this.sound.reduce((n, s) => n + s.bytes.length, 0),
      audioFilledMs: Math.round(this.filledUs / 1000),
      ...(this.audioIn ? { audioIn: this.audioIn } : {}),
      pipeSkips: this.pipeSkips
    }
  }

  async start(): Promise<void> {
    const [videoTrack] = this.stream.getVideoTracks()
    if (!videoTrack) throw new Error('the source has no video')
    const audioTrack = this.stream.getAudioTracks()[0]
    this.onStats(this.stats)
    // Clones: stopping the reading must not stop the preview's picture or sound.
    const v = videoTrack.clone()
    this.tracks.push(v)
    this.loops.push(
      readTrack<VideoFrame>(
        v,
        (f) => this.onFrame(f),
        (e) => this.fail(`The picture could not be read: ${String(e)}`)
      )
    )
    if (audioTrack) {
      const a = audioTrack.clone()
      this.tracks.push(a)
      this.loops.push(this.readSound(a))
    }
  }

  /** The sound, read in the audio worker as raw copies; on this thread where no worker loads. */
  private readSound(track: MediaStreamTrack): Promise<void> {
    return readSoundInWorker({
      track,
      mode: { raw: true },
      onMessage: (m) => {
        if (!('raw' in m)) return
        this.filledUs = m.filledUs
        this.onSound(new Uint8Array(m.raw), m.timestampUs)
      },
      onError: (message) => this.fail(`The sound could not be read: ${message}`),
      gone: () => this.failed,
      here: () =>
        readTrack<AudioData>(
          track,
          (d) => {
            if (this.failed) return
            for (const p of rawSoundOf(d, this.soundIn)) this.onSound(p.bytes, p.timestampUs)
            this.filledUs = this.soundIn.filledUs
          },
          (e) => this.fail(`The sound could not be read: ${String(e)}`),
          AUDIO_QUEUE
        ),
      onWorker: (w) => (this.audioWorker = w),
      onWhere: (where) => (this.audioIn = where)
    })
  }

  /** Nothing in flight, waiting or being copied. */
  private idle(): boolean {
    return this.calls.idle && !this.preparing
  }

  private async onFrame(frame: VideoFrame): Promise<void> {
    if (this.ending || this.failed) return
    const ts = frame.timestamp
    // Frames beyond the Output's rate are left out, on the frames' own clock.
    if (ts < this.nextFrameUs) return
    this.nextFrameUs = Math.max(this.nextFrameUs + this.stepUs, ts + this.stepUs / 2)
    if (this.calls.frames + (this.preparing ? 1 : 0) >= MAX_BATCH) {
      this.pipeSkips++
      return
    }
    this.zero ??= { us: ts, at: performance.now() }
    const { width, height } = this.size
    const pictureEnd = RAW_HEADER_BYTES + i420Bytes(width, height)
    this.preparing = true
    const copyAt = performance.now()
    let bytes: Uint8Array
    try {
      const sound = this.takeSound()
      bytes = this.pool.take(pictureEnd + sound.reduce((n, s) => n + s.length, 0))
      writeRawHeader(bytes, 0, { kind: 'video', width, height, timestampUs: ts })
      await this.fitter.i420(frame, width, height, bytes.subarray(RAW_HEADER_BYTES, pictureEnd))
      let at = pictureEnd
      for (const s of sound) {
        bytes.set(s, at)
        at += s.length
      }
    } finally {
      this.preparing = false
    }
    if (this.failed) return
    this.window.copyMs += performance.now() - copyAt
    this.measure(ts)
    this.calls.add([bytes], 1)
  }

  /** Frames sent a second, over windows of the frames' time. */
  private measure(ts: number): void {
    const w = this.window
    if (w.startUs < 0) w.startUs = ts
    w.sent++
    const span = ts - w.startUs
    if (span >= WINDOW_US) {
      const r1 = (n: number): number => Math.round(n * 10) / 10
      this.measuredFps = r1((w.sent - 1) / (span / 1e6))
      this.copyMs = r1(w.copyMs / w.sent)
      this.callMs = w.calls ? r1(w.callMs / w.calls) : null
      this.window = { startUs: ts, sent: 1, copyMs: 0, calls: 0, callMs: 0 }
      this.onStats(this.stats)
    }
  }

  private onSound(bytes: Uint8Array, timestampUs: number): void {
    if (this.failed) return
    const frames = (bytes.length - RAW_HEADER_BYTES) / (4 * RAW_CHANNELS)
    this.sound.push({ bytes, timestampUs, frames, at: performance.now() })
    // Blocked for long: the oldest goes (a gap in the sound rather than a growing delay).
    let waitingUs = this.soundWaitingUs()
    while (waitingUs > MAX_SOUND_WAIT_US && this.sound.length > 1)
      waitingUs -= (this.sound.shift()!.frames / RAW_SAMPLE_RATE) * 1e6
    // No frame to carry it (a still screen sends none): it goes on its own once the way is free.
    if (this.zero && waitingUs >= SOUND_ALONE_US && this.idle()) this.sendSound()
  }

  private soundWaitingUs(): number {
    return this.sound.reduce((n, s) => n + (s.frames / RAW_SAMPLE_RATE) * 1e6, 0)
  }

  /**
   * The sound waiting, on the picture's clock. The sound's capture clock is taken as the picture's
   * when the first sound's time agrees with its arrival (soundClockOffset, sound-stamps.ts); otherwise (the clocks
   * differ: measured here, the fake camera's and microphone's by seconds) the first sound lines up
   * on arrival. The encoder continues the sound's count from its first message, and leaves out sound
   * from before the first frame.
   */
  private takeSound(): Uint8Array[] {
    const zero = this.zero
    if (!zero || this.sound.length === 0) return []
    const first = this.sound[0]!
    this.soundShift ??= soundClockOffset(first.timestampUs, first.at, zero)
    const shift = this.soundShift
    const out = this.sound.map((s) => {
      if (shift !== 0)
        writeRawHeader(s.bytes, 0, {
          kind: 'audio',
          sampleRate: RAW_SAMPLE_RATE,
          channels: RAW_CHANNELS,
          frames: s.frames,
          timestampUs: s.timestampUs - shift
        })
      return s.bytes
    })
    this.sound = []
    return out
  }

  private sendSound(): void {
    this.calls.add(this.takeSound())
  }

  // Onair's encoder takes main's bitrate and keyframe requests itself (the uplink controller calls it
  // directly): nothing to do in the page.
  setVideoBitrate(): void {}
  requestKeyframe(): void {}

  private fail(message: string): void {
    this.failWith({ code: 'media', message })
  }

  private failWith(e: AppError): void {
    if (this.failed) return
    this.abandon()
    this.onError(e)
  }

  private release(): void {
    for (const t of this.tracks) t.stop()
    this.audioWorker?.terminate()
  }

  /** Stops reading, hands main the last frame and sound, and resolves once main has taken them. */
  async stop(): Promise<void> {
    if (this.ending || this.failed) return
    this.ending = true
    await endReading(this.tracks, this.loops)
    this.sendSound()
    const drained = new Promise<void>((resolve) => (this.drained = resolve))
    this.calls.pump()
    if (!this.idle()) await drained
    this.release()
    this.onStats(this.stats)
  }

  /** Stops without waiting (the run already ended on main's side). */
  abandon(): void {
    if (this.failed) return
    this.failed = true
    this.release()
    this.calls.stop()
    this.sound = []
    this.drained?.()
  }
}

// MediaRecorder -> pushMedia, one chunk at a time and in order. Each push is awaited before the next
// starts (main applies backpressure by resolving late); the chain keeps the order MediaRecorder gave.
// It is the fallback where WebCodecs cannot encode H.264 (webcodecs-pusher.ts is the default).
import type { EncoderChoice, OnairApi, OutputSettings } from '../../../../shared/contract'
import type { AppError } from '../../../../shared/result'

/** What the health strip says of the encoder in use. */
export interface EncoderStats {
  /** app: Onair's encoder, fed raw frames (raw-pusher.ts); the others encode in the page. */
  path: 'webcodecs' | 'mediarecorder' | 'app'
  /** Onair's encoder in words: "x264 veryfast", "NVIDIA NVENC H.264". */
  label?: string
  /** The WebCodecs encoder the run got; MediaRecorder does not say which it uses. */
  encoder?: EncoderChoice
  codec: string
  /** The picture's encoded size and rate (a lower rung when the encoder stepped down). */
  width: number
  height: number
  fps: number
  targetKbps: number
  /** The video's own bitrate over the last window; null until one has passed. */
  measuredKbps: number | null
  /**
   * The target that window was made for: higher than `targetKbps` just after a lowering, until a
   * window at the new target has passed (what was made for more is no overshoot of less).
   */
  measuredForKbps?: number | null
  /** Frames encoded a second over the last window (the source may give fewer than `fps`). */
  measuredFps?: number | null
  /** Bytes written by the muxer and not yet handed to main (a push is in flight). */
  backlogBytes?: number
  /** How far the encoded picture is behind the clock since the first frame (ms). */
  lagMs?: number | null
  /** The newest video packet's time less the newest audio packet's (the muxer waits for the later). */
  audioBehindMs?: number | null
  /** Times sound late for good jumped forward to the picture (a gap in the sound each). */
  audioJumps?: number
  /** Sound packets dropped because they came too late to go out beside their picture. */
  audioLate?: number
  /** Sound the capture lost (the page read it too late) and silence stood in for (ms). */
  audioFilledMs?: number
  /** Where the sound is read and encoded: a worker, or the page's thread where none could start. */
  audioIn?: 'worker' | 'page'
  /** Frames not encoded because the output had spent its bitrate's budget (a real cap). */
  budgetSkips?: number
  /** Frames not encoded because the browser's encoder was too far behind (MAX_ENCODE_QUEUE waiting). */
  queueSkips?: number
  /**
   * Onair's encoder: frames this computer skipped before handing them over, because the way to the
   * encoder was full (two hand-overs still waiting).
   */
  pipeSkips?: number
  /** Onair's encoder: the mean time to copy a frame into its message, and a pushFrames call's (ms). */
  copyMs?: number | null
  callMs?: number | null
}

/** A run's encoder feeding main: MediaRecorder's or the page's own. */
export interface Pusher {
  start(): void | Promise<void>
  stop(): Promise<void>
  abandon(): void
  /** Encode at this video bitrate from now on (main's uplink controller). */
  setVideoBitrate(kbps: number): void
  /** Make a keyframe now (main dropped media up to the next one). */
  requestKeyframe(): void
  readonly stats: EncoderStats
}

/** Small slices keep latency low and let main start ffmpeg on the first bytes. */
const TIMESLICE_MS = 250

export class MediaPusher implements Pusher {
  private recorder: MediaRecorder
  private chain: Promise<void> = Promise.resolve()
  private failed = false

  constructor(
    private readonly api: OnairApi,
    private readonly runId: string,
    stream: MediaStream,
    private readonly mimeType: string,
    private readonly output: OutputSettings,
    private readonly onError: (e: AppError) => void
  ) {
    const options = {
      mimeType,
      videoBitsPerSecond: output.videoBitrateKbps * 1000,
      audioBitsPerSecond: output.audioBitrateKbps * 1000,
      // Chromium-only option (not in lib.dom yet): a keyframe every interval, so the ingest can cut
      // segments on time. Other engines ignore unknown keys.
      videoKeyFrameIntervalDuration: output.keyframeIntervalSec * 1000
    } as MediaRecorderOptions
    this.recorder = new MediaRecorder(stream, options)
    this.recorder.ondataavailable = (ev) => {
      if (ev.data.size > 0) this.enqueue(ev.data)
    }
    this.recorder.onerror = (ev) => {
      const err = (ev as Event & { error?: DOMException }).error
      this.fail({
        code: 'media',
        message: `The encoder stopped: ${err?.message ?? 'unknown error'}`
      })
    }
  }

  start(): void {
    this.recorder.start(TIMESLICE_MS)
  }

  // MediaRecorder can neither change its bitrate nor make a keyframe on demand: main's uplink
  // controller is not followed on this path (it still drops media up to the next scheduled keyframe).
  setVideoBitrate(): void {}
  requestKeyframe(): void {}

  get stats(): EncoderStats {
    const { width, height, fps, videoBitrateKbps } = this.output
    return {
      path: 'mediarecorder',
      codec: this.mimeType,
      width,
      height,
      fps,
      targetKbps: videoBitrateKbps,
      measuredKbps: null
    }
  }

  private enqueue(blob: Blob): void {
    this.chain = this.chain.then(async () => {
      if (this.failed) return
      const r = await this.api.pushMedia(this.runId, new Uint8Array(await blob.arrayBuffer()))
      if (!r.ok) this.fail(r.error)
    })
  }

  private fail(e: AppError): void {
    if (this.failed) return
    this.failed = true
    if (this.recorder.state !== 'inactive') this.recorder.stop()
    this.onError(e)
  }

  /** Stops recording and resolves once the last chunk has been handed to main. */
  async stop(): Promise<void> {
    if (this.recorder.state !== 'inactive') {
      const last = new Promise<void>((resolve) =>
        this.recorder.addEventListener('stop', () => resolve(), { once: true })
      )
      this.recorder.stop()
      await last
    }
    await this.chain
  }

  /** Stops without waiting (the run already ended on main's side). */
  abandon(): void {
    this.failed = true
    if (this.recorder.state !== 'inactive') this.recorder.stop()
  }
}

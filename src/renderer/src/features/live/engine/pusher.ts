// What every run's pusher is (the page's encoders feeding main: webcodecs-pusher.ts, raw-pusher.ts,
// media-recorder-pusher.ts) and what it says of its encoder for the health strip. Types only.
import type { EncoderChoice } from '../../../../../shared/contract'

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

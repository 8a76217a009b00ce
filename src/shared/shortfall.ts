// Why a live stream falls short of its target, as main judges it: states and numbers only. The
// renderer puts it in words (features/live/health-text.ts), as it does the encoder line.

export type Shortfall =
  /** Onair's encoder skipped frames lately, whatever the upload does (OBS's "encoding overloaded"). */
  | { cause: 'encoder-skips'; skippedFrames: number; windowS: number; cpuPercent?: number }
  /** A computer too busy to encode and send in real time (the page encodes): its queue is no measure of the upload. */
  | {
      cause: 'busy-computer'
      dropping: boolean
      cpuPercent?: number
      /** Frames a second going out, when fewer than the target is what the busy computer costs. */
      deliveredFps?: number
      targetFps?: number
    }
  /** The upload carries less than the output needs (video + audio, kbit/s); carried unknown: less. */
  | { cause: 'upload'; dropping: boolean; carriedKbps?: number; needKbps: number }
  /** ffmpeg's encode runs below real time, or drops frames. */
  | { cause: 'encoder-slow' }
  /** The copy path: the ingest takes the stream slower than real time. */
  | { cause: 'network-slow' }
  /** The source delivers fewer frames a second than the target. */
  | { cause: 'source-fps'; deliveredFps: number; targetFps: number }

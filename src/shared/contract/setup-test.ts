// Types only: the setup test's measures, recommendation and progress (shared/setup-test.ts decides;
// main's setup-test/ measures). States and numbers only: the guide writes every sentence
// (renderer features/setup/setup-text.ts). Strings here are names (an encoder's label) or another
// program's own words (ffmpeg's last line, the OS's or the service's error), quoted as the cause.
import type { AutoDeclined, EncoderStartFailure, VideoEncoderId } from './encoders'

/** Why the upload has no figure. */
export type UploadFailure =
  /** The test was cancelled while it pushed. */
  | { kind: 'cancelled' }
  /** ffmpeg could not be started (detail: the OS's error). */
  | { kind: 'no-ffmpeg'; detail: string }
  /** The ingest took no test stream (detail: ffmpeg's last error line, redacted; else its exit code). */
  | { kind: 'refused'; detail: string | null; exitCode: number | null }
  /** The service gave the test stream no stream key. */
  | { kind: 'no-key' }
  /** Anything else that stopped the push (detail: the error's own words). */
  | { kind: 'failed'; detail: string }

export interface UploadMeasure {
  /** What the upload carried over the test's last seconds (kbit/s, the stream's bytes), or null. */
  kbps: number | null
  /** What the test stream pushed at (kbit/s). */
  pushedKbps: number
  /** Why there is no figure. */
  failure?: UploadFailure
}

export interface EncoderHold {
  width: number
  height: number
  fps: number
  /** Frames per second the encoder got through (frames encoded / seconds). */
  fpsReached: number
  /** Frames skipped because it could not keep up. */
  skipped: number
  holds: boolean
}

export interface EncoderMeasure {
  id: VideoEncoderId
  label: string
  /** What ran the test: Onair's encoder process, or ffmpeg's libx264 where the process cannot start. */
  via: 'encoder-process' | 'ffmpeg'
  sizes: EncoderHold[]
  /** Why Onair's encoder process could not run the test, so ffmpeg's libx264 did. */
  processFailure?: EncoderStartFailure
}

/** An output size and frame rate as the sentences name it (shared/setup-test.ts sizeName: "720p30"). */
export interface SetupSizeRef {
  height: number
  fps: number
}

/** One reason for the recommendation, as data (the guide writes each as one sentence). */
export type SetupReason =
  /** The local studio's ingest is on this computer: nothing limited the test stream. */
  | { kind: 'upload-local' }
  /** No upload figure (failure: why, when known). */
  | { kind: 'upload-unmeasured'; failure: UploadFailure | null }
  /** The upload carried all the test pushed: it is at least kbps. */
  | { kind: 'upload-unlimited'; kbps: number }
  /** The upload carried kbps; sharePercent of it (budgetKbps) fits size. */
  | {
      kind: 'upload-fits'
      kbps: number
      sharePercent: number
      budgetKbps: number
      size: SetupSizeRef
    }
  /** Even the least size wants more than the upload leaves for the picture. */
  | { kind: 'upload-too-thin'; size: SetupSizeRef; minKbps: number }
  /** The encoder (label) held size in real time. */
  | { kind: 'encoder-held'; label: string; size: SetupSizeRef }
  /** The encoder held none of the tested sizes, not even tried: floor is the least Onair offers. */
  | { kind: 'encoder-floor'; tried: SetupSizeRef; floor: SetupSizeRef }
  /** The encoder gave no result (failure: why Onair's encoder process could not run). */
  | { kind: 'encoder-untested'; failure: EncoderStartFailure | null }
  /**
   * x264 was timed alone, and this computer has fewer cores than Automatic wants for x264 beside the
   * capture (main/core/broadcaster.ts autoDeclines): the browser's encoder is recommended, as
   * Automatic would choose, at a size with room for the capture (shared/setup-test.ts CAPTURE_HEADROOM).
   */
  | ({ kind: 'encoder-browser' } & AutoDeclined)

export interface SetupRecommendation {
  width: number
  height: number
  fps: number
  videoBitrateKbps: number
  audioBitrateKbps: number
  /** 'browser': the browser's encoder (x264 would leave the capture short on this computer). */
  videoEncoder: VideoEncoderId | 'browser'
  /** 'upload': sized to the measured upload; 'encoder-only': no upload could be measured. */
  basis: 'upload' | 'encoder-only'
  /** The reasons, the upload's first (the guide writes one sentence each). */
  reasons: SetupReason[]
}

export interface SetupTestResult {
  service: { kind: 'local' | 'livepeer' | 'custom'; name: string }
  upload: UploadMeasure
  encoder: EncoderMeasure
  recommendation: SetupRecommendation
  /** ms since epoch */
  finishedAt: number
}

/** Where the test is: the guide writes the line for each (setup-text.ts progressText). */
export type SetupTestStep =
  /** Making the throwaway stream. */
  | { part: 'stream' }
  /** Pushing the test stream: what the upload carries now (kbit/s), null until there is a figure. */
  | { part: 'upload'; kbps: number | null }
  /** Timing the encoder at size; null once every size is timed. */
  | { part: 'encoder'; size: SetupSizeRef | null }
  | { part: 'done' }

/** A 'setup:progress' event: the step, with 0..1 of the whole test done. */
export type SetupTestProgress = SetupTestStep & {
  testId: string
  /** 0..1 of the whole test. */
  fraction: number
}

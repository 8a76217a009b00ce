// Types only: the setup test's measures and recommendation (shared/setup-test.ts decides; main's
// setup-test/ measures).
import type { VideoEncoderId } from './encoders'

export interface UploadMeasure {
  /** What the upload carried over the test's last seconds (kbit/s, the stream's bytes), or null. */
  kbps: number | null
  /** What the test stream pushed at (kbit/s). */
  pushedKbps: number
  /** Why there is no figure (the service refused the test stream, ...). */
  error?: string
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
  error?: string
}

export interface SetupRecommendation {
  width: number
  height: number
  fps: number
  videoBitrateKbps: number
  audioBitrateKbps: number
  videoEncoder: VideoEncoderId
  /** 'upload': sized to the measured upload; 'encoder-only': no upload could be measured. */
  basis: 'upload' | 'encoder-only'
  /** The reasons, in the creator's words, one sentence each. */
  reasons: string[]
}

export interface SetupTestResult {
  service: { kind: 'local' | 'livepeer' | 'custom'; name: string }
  upload: UploadMeasure
  encoder: EncoderMeasure
  recommendation: SetupRecommendation
  /** ms since epoch */
  finishedAt: number
}

/** 'upload' or 'encoder', with 0..1 of that part done and a line for the screen. */
export interface SetupTestProgress {
  testId: string
  part: 'stream' | 'upload' | 'encoder' | 'done'
  /** 0..1 of the whole test. */
  fraction: number
  message: string
}

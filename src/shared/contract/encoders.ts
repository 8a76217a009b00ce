// Values: the encoders Onair's encoder process can run and x264's presets, each a table (the Output
// form lists the presets; main's argument validators and shared/encoder-channel.ts check both), with
// the types made from them: the encoders a machine offers and the one a run uses.

/** The encoders Onair's encoder process can run (#33): x264, or a hardware one ffmpeg offers. */
export const VIDEO_ENCODER_IDS = [
  'x264',
  'nvenc',
  'qsv',
  'amf',
  'videotoolbox',
  'vaapi',
  'mediafoundation'
] as const
export type VideoEncoderId = (typeof VIDEO_ENCODER_IDS)[number]

/** x264's presets Onair offers, fastest first (OBS offers the same list; slower ones cannot keep up live). */
export const X264_PRESETS = [
  'ultrafast',
  'superfast',
  'veryfast',
  'faster',
  'fast',
  'medium'
] as const
export type X264Preset = (typeof X264_PRESETS)[number]

/** One encoder this machine was asked to open (probed once per app start). */
export interface EncoderInfo {
  id: VideoEncoderId
  /** "x264 (software)", "NVIDIA NVENC H.264" */
  label: string
  hardware: boolean
  /** It opened on a small test frame here. */
  available: boolean
  /** Why it cannot start here (the encoder's own error), when it cannot. */
  reason?: string
  /**
   * The encoder process could not run its probe at all (it did not start, timed out, or exited
   * without a list): x264 is then listed unavailable with this. The Output form words it.
   */
  probeFailure?: EncoderStartFailure
}

/**
 * A hardware encoder that would not open, so x264 runs: which one (its id and name) and the encoder's
 * own words. The live bar words it (features/live/encoder-text.ts hardwareFallbackNote).
 */
export interface HardwareFallback {
  tried: VideoEncoderId
  label: string
  detail: string
}

/**
 * Which encoder makes a run's picture: Onair's encoder process (the page sends raw frames with
 * pushFrames), or the page's own WebCodecs (pushMedia as before), with the reason when Onair's could
 * not start.
 */
export type RunEncoder =
  /** fallback: why it is not the encoder the Output chose (a hardware encoder that would not open). */
  | { kind: 'app'; id: VideoEncoderId; label: string; fallback?: HardwareFallback }
  /**
   * failure: why Onair's encoder could not start; auto: Automatic chose the browser's on this machine
   * (its CPU cores, and the least x264 is chosen on). The live bar words them
   * (features/live/encoder-text.ts).
   */
  | { kind: 'browser'; failure?: EncoderStartFailure; auto?: AutoDeclined }

/**
 * Why Onair's encoder process could not start, as a state with the words of whoever said why (the
 * renderer words it: lib/encoder-start-text.ts): one already runs ('busy'), it was not ready in time
 * ('timeout'), the OS could not start it ('spawn-failed'), it exited first (its signal or code and
 * last stderr lines), it refused the settings ('refused', its own words), or it stopped taking
 * pictures once started ('stopped', the host's words: the setup test's timing).
 */
export type EncoderStartFailure =
  | { kind: 'busy' }
  | { kind: 'timeout' }
  | { kind: 'spawn-failed'; detail: string }
  | { kind: 'exited'; signal: string | null; code: number | null; stderr: string[] }
  | { kind: 'refused'; detail: string }
  | { kind: 'stopped'; detail: string }

/** Automatic left x264 out: this machine has `cores` CPU cores, x264 is chosen from `minCores`. */
export interface AutoDeclined {
  cores: number
  minCores: number
}

export type EncoderChoice = 'hardware' | 'software'

import type { OutputSettings } from './contract'

/** What Go live starts from: 720p30 at 2.5 Mbit/s, AAC 128 kbit/s, a keyframe every 2 s. */
export const DEFAULT_OUTPUT: Readonly<OutputSettings> = Object.freeze({
  width: 1280,
  height: 720,
  fps: 30,
  videoBitrateKbps: 2500,
  audioBitrateKbps: 128,
  keyframeIntervalSec: 2
})

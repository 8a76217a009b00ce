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

/**
 * Low latency (WebRTC): the page posts its WHIP offer once it has a host candidate or gathering is
 * complete, and at most this long after the offer is made (no trickle; a server with a public
 * address learns the page's address from its checks, and host candidates are enough on one machine).
 */
export const WHIP_GATHER_CAP_MS = 250

// The health strip's sentences (HealthStrip.tsx shows them): main sends why a stream falls short as
// states and numbers (src/shared/shortfall.ts); every word the creator reads about it is made here.
// Pure, so tested in Node.
import { formatBitrate } from '../../lib/format'
import type { Shortfall } from '../../../../shared/shortfall'

/** Said when the stream has fallen short for a while and main named no cause. */
const UNKNOWN_CAUSE =
  'the encoder or the network cannot keep up: lower the bitrate or the resolution, or close other apps'

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`

/** One sentence (no capital, no stop) naming why the stream falls short. */
export function shortfallText(s: Shortfall): string {
  const load = 'cpuPercent' in s && s.cpuPercent !== undefined ? ` (CPU ${s.cpuPercent} %)` : ''
  switch (s.cause) {
    case 'encoder-skips':
      return `this computer cannot encode fast enough${load}: ${plural(s.skippedFrames, 'frame')} skipped in the last ${s.windowS} s; choose a faster preset or a smaller output size`
    case 'busy-computer':
      return `this computer is too busy to encode and send in real time${load}: ${busyCost(s)}; close other apps or choose a smaller output size`
    case 'upload': {
      const carried =
        s.carriedKbps === undefined
          ? 'less than'
          : `about ${formatBitrate(Math.min(s.carriedKbps, s.needKbps) * 1000)} of`
      return `your upload carries ${carried} the ${formatBitrate(s.needKbps * 1000)} needed: ${action(s.dropping)}`
    }
    case 'encoder-slow':
      return 'the encoder cannot keep up: lower the resolution or the frame rate, or close other apps'
    case 'network-slow':
      return 'the network cannot keep up: the ingest takes the stream slower than real time'
    case 'source-fps':
      return `the camera delivers ${Math.round(s.deliveredFps)} fps (of ${s.targetFps})`
  }
}

/** What a busy computer costs the stream: frames dropped, else too few frames, else a lower bitrate. */
const busyCost = (s: Extract<Shortfall, { cause: 'busy-computer' }>): string =>
  !s.dropping && s.deliveredFps !== undefined && s.targetFps !== undefined
    ? `${Math.round(s.deliveredFps)} of ${s.targetFps} frames a second go out`
    : action(s.dropping)

const action = (dropping: boolean): string =>
  dropping ? 'frames dropped to stay live' : 'quality lowered to stay live'

/** The upload's trouble as the strip's alert says it at once: a sentence. */
export const uplinkAlertText = (s: Shortfall): string => `${capitalise(shortfallText(s))}.`

/** Trouble that lasted: how long, and why when main knows. */
export const sustainedText = (seconds: number, s: Shortfall | undefined): string =>
  `For ${seconds} s the stream has fallen short: ${s ? shortfallText(s) : UNKNOWN_CAUSE}.`

/**
 * The bitrate rising again in steps (video kbit/s now and the output's own). Names no cause: the
 * bitrate is lowered for any queue, a short upload's or a busy computer's, and rises when none builds.
 */
export const recoveringText = (videoTargetKbps: number, maxVideoKbps: number): string =>
  `Quality coming back in steps while the stream keeps up (${formatBitrate(videoTargetKbps * 1000)} of ${formatBitrate(maxVideoKbps * 1000)} video).`

/** Frames that never reached the picture, and where: OBS's "skipped frames (encoding lag)". */
export const skippedText = (page: number, encoder: number): string =>
  `Frames skipped: ${page} by this computer (the way to the encoder was full), ` +
  `${encoder} by the encoder (it could not keep up)`

const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1)

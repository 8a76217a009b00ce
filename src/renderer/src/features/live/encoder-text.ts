// The live bar's encoder line in words (HealthStrip.tsx shows it): pure, so tested in Node.
import { formatBitrate } from '../../lib/format'
import type { EncoderStats } from './media-pusher'

/** "software H.264 (WebCodecs), 1280×720 30 fps": which encoder the run got and what it makes now. */
export function encoderText(e: EncoderStats): string {
  const what =
    e.path === 'webcodecs'
      ? `${e.encoder ?? 'software'} H.264 (WebCodecs)`
      : `the browser's (MediaRecorder, ${e.codec})`
  const target = formatBitrate(e.targetKbps * 1000)
  // Just after a lowering the last window was made for the old target: set beside the new one it
  // read as a large overshoot ("1.076 Mbps of 0.626 Mbps") until the next window ended.
  const measured =
    e.measuredKbps === null
      ? ''
      : e.measuredForKbps != null && e.measuredForKbps > e.targetKbps
        ? `, lowered to ${target} (was ${formatBitrate(e.measuredForKbps * 1000)}; measuring)`
        : `, ${formatBitrate(e.measuredKbps * 1000)} of ${target}`
  return `${what}, ${e.width}×${e.height} ${e.fps} fps${measured}`
}

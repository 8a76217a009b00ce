// The live bar's encoder line in words (HealthStrip.tsx shows it): pure, so tested in Node.
import { formatBitrate } from '../../lib/format'
import { encoderStartText } from '../../../../shared/encoder-start'
import type {
  AutoDeclined,
  EncoderInfo,
  EncoderStartFailure,
  HardwareFallback,
  OutputSettings,
  RunEncoder
} from '../../../../shared/contract'
import type { EncoderStats } from './engine/pusher'

/** Onair's encoder as the live bar names it: x264 with its preset ("x264 veryfast"), else main's label. */
export function appEncoderLabel(
  e: Extract<RunEncoder, { kind: 'app' }>,
  output: OutputSettings
): string {
  return e.id === 'x264' ? `x264 ${output.x264Preset ?? 'veryfast'}` : e.label
}

/**
 * Why an encoder the Output lists cannot start here, as a clause: its own error, or why the encoder
 * process could not run the probe at all (main's state).
 */
export const unavailableText = (e: EncoderInfo): string =>
  e.probeFailure
    ? encoderStartText(e.probeFailure).replace(/[.\s]+$/, '')
    : (e.reason ?? 'it did not start')

/** Why the browser's encoder makes the picture: Onair's could not start (main's cause). */
export const fallbackNote = (f: EncoderStartFailure): string =>
  `Onair's encoder could not start: ${encoderStartText(f).replace(/[.\s]+$/, '')}; the browser's encoder is used.`

/** Why the browser's encoder makes the picture: Automatic chose it on this machine (main's counts). */
export const autoNote = (a: AutoDeclined): string =>
  `Automatic: this computer has ${a.cores} CPU ${a.cores === 1 ? 'core' : 'cores'}, and x264 needs ${a.minCores} or more beside the capture, so the browser's encoder is used (choose x264 in Output to use it anyway).`

/**
 * Why another encoder than the Output's choice runs: a hardware encoder that would not open (which
 * one and its own words), and the encoder that runs instead (its label).
 */
export const hardwareFallbackNote = (f: HardwareFallback, label: string): string =>
  `${f.label} could not start: ${f.detail.replace(/[.\s]+$/, '')}; ${label} is used.`

/**
 * "x264 veryfast (Onair's encoder), 1280×720 30 fps, 29.8 fps sent": Onair's encoder, the picture the
 * page hands it, and what did not reach it.
 */
function appText(e: EncoderStats): string {
  const sent = e.measuredFps == null ? '' : `, ${e.measuredFps} fps sent`
  const skips = e.pipeSkips ?? 0
  const skipped =
    skips > 0 ? `, ${skips} frame${skips === 1 ? '' : 's'} skipped by this computer` : ''
  return `${e.label ?? 'x264'} (Onair's encoder), ${e.width}×${e.height} ${e.fps} fps${sent}${skipped}`
}

/** "software H.264 (WebCodecs), 1280×720 30 fps": which encoder the run got and what it makes now. */
export function encoderText(e: EncoderStats): string {
  if (e.path === 'app') return appText(e)
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
  const skips = e.queueSkips ?? 0
  const skipped =
    skips > 0 ? `, ${skips} frame${skips === 1 ? '' : 's'} skipped (the encoder was behind)` : ''
  return `${what}, ${e.width}×${e.height} ${e.fps} fps${measured}${skipped}`
}

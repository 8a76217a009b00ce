// The setup test in words (SetupGuide.tsx shows them): main sends states and numbers (the progress
// events, the measures and the recommendation's reasons), and every sentence the guide shows of them is
// written here. Pure, so tested in Node. Rates are written as everywhere in the app (lib/format).
import { encoderStartText } from '../../../../shared/encoder-start'
import { formatBitrate } from '../../lib/format'
import type {
  EncoderHold,
  EncoderStartFailure,
  SetupReason,
  SetupRecommendation,
  SetupTestProgress,
  SetupTestResult,
  UploadFailure
} from '../../../../shared/contract'
import { sizeName } from '../../../../shared/setup-test'

const mbps = (kbps: number): string => formatBitrate(kbps * 1000)
/** A clause set inside a sentence: its own full stop and trailing space dropped. */
const trimEnd = (s: string): string => s.replace(/[.\s]+$/, '')

/** The line under the progress bar; null before the first event. */
export function progressText(p: SetupTestProgress | null): string {
  if (!p) return 'Starting…'
  switch (p.part) {
    case 'stream':
      return 'Making a test stream…'
    case 'upload':
      return p.kbps === null ? 'Pushing the test stream…' : `Upload: ${mbps(p.kbps)}`
    case 'encoder':
      return p.size ? `Encoding ${sizeName(p.size)}…` : 'Encoder timed'
    case 'done':
      return 'Done'
  }
}

/** Why the upload has no figure, as the cause inside a sentence (no capital, no full stop). */
export function uploadFailureText(f: UploadFailure | null): string {
  if (!f) return 'no figure'
  switch (f.kind) {
    case 'cancelled':
      return 'cancelled'
    case 'no-ffmpeg':
      return `ffmpeg could not start: ${f.detail}`
    case 'refused':
      return `the ingest took no test stream${
        f.detail
          ? `: ${f.detail}`
          : f.exitCode === null
            ? ' (ffmpeg was stopped)'
            : ` (ffmpeg exited with code ${f.exitCode})`
      }`
    case 'no-key':
      return 'the service gave the test stream no stream key'
    case 'failed':
      return f.detail
  }
}

/** Why Onair's encoder process did not time the sizes, and what did instead. */
export const encoderFallbackText = (f: EncoderStartFailure): string =>
  `Onair's encoder process could not run here (${trimEnd(encoderStartText(f))}); ffmpeg's libx264 was timed instead.`

/** One reason of the recommendation, one sentence. */
export function reasonText(r: SetupReason): string {
  switch (r.kind) {
    case 'upload-local':
      return 'The local studio on this computer cannot measure an upload (its ingest is on this computer, so nothing limits the test stream): this is recommended from the encoder alone.'
    case 'upload-unmeasured':
      return `The upload could not be measured (${uploadFailureText(r.failure)}): this is recommended from the encoder alone.`
    case 'upload-unlimited':
      return `The upload carried all the test pushed: it is at least ${mbps(r.kbps)}; this is recommended from the encoder alone.`
    case 'upload-fits':
      return `The upload carried ${mbps(r.kbps)}: ${r.sharePercent} % of it is ${mbps(r.budgetKbps)} for picture and sound, which fits ${sizeName(r.size)}.`
    case 'upload-too-thin':
      return `Even ${sizeName(r.size)} wants ${mbps(r.minKbps)}: the picture will break up in motion on this upload.`
    case 'encoder-held':
      return `${r.label} held ${sizeName(r.size)} in real time on this computer.`
    case 'encoder-floor':
      return `The encoder did not hold even ${sizeName(r.tried)} in real time here: ${sizeName(r.floor)} is the least Onair offers.`
    case 'encoder-untested':
      return r.failure
        ? `The encoder could not be tested (Onair's encoder process could not run here: ${trimEnd(encoderStartText(r.failure))}).`
        : 'The encoder could not be tested (no result).'
    case 'encoder-browser':
      return `This computer has ${r.cores} CPU ${r.cores === 1 ? 'core' : 'cores'}, and x264 needs ${r.minCores} or more beside the camera and scene (it was timed alone): the browser's encoder is recommended, as Automatic chooses here, at a size of at most half the pixels a second x264 held, leaving room for the capture.`
  }
}

/**
 * The recommended encoder: the browser's, named as the Output form's list names it, or the one the
 * test timed (its label).
 */
export const recEncoderText = (r: SetupTestResult): string =>
  r.recommendation.videoEncoder === 'browser' ? 'Browser (WebCodecs)' : r.encoder.label

/** The recommended size: "1280×720, 30 fps". */
export const recSizeText = (r: SetupRecommendation): string =>
  `${r.width}×${r.height}, ${r.fps} fps`

/** The recommended bitrate: "2.5 Mbps picture + 128 kbit/s sound". */
export const recBitrateText = (r: SetupRecommendation): string =>
  `${mbps(r.videoBitrateKbps)} picture + ${r.audioBitrateKbps} kbit/s sound`

/** The result's "Upload measured" figure. */
export function uploadMeasuredText(r: SetupTestResult): string {
  const u = r.upload
  return r.recommendation.basis === 'encoder-only'
    ? 'not measured'
    : `${mbps(u.kbps ?? 0)} (the test pushed ${mbps(u.pushedKbps)})`
}

/** What the encoder test found at one size: "720p30: held (30 fps)". */
export const holdText = (s: EncoderHold): string =>
  `${sizeName(s)}: ${s.holds ? 'held' : 'not held'} (${s.fpsReached} fps${
    s.skipped ? `, ${s.skipped} frames skipped` : ''
  })`

/** What ran the encoder test. */
export const encoderViaText = (via: SetupTestResult['encoder']['via']): string =>
  via === 'ffmpeg' ? "ffmpeg's libx264" : "Onair's encoder process"

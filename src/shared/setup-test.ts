// The setup test (#34 §1, as OBS's Auto-Configuration Wizard): what it measured, and the one rule that
// turns that into Output settings. Main measures (src/main/core/setup-test); this file only decides,
// so the rule is tested without a network or an encoder.
//
// The rule:
// - The bitrate (picture + sound) is at most 75 % of the upload the test stream carried (the OBS
//   wiki's 70-75 % of a stable upload: the rest is headroom for the link's dips and other traffic).
// - The size and frame rate: the best of SIZES whose least bitrate fits that budget and that the
//   encoder held in real time on this machine.
// - The local studio on this computer has no upload to measure: its ingest is on loopback, so the
//   test stream is never limited. Then the size is the best the encoder holds, at that size's usual
//   bitrate, and the result says so.
// - The encoder: the one timed, except x264 on a computer with fewer cores than Automatic wants for
//   x264 beside the capture (the test times x264 alone): there, as Automatic, the browser's encoder,
//   and a size only where x264 alone held twice its pixels a second (CAPTURE_HEADROOM: room for the
//   capture, which costs about as much).
// The recommendation's reasons are data (SetupReason): the guide words them (setup-text.ts).
import type {
  AutoDeclined,
  EncoderMeasure,
  SetupReason,
  SetupRecommendation,
  SetupSizeRef,
  SetupTestResult,
  UploadMeasure
} from './contract'

/** One output size and frame rate the encoder test tries, with the bitrates that suit it (kbit/s, picture). */
export interface SetupSize {
  width: number
  height: number
  fps: number
  /** Below this the picture breaks up in motion: the size does not fit. */
  minKbps: number
  /** What it usually streams at (used when no upload was measured). */
  typicalKbps: number
  /** More than this buys little: the recommendation stops here. */
  maxKbps: number
}

/** Best first: the encoder test runs the first five; 360p30 is the floor, always offered. */
export const SETUP_SIZES: readonly SetupSize[] = [
  { width: 1920, height: 1080, fps: 60, minKbps: 6000, typicalKbps: 6000, maxKbps: 8000 },
  { width: 1920, height: 1080, fps: 30, minKbps: 4500, typicalKbps: 4500, maxKbps: 6000 },
  { width: 1280, height: 720, fps: 60, minKbps: 4000, typicalKbps: 4500, maxKbps: 6000 },
  { width: 1280, height: 720, fps: 30, minKbps: 2200, typicalKbps: 2500, maxKbps: 4000 },
  { width: 854, height: 480, fps: 30, minKbps: 1000, typicalKbps: 1500, maxKbps: 2000 },
  { width: 640, height: 360, fps: 30, minKbps: 400, typicalKbps: 800, maxKbps: 1000 }
]

/** The sizes the encoder test runs (the floor, 360p30, is not tried: it is offered regardless). */
export const TESTED_SIZES = SETUP_SIZES.slice(0, 5)

/** The share of the measured upload the recommendation may use. */
export const UPLOAD_SHARE = 0.75
/** The sound's bitrate (AAC), lowered on a thin upload. */
export const AUDIO_KBPS = 128
const THIN_AUDIO_KBPS = 96
/** The test stream carried at least this share of what it pushed: the link did not limit it. */
export const UNLIMITED_SHARE = 0.9

/** "720p30": a size and frame rate as the guide and the log name it. */
export const sizeName = (s: SetupSizeRef): string => `${s.height}p${s.fps}`
const sizeRef = (s: SetupSizeRef): SetupSizeRef => ({ height: s.height, fps: s.fps })
const same = (a: { width: number; height: number; fps: number }, b: typeof a): boolean =>
  a.width === b.width && a.height === b.height && a.fps === b.fps

/** Whether the upload figure is a real limit (the test stream was held back below what it pushed). */
export function uploadLimited(u: UploadMeasure): boolean {
  return u.kbps !== null && u.kbps < u.pushedKbps * UNLIMITED_SHARE
}

/** Pixels a second: what a size asks of an encoder. */
const pixelRate = (s: { width: number; height: number; fps: number }): number =>
  s.width * s.height * s.fps

/**
 * On a computer short of cores, the capture beside the encoder (the camera, the scene, the page) costs
 * about what x264 does (bench:encoder, 720p30: renderer and network service ~0.5 CPU s/s, x264 0.54):
 * a size is offered there when x264, timed alone, held at least this many times its pixels a second.
 */
export const CAPTURE_HEADROOM = 2

/**
 * The sizes the encoder held, best first, with the untested floor (360p30) always last. headroom: a
 * held size counts only when a held size has that many times its pixels a second.
 */
function heldSizes(enc: EncoderMeasure, headroom = 1): SetupSize[] {
  const floor = SETUP_SIZES[SETUP_SIZES.length - 1]!
  const rates = enc.sizes.filter((h) => h.holds).map(pixelRate)
  const held = SETUP_SIZES.filter(
    (s) =>
      enc.sizes.some((h) => h.holds && same(h, s)) &&
      rates.some((r) => r >= headroom * pixelRate(s))
  )
  return held.some((s) => same(s, floor)) ? held : [...held, floor]
}

const round50 = (kbps: number): number => Math.floor(kbps / 50) * 50

/**
 * The recommendation. autoDeclined: Automatic would not choose x264 on this computer (too few cores
 * for it beside the capture); absent where it would.
 */
export function recommendSettings(
  service: SetupTestResult['service'],
  upload: UploadMeasure,
  enc: EncoderMeasure,
  autoDeclined?: AutoDeclined
): SetupRecommendation {
  const browser = enc.id === 'x264' && autoDeclined !== undefined
  /** What the encoder held alone, and what it leaves room for the capture beside it. */
  const heldAlone = heldSizes(enc)
  const held = browser ? heldSizes(enc, CAPTURE_HEADROOM) : heldAlone
  const reasons: SetupReason[] = []
  const videoEncoder: SetupRecommendation['videoEncoder'] = browser ? 'browser' : enc.id
  const best = held[0]!
  if (heldAlone.length === 1 && enc.sizes.length)
    reasons.push({
      kind: 'encoder-floor',
      tried: sizeRef(TESTED_SIZES[TESTED_SIZES.length - 1]!),
      floor: sizeRef(heldAlone[0]!)
    })
  else if (enc.sizes.length)
    reasons.push({ kind: 'encoder-held', label: enc.label, size: sizeRef(heldAlone[0]!) })
  else reasons.push({ kind: 'encoder-untested', failure: enc.processFailure ?? null })
  if (browser) reasons.push({ kind: 'encoder-browser', ...autoDeclined })

  const measured = upload.kbps !== null && uploadLimited(upload)
  if (!measured) {
    reasons.unshift(
      service.kind === 'local' && upload.kbps !== null
        ? { kind: 'upload-local' }
        : upload.kbps === null
          ? { kind: 'upload-unmeasured', failure: upload.failure ?? null }
          : { kind: 'upload-unlimited', kbps: upload.kbps }
    )
    return {
      width: best.width,
      height: best.height,
      fps: best.fps,
      videoBitrateKbps: best.typicalKbps,
      audioBitrateKbps: AUDIO_KBPS,
      videoEncoder,
      basis: 'encoder-only',
      reasons
    }
  }
  const budget = UPLOAD_SHARE * upload.kbps!
  const audio = budget < 1500 ? THIN_AUDIO_KBPS : AUDIO_KBPS
  const video = budget - audio
  const fits = held.find((s) => s.minKbps <= video) ?? held[held.length - 1]!
  const videoKbps = Math.max(100, round50(Math.min(video, fits.maxKbps)))
  reasons.unshift({
    kind: 'upload-fits',
    kbps: upload.kbps!,
    sharePercent: Math.round(UPLOAD_SHARE * 100),
    budgetKbps: budget,
    size: sizeRef(fits)
  })
  if (fits.minKbps > video)
    reasons.push({ kind: 'upload-too-thin', size: sizeRef(fits), minKbps: fits.minKbps })
  return {
    width: fits.width,
    height: fits.height,
    fps: fits.fps,
    videoBitrateKbps: videoKbps,
    audioBitrateKbps: audio,
    videoEncoder,
    basis: 'upload',
    reasons
  }
}

// H.264 levels (Annex A, table A-1): one table and one rule for the studio's ladder and the page's
// encoder.

/** A frame rate of 0 or less means the source's own rate, unknown here: levels assume up to this. */
export const SOURCE_FPS_ASSUMED = 60

/** The most macroblocks a frame and a second each level allows (level_idc: 31 is level 3.1). */
const LEVELS: readonly { idc: number; frameMbs: number; mbsPerSec: number }[] = [
  { idc: 30, frameMbs: 1620, mbsPerSec: 40_500 },
  { idc: 31, frameMbs: 3600, mbsPerSec: 108_000 },
  { idc: 32, frameMbs: 5120, mbsPerSec: 216_000 },
  { idc: 40, frameMbs: 8192, mbsPerSec: 245_760 },
  { idc: 42, frameMbs: 8704, mbsPerSec: 522_240 },
  { idc: 50, frameMbs: 22_080, mbsPerSec: 589_824 },
  { idc: 51, frameMbs: 36_864, mbsPerSec: 983_040 },
  { idc: 52, frameMbs: 36_864, mbsPerSec: 2_073_600 }
]

/**
 * The lowest level whose limits take this size and rate (level_idc, e.g. 31 for 3.1); past the table,
 * its largest. `fps` of 0 or less (the source's rate) counts as SOURCE_FPS_ASSUMED.
 */
export function h264Level(width: number, height: number, fps: number): number {
  const frameMbs = Math.ceil(width / 16) * Math.ceil(height / 16)
  const rate = frameMbs * (fps > 0 ? fps : SOURCE_FPS_ASSUMED)
  const fit = LEVELS.find((l) => frameMbs <= l.frameMbs && rate <= l.mbsPerSec)
  return (fit ?? LEVELS[LEVELS.length - 1]!).idc
}

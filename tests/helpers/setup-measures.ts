// What the setup test measures, made up for unit tests of the recommendation and its words: the
// services, an encoder that holds the sizes named, and an upload figure.
import type { EncoderMeasure, UploadMeasure } from '../../src/shared/contract'
import { TESTED_SIZES } from '../../src/shared/setup-test'

export const remote = { kind: 'livepeer' as const, name: 'Livepeer' }
export const local = { kind: 'local' as const, name: 'Local studio' }

/** x264 holding the sizes named ('720p30', ...) and reaching half the frame rate of the others. */
export const encoder = (held: string[]): EncoderMeasure => ({
  id: 'x264',
  label: 'x264 (software)',
  via: 'encoder-process',
  sizes: TESTED_SIZES.map((s) => {
    const holds = held.includes(`${s.height}p${s.fps}`)
    return { ...s, fpsReached: holds ? s.fps : s.fps / 2, skipped: holds ? 0 : 30, holds }
  })
})

/** An encoder that holds every size tested. */
export const all = encoder(['1080p60', '1080p30', '720p60', '720p30', '480p30'])

export const up = (kbps: number | null, pushedKbps = 10_000): UploadMeasure => ({
  kbps,
  pushedKbps
})

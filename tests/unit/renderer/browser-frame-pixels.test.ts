// A browser page's frame (premultiplied BGRA, as Chromium paints it) into the straight-alpha RGBA an
// ImageData holds (features/scenes/browser-frames.ts toRgba): a half-transparent overlay's edge keeps
// its colour instead of being darkened twice.
import { describe, expect, it } from 'vitest'
import { toRgba } from '../../../src/renderer/src/features/scenes/browser-frames'

const convert = (bgra: number[], premultiplied: boolean): number[] => {
  const out = new Uint8ClampedArray(bgra.length)
  toRgba(Uint8Array.from(bgra), out, premultiplied)
  return [...out]
}

describe('a browser frame into RGBA', () => {
  it('reorders an opaque pixel and divides a half-transparent one by its alpha', () => {
    // Opaque orange; blue at half opacity (premultiplied 128 of 255 at alpha 128); fully transparent.
    const bgra = [0, 128, 255, 255, 128, 0, 0, 128, 9, 9, 9, 0]
    expect(convert(bgra, true)).toEqual([255, 128, 0, 255, 0, 0, 255, 128, 0, 0, 0, 0])
  })

  it('only reorders straight-alpha bytes', () => {
    expect(convert([128, 0, 0, 128], false)).toEqual([0, 0, 128, 128])
  })
})

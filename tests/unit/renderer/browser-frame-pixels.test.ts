// A browser page's frame (premultiplied BGRA, as Chromium paints it) into the straight-alpha RGBA an
// ImageData holds (features/scenes/browser-pixels.ts toRgba, read as 32-bit words): a half-transparent
// overlay's edge keeps its colour instead of being darkened twice.
import { describe, expect, it } from 'vitest'
import { toRgba } from '../../../src/renderer/src/features/scenes/browser-pixels'

const convert = (bgra: number[], premultiplied: boolean, offset = 0): number[] => {
  const out = new Uint8ClampedArray(bgra.length)
  const bytes = new Uint8Array(offset + bgra.length)
  bytes.set(bgra, offset)
  toRgba(bytes.subarray(offset), out, premultiplied)
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

  it('reads pixels that start anywhere in their buffer (a frame after its header, or not)', () => {
    const bgra = [0, 128, 255, 255, 64, 32, 16, 64]
    const want = [255, 128, 0, 255, 64, 128, 255, 64]
    for (const offset of [0, 1, 2, 3, 16]) expect(convert(bgra, true, offset)).toEqual(want)
  })

  it('gives every premultiplied value back within rounding, at most 255', () => {
    const bgra: number[] = []
    for (let a = 1; a < 255; a++) for (let c = 0; c <= 255; c++) bgra.push(c, c, c, a)
    const out = convert(bgra, true)
    let worst = 0
    let uneven = 0
    for (let i = 0; i < bgra.length; i += 4) {
      const [c, a] = [bgra[i]!, bgra[i + 3]!]
      worst = Math.max(worst, Math.abs(out[i]! - Math.min(255, (c * 255) / a)))
      if (out[i + 1] !== out[i] || out[i + 2] !== out[i] || out[i + 3] !== a) uneven++
    }
    expect(uneven).toBe(0)
    expect(worst).toBeLessThanOrEqual(0.5)
  })
})

// The page encoder's YUV scaler (#19): a camera frame made smaller for a lower rung, or fitted into the
// output's size, without a canvas (whose RGB frames made Chromium map ~450 MB into the page).
import { describe, expect, it } from 'vitest'
import {
  fitBox,
  i420Bytes,
  isYuv,
  scaleToI420,
  type YuvSource
} from '../../../src/renderer/src/features/live/engine/i420-scale'

/** An I420 source of w x h whose samples are f(plane, x, y), rows padded to `pad` extra bytes. */
function i420(
  w: number,
  h: number,
  f: (plane: number, x: number, y: number) => number,
  pad = 0
): YuvSource {
  const cw = w / 2
  const ch = h / 2
  const strides = [w + pad, cw + pad, cw + pad]
  const sizes = [strides[0]! * h, strides[1]! * ch, strides[2]! * ch]
  const data = new Uint8Array(sizes[0]! + sizes[1]! + sizes[2]!).fill(255)
  const offsets = [0, sizes[0]!, sizes[0]! + sizes[1]!]
  for (let p = 0; p < 3; p++) {
    const [pw, ph] = p === 0 ? [w, h] : [cw, ch]
    for (let y = 0; y < ph; y++)
      for (let x = 0; x < pw; x++) data[offsets[p]! + y * strides[p]! + x] = f(p, x, y)
  }
  return {
    format: 'I420',
    data,
    layout: offsets.map((offset, p) => ({ offset, stride: strides[p]! })),
    width: w,
    height: h
  }
}

/** The same picture as NV12 (U and V interleaved in one plane). */
function nv12(s: YuvSource): YuvSource {
  const { width: w, height: h } = s
  const cw = w / 2
  const ch = h / 2
  const data = new Uint8Array(w * h + w * ch)
  const [yl, ul, vl] = s.layout
  for (let y = 0; y < h; y++)
    data.set(s.data.subarray(yl!.offset + y * yl!.stride, yl!.offset + y * yl!.stride + w), y * w)
  for (let y = 0; y < ch; y++)
    for (let x = 0; x < cw; x++) {
      data[w * h + y * w + 2 * x] = s.data[ul!.offset + y * ul!.stride + x]!
      data[w * h + y * w + 2 * x + 1] = s.data[vl!.offset + y * vl!.stride + x]!
    }
  return {
    format: 'NV12',
    data,
    layout: [
      { offset: 0, stride: w },
      { offset: w * h, stride: w }
    ],
    width: w,
    height: h
  }
}

const planes = (out: Uint8Array, w: number, h: number): [Uint8Array, Uint8Array, Uint8Array] => {
  const c = (w / 2) * (h / 2)
  return [out.subarray(0, w * h), out.subarray(w * h, w * h + c), out.subarray(w * h + c)]
}

describe('the YUV scaler of the page encoder', () => {
  it('halves a picture with the 2x2 average, in each plane, whatever the row padding', () => {
    const src = i420(
      8,
      4,
      (p, x, y) => (p === 0 ? x * 10 + y * 40 : p === 1 ? 50 + x * 8 : 200 - y * 20),
      3
    )
    const out = scaleToI420(src, 4, 2)
    expect(out.length).toBe(i420Bytes(4, 2))
    const [Y, U, V] = planes(out, 4, 2)
    // Y at (0,0) averages x 0-1, y 0-1: (0 + 10 + 40 + 50) / 4 = 25; each step is 2 source pixels.
    expect([...Y]).toEqual([25, 45, 65, 85, 105, 125, 145, 165])
    // U: 4x2 source -> 2x1, averaging pairs of columns (x 0-1: 54, x 2-3: 70) over both rows.
    expect([...U]).toEqual([54, 70])
    // V: rows 0 and 1 (200, 180) average to 190.
    expect([...V]).toEqual([190, 190])
  })

  it('reads NV12 (a Mac or Windows camera) as it reads I420', () => {
    const src = i420(16, 8, (p, x, y) => (p * 70 + x * 7 + y * 13) % 256)
    expect([...scaleToI420(nv12(src), 12, 6)]).toEqual([...scaleToI420(src, 12, 6)])
  })

  it('keeps a same-size picture as it is', () => {
    const src = i420(8, 4, (p, x, y) => p * 60 + x + y * 8, 5)
    const [Y, U, V] = planes(scaleToI420(src, 8, 4), 8, 4)
    expect(Y[9]).toBe(9)
    expect(Y[31]).toBe(31)
    expect(U[5]).toBe(60 + 1 + 8)
    expect(V[0]).toBe(120)
  })

  it('fits a 4:3 picture into 16:9 in shape, centred, black at the sides', () => {
    const src = i420(8, 6, (p) => (p === 0 ? 200 : p === 1 ? 90 : 160))
    const box = fitBox(8, 6, 32, 18)
    expect(box).toEqual({ x: 4, y: 0, w: 24, h: 18 })
    const [Y, U, V] = planes(scaleToI420(src, 32, 18), 32, 18)
    const row = (p: Uint8Array, w: number, y: number): number[] => [...p.subarray(y * w, y * w + w)]
    expect(row(Y, 32, 9)).toEqual([
      ...Array(4).fill(16),
      ...Array(24).fill(200),
      ...Array(4).fill(16)
    ])
    expect(row(U, 16, 4)).toEqual([
      ...Array(2).fill(128),
      ...Array(12).fill(90),
      ...Array(2).fill(128)
    ])
    expect(row(V, 16, 8)).toEqual([
      ...Array(2).fill(128),
      ...Array(12).fill(160),
      ...Array(2).fill(128)
    ])
  })

  it('smooths noise as it shrinks it: what lets a noisy camera fit a low bitrate', () => {
    let seed = 7
    const noise = (): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % 101) + 78
    const src = i420(64, 36, (p) => (p === 0 ? noise() : 128))
    const spread = (a: Uint8Array): number => {
      const m = a.reduce((s, v) => s + v, 0) / a.length
      return Math.sqrt(a.reduce((s, v) => s + (v - m) ** 2, 0) / a.length)
    }
    const before = spread(src.data.subarray(0, 64 * 36))
    const after = spread(planes(scaleToI420(src, 32, 18), 32, 18)[0])
    expect(after).toBeLessThan(before * 0.6)
  })

  it('takes the YUV layouts and leaves RGB to the canvas', () => {
    expect(['I420', 'I420A', 'NV12'].every(isYuv)).toBe(true)
    expect(['RGBA', 'RGBX', 'BGRA', 'BGRX', null].some((f) => isYuv(f))).toBe(false)
  })
})

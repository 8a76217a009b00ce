// The page's side of Onair's encoder (#33): RGB pictures (a screen, a scene) converted to the I420 the
// encoder takes (rgbToI420, BT.709 limited range), and the capture's sound made 48 kHz stereo f32
// planar raw-media messages (raw-sound.ts): resampled, mono to both sides, silence where sound was lost.
import { describe, expect, it } from 'vitest'
import { rgbToI420 } from '../../../src/renderer/src/features/live/engine/i420-scale'
import {
  RAW_SAMPLE_RATE,
  SoundToRaw,
  packSound
} from '../../../src/renderer/src/features/live/engine/raw-sound'
import { readAllRaw } from '../../../src/shared/raw-media'

/** A w x h RGBA (or BGRA) picture, rows padded by `pad` bytes, each pixel colour(x, y) as [r, g, b]. */
function rgb(
  w: number,
  h: number,
  colour: (x: number, y: number) => [number, number, number],
  order: 'RGBA' | 'BGRA' = 'RGBA',
  pad = 0
): { data: Uint8Array; stride: number } {
  const stride = w * 4 + pad
  const data = new Uint8Array(stride * h).fill(7)
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const [r, g, b] = colour(x, y)
      const i = y * stride + x * 4
      data.set(order === 'RGBA' ? [r, g, b, 255] : [b, g, r, 255], i)
    }
  return { data, stride }
}

describe('RGB pictures for Onair encoder', () => {
  it('converts with BT.709 limited range: white 235, black 16, red, green and blue at their values', () => {
    const cases: [[number, number, number], [number, number, number]][] = [
      [
        [255, 255, 255],
        [235, 128, 128]
      ],
      [
        [0, 0, 0],
        [16, 128, 128]
      ],
      [
        [128, 128, 128],
        [126, 128, 128]
      ],
      // BT.709 limited: red (63, 102, 240), green (173, 42, 26), blue (32, 240, 118).
      [
        [255, 0, 0],
        [63, 102, 240]
      ],
      [
        [0, 255, 0],
        [173, 42, 26]
      ],
      [
        [0, 0, 255],
        [32, 240, 118]
      ]
    ]
    for (const order of ['RGBA', 'BGRA'] as const)
      for (const [c, [y, u, v]] of cases) {
        const { data, stride } = rgb(4, 2, () => c, order, 12)
        const out = rgbToI420(data, stride, order, 4, 2)
        expect(out.length).toBe(4 * 2 + 2 * 2)
        const got = [out[0], out[8], out[10]]
        for (let i = 0; i < 3; i++) expect(Math.abs(got[i]! - [y, u, v][i]!)).toBeLessThanOrEqual(1)
        // Every luma sample of a flat picture is the same.
        expect(new Set(out.subarray(0, 8)).size).toBe(1)
      }
  })

  it('keeps each pixel in luma and averages each 2x2 block in chroma', () => {
    // Left half white, right half black: luma splits at column 2, chroma stays grey (128).
    const { data, stride } = rgb(4, 2, (x) => (x < 2 ? [255, 255, 255] : [0, 0, 0]))
    const out = rgbToI420(data, stride, 'RGBA', 4, 2)
    expect(Array.from(out.subarray(0, 8))).toEqual([235, 235, 16, 16, 235, 235, 16, 16])
    expect(Array.from(out.subarray(8))).toEqual([128, 128, 128, 128])
    // A block half red, half blue: its chroma is the mean of the two.
    const mixed = rgb(2, 2, (x) => (x === 0 ? [255, 0, 0] : [0, 0, 255]))
    const m = rgbToI420(mixed.data, mixed.stride, 'RGBA', 2, 2)
    expect(m[4]).toBe(Math.round((102 + 240) / 2))
    expect(m[5]).toBe(Math.round((240 + 118) / 2))
  })
})

/** A capture buffer: `n` samples a channel from f(channel, i), at `rate`, starting at `us`. */
const buffer = (
  us: number,
  rate: number,
  channels: number,
  n: number,
  f = (c: number, i: number) => c + i / n
) => ({
  timestampUs: us,
  sampleRate: rate,
  planes: Array.from({ length: channels }, (_, c) =>
    Float32Array.from({ length: n }, (_, i) => f(c, i))
  )
})

describe('the sound for Onair encoder', () => {
  it('passes 48 kHz stereo through as it is, and packs it left plane then right', () => {
    const s = new SoundToRaw()
    const pieces = s.take(buffer(1_000_000, 48_000, 2, 480))
    expect(pieces).toHaveLength(1)
    const p = pieces[0]!
    expect(p.timestampUs).toBe(1_000_000)
    expect(p.left[479]).toBeCloseTo(479 / 480)
    expect(p.right[0]).toBe(1)
    const read = readAllRaw(packSound(p))
    if (!read.ok) throw new Error(read.error)
    const [m] = read.messages
    expect(m?.header).toEqual({
      kind: 'audio',
      sampleRate: 48_000,
      channels: 2,
      frames: 480,
      timestampUs: 1_000_000
    })
    const f = new Float32Array(m!.payload.slice().buffer)
    expect(f[0]).toBe(0)
    expect(f[480]).toBe(1)
  })

  it('puts mono on both sides and keeps the first two of more channels', () => {
    const mono = new SoundToRaw().take(buffer(0, 48_000, 1, 10))[0]!
    expect(Array.from(mono.right)).toEqual(Array.from(mono.left))
    const six = new SoundToRaw().take(buffer(0, 48_000, 6, 10))[0]!
    expect(six.left[0]).toBe(0)
    expect(six.right[0]).toBe(1)
  })

  it('resamples 44.1 kHz to 48 kHz, continuous across buffers (a ramp stays a ramp)', () => {
    const s = new SoundToRaw()
    // A ramp of 1 per input sample, over ten 441-sample buffers (10 ms each).
    const out: number[] = []
    for (let b = 0; b < 10; b++) {
      const [p] = s.take(buffer(b * 10_000, 44_100, 2, 441, (_, i) => b * 441 + i))
      if (p) out.push(...p.left)
    }
    // 100 ms at 48 kHz, give or take the last sample not yet reached.
    expect(Math.abs(out.length - 4800)).toBeLessThanOrEqual(1)
    // Each output sample sits 44100/48000 input samples after the one before, across buffer ends.
    const step = 44_100 / RAW_SAMPLE_RATE
    for (let k = 1; k < out.length; k++) expect(out[k]! - out[k - 1]!).toBeCloseTo(step, 3)
  })

  it('fills sound the capture lost with silence, in pieces of at most a second', () => {
    const s = new SoundToRaw()
    s.take(buffer(0, 48_000, 2, 480))
    // The next buffer comes 1.5 s late: 1.5 s of silence stands in, from where the sound stopped.
    const pieces = s.take(buffer(1_510_000, 48_000, 2, 480))
    expect(pieces.map((p) => [p.timestampUs, p.left.length])).toEqual([
      [10_000, 48_000],
      [1_010_000, 24_000],
      [1_510_000, 480]
    ])
    expect(pieces[0]!.left.every((v) => v === 0)).toBe(true)
    expect(s.filledUs).toBeCloseTo(1_500_000)
    // Each piece is a message the encoder takes.
    for (const p of pieces) expect(readAllRaw(packSound(p)).ok).toBe(true)
  })
})

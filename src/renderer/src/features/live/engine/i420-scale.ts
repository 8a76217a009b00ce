// A camera frame made smaller (a lower rung) or fitted into the output's size, in YUV, on the page's
// thread: the encoder then gets an I420 frame made from memory.
//
// Why not a canvas: in Chromium (measured here, software, --disable-gpu) the first RGB frame the page
// makes itself and gives to a VideoEncoder (from a canvas, an ImageBitmap or ImageData alike) maps
// about 450 MB of shared memory into the page's process, and keeps it for as long as the page lives.
// The capture's own frames (a camera's I420, a canvas track's BGRA) and I420 frames made from a
// buffer take none. The canvas path is kept for frames that are RGB already (a screen, a scene).
//
// The filter is bilinear with pixel centres aligned, which at a 2:1 step is the 2x2 box average: the
// same smoothing the canvas gave, which is what lets strong camera noise fit a low bitrate.
//
// Onair's encoder (raw-pusher.ts) takes I420 only: RGB pictures (a screen, a scene) are converted here
// too (rgbToI420), BT.709 limited range, as HD video is read by players that see no colour tags.
import { i420Bytes } from '../../../../../shared/raw-media'

/** The YUV layouts scaled here (VideoFrame.format); others go through a canvas. */
export type YuvFormat = 'I420' | 'I420A' | 'NV12'

export const isYuv = (format: string | null): format is YuvFormat =>
  format === 'I420' || format === 'I420A' || format === 'NV12'

/** One plane as VideoFrame.copyTo lays it out: where it starts and its row stride, in bytes. */
export interface PlaneLayoutLike {
  offset: number
  stride: number
}

export interface YuvSource {
  format: YuvFormat
  data: Uint8Array
  layout: readonly PlaneLayoutLike[]
  width: number
  height: number
}

/** Where the picture goes in the output: fitted in shape, centred, black around. */
export interface FitBox {
  x: number
  y: number
  w: number
  h: number
}

/** The source fitted into width x height, kept in shape and centred; even, as chroma needs. */
export function fitBox(sw: number, sh: number, width: number, height: number): FitBox {
  const s = Math.min(width / sw, height / sh)
  const even = (n: number): number => Math.max(2, 2 * Math.round(n / 2))
  const w = Math.min(width, even(sw * s))
  const h = Math.min(height, even(sh * s))
  const x = 2 * Math.floor((width - w) / 4)
  const y = 2 * Math.floor((height - h) / 4)
  return { x, y, w, h }
}

export { i420Bytes }

/** Per output column: the left source sample and its weight (0-256); the same for every frame. */
const tables = new Map<string, { xs: Int32Array; wx: Int32Array }>()

function columns(sw: number, dw: number): { xs: Int32Array; wx: Int32Array } {
  const key = `${sw}>${dw}`
  let t = tables.get(key)
  if (t) return t
  const fx = sw / dw
  t = { xs: new Int32Array(dw), wx: new Int32Array(dw) }
  for (let x = 0; x < dw; x++) {
    const sx = Math.min(sw - 1, Math.max(0, (x + 0.5) * fx - 0.5))
    t.xs[x] = Math.max(0, Math.min(sw - 2, Math.floor(sx)))
    t.wx[x] = sw === 1 ? 0 : Math.round((sx - t.xs[x]!) * 256)
  }
  // A few sizes are in use at a time (the rungs, luma and chroma): an old one is dropped.
  if (tables.size >= 16) tables.delete(tables.keys().next().value!)
  tables.set(key, t)
  return t
}

/**
 * Scales one plane (or one component of an interleaved plane: `step` 2, `first` 0 or 1) of
 * sw x sh into the box of dst (row stride `dstride`), bilinear, 8-bit fixed point.
 */
function scalePlane(
  src: Uint8Array,
  offset: number,
  stride: number,
  step: number,
  sw: number,
  sh: number,
  dst: Uint8Array,
  dOffset: number,
  dstride: number,
  box: FitBox
): void {
  const fy = sh / box.h
  const { xs, wx } = columns(sw, box.w)
  const right = sw === 1 ? 0 : step
  for (let y = 0; y < box.h; y++) {
    const sy = Math.min(sh - 1, Math.max(0, (y + 0.5) * fy - 0.5))
    const y0 = Math.max(0, Math.min(sh - 2, Math.floor(sy)))
    const wy = sh === 1 ? 0 : Math.round((sy - y0) * 256)
    const r0 = offset + y0 * stride
    const r1 = sh === 1 ? r0 : r0 + stride
    const out = dOffset + (box.y + y) * dstride + box.x
    for (let x = 0; x < box.w; x++) {
      const i = xs[x]! * step
      const w = wx[x]!
      const top = src[r0 + i]! * (256 - w) + src[r0 + i + right]! * w
      const bottom = src[r1 + i]! * (256 - w) + src[r1 + i + right]! * w
      dst[out + x] = (top * (256 - wy) + bottom * wy + 32768) >> 16
    }
  }
}

/**
 * The source scaled into an I420 picture of width x height (`dst`, i420Bytes long, reused between
 * frames): the picture fitted in shape and centred, black (Y 16, U and V 128) around it.
 */
export function scaleToI420(
  s: YuvSource,
  width: number,
  height: number,
  dst: Uint8Array = new Uint8Array(i420Bytes(width, height))
): Uint8Array {
  const box = fitBox(s.width, s.height, width, height)
  const cw = Math.ceil(width / 2)
  const ch = Math.ceil(height / 2)
  const uOff = width * height
  const vOff = uOff + cw * ch
  if (box.w !== width || box.h !== height) {
    dst.fill(16, 0, uOff)
    dst.fill(128, uOff)
  }
  const cBox: FitBox = { x: box.x / 2, y: box.y / 2, w: box.w / 2, h: box.h / 2 }
  const scw = Math.ceil(s.width / 2)
  const sch = Math.ceil(s.height / 2)
  const [yl, ul, vl] = s.layout
  if (!yl || !ul) throw new Error(`a ${s.format} frame without its planes`)
  scalePlane(s.data, yl.offset, yl.stride, 1, s.width, s.height, dst, 0, width, box)
  if (s.format === 'NV12') {
    scalePlane(s.data, ul.offset, ul.stride, 2, scw, sch, dst, uOff, cw, cBox)
    scalePlane(s.data, ul.offset + 1, ul.stride, 2, scw, sch, dst, vOff, cw, cBox)
  } else {
    if (!vl) throw new Error(`a ${s.format} frame without its V plane`)
    scalePlane(s.data, ul.offset, ul.stride, 1, scw, sch, dst, uOff, cw, cBox)
    scalePlane(s.data, vl.offset, vl.stride, 1, scw, sch, dst, vOff, cw, cBox)
  }
  return dst
}

/** The RGB layouts VideoFrame.copyTo writes (4 bytes a pixel; X is unused, as A is here). */
export type RgbFormat = 'RGBA' | 'RGBX' | 'BGRA' | 'BGRX'

export const isRgb = (format: string | null): format is RgbFormat =>
  format === 'RGBA' || format === 'RGBX' || format === 'BGRA' || format === 'BGRX'

/**
 * An RGB picture (4 bytes a pixel, rows `stride` bytes apart) of width x height into I420 at the same
 * size (`dst`, i420Bytes long): BT.709 limited range, 8-bit fixed point; each chroma sample from the
 * 2x2 pixels it covers (the last row or column repeated for an odd size).
 */
export function rgbToI420(
  src: Uint8Array,
  stride: number,
  format: RgbFormat,
  width: number,
  height: number,
  dst: Uint8Array = new Uint8Array(i420Bytes(width, height))
): Uint8Array {
  const ri = format === 'RGBA' || format === 'RGBX' ? 0 : 2
  const bi = 2 - ri
  const cw = Math.ceil(width / 2)
  const uOff = width * height
  const vOff = uOff + cw * Math.ceil(height / 2)
  for (let y = 0; y < height; y += 2) {
    const y1 = Math.min(y + 1, height - 1)
    const r0 = y * stride
    const r1 = y1 * stride
    const o0 = y * width
    const o1 = y1 * width
    const c = (y >> 1) * cw
    for (let x = 0; x < width; x += 2) {
      const x1 = Math.min(x + 1, width - 1)
      let R = 0
      let G = 0
      let B = 0
      // The four pixels of the block: (x, y), (x1, y), (x, y1), (x1, y1).
      for (let k = 0; k < 4; k++) {
        const px = k & 1 ? x1 : x
        const i = (k & 2 ? r1 : r0) + px * 4
        const r = src[i + ri]!
        const g = src[i + 1]!
        const b = src[i + bi]!
        dst[(k & 2 ? o1 : o0) + px] = 16 + ((47 * r + 157 * g + 16 * b + 128) >> 8)
        R += r
        G += g
        B += b
      }
      dst[uOff + c + (x >> 1)] = 128 + ((-26 * R - 86 * G + 112 * B + 512) >> 10)
      dst[vOff + c + (x >> 1)] = 128 + ((112 * R - 102 * G - 10 * B + 512) >> 10)
    }
  }
  return dst
}

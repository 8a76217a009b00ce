// The frame index painted into every frame of the encoder bench's clips, so frames decoded after an
// encode (and after a capture that may drop or repeat frames) are matched to their source frame by
// what they show, not by their count. A row of 16x32 px blocks at the top-left corner, aligned to
// H.264 macroblocks: a guard (white, black), 16 bits of the index (most significant first, white = 1),
// an even-parity bit, a guard (black, white). Each block is read from the mean luma of its middle, so
// an encode at 2.5 Mbps, which blurs the block edges, reads the same index back. The band's rows
// (INDEX_BAND_HEIGHT) are left out of the picture scores: the blocks are not picture.
// Also the YUV4MPEG2 (y4m) layout the clips are stored in.
import { closeSync, openSync, readSync, writeSync } from 'node:fs'

const BLOCK_W = 16
const BLOCK_H = 32
const BITS = 16
/** guard 1 0, the index, parity, guard 0 1 */
const BLOCKS = 2 + BITS + 1 + 2
export const INDEX_BAND_HEIGHT = BLOCK_H
export const MAX_INDEX = 2 ** BITS - 1

const WHITE = 235
const BLACK = 16

function pattern(index: number): number[] {
  if (!Number.isInteger(index) || index < 0 || index > MAX_INDEX) {
    throw new Error(`frame index ${index} is outside 0..${MAX_INDEX}`)
  }
  const bits: number[] = []
  for (let b = BITS - 1; b >= 0; b--) bits.push((index >> b) & 1)
  const parity = bits.reduce((p, b) => p ^ b, 0)
  return [1, 0, ...bits, parity, 0, 1]
}

/**
 * Paints `index` into one I420 frame (`frame` = the Y plane, then U, then V, each chroma plane
 * width/2 x height/2): the blocks in luma, the chroma under them grey.
 */
export function paintIndex(frame: Uint8Array, width: number, height: number, index: number): void {
  if (width < BLOCKS * BLOCK_W || height < BLOCK_H * 2) {
    throw new Error(`a ${width}x${height} frame is too small for the frame index`)
  }
  const p = pattern(index)
  for (let k = 0; k < BLOCKS; k++) {
    const v = p[k] ? WHITE : BLACK
    for (let y = 0; y < BLOCK_H; y++)
      frame.fill(v, y * width + k * BLOCK_W, y * width + (k + 1) * BLOCK_W)
  }
  const cw = width / 2
  const uAt = width * height
  const vAt = uAt + cw * (height / 2)
  for (let y = 0; y < BLOCK_H / 2; y++) {
    frame.fill(128, uAt + y * cw, uAt + y * cw + (BLOCKS * BLOCK_W) / 2)
    frame.fill(128, vAt + y * cw, vAt + y * cw + (BLOCKS * BLOCK_W) / 2)
  }
}

/**
 * The index painted into a frame (its Y plane is enough), or null when the guards or the parity do
 * not hold (a frame without an index, or one too damaged to trust).
 */
export function readIndex(luma: Uint8Array, width: number): number | null {
  const bits: number[] = []
  for (let k = 0; k < BLOCKS; k++) {
    let sum = 0
    let n = 0
    for (let y = BLOCK_H / 4; y < (BLOCK_H * 3) / 4; y++) {
      const row = y * width + k * BLOCK_W
      for (let x = BLOCK_W / 4; x < (BLOCK_W * 3) / 4; x++) {
        sum += luma[row + x]!
        n++
      }
    }
    bits.push(sum / n > (WHITE + BLACK) / 2 ? 1 : 0)
  }
  const [g0, g1] = bits
  const tail = bits.slice(2 + BITS + 1)
  if (g0 !== 1 || g1 !== 0 || tail[0] !== 0 || tail[1] !== 1) return null
  const data = bits.slice(2, 2 + BITS)
  const parity = data.reduce((p, b) => p ^ b, 0)
  if (parity !== bits[2 + BITS]) return null
  return data.reduce((v, b) => v * 2 + b, 0)
}

/** A y4m file's layout: 4:2:0 frames of a fixed size, each after a `FRAME\n` line. */
export interface Y4m {
  width: number
  height: number
  fps: number
  /** Bytes before the first `FRAME`. */
  headerBytes: number
  /** One frame's I420 bytes (without its `FRAME\n`). */
  frameBytes: number
  frames: number
}

const FRAME_LINE = 'FRAME\n'

export function readY4mHeader(file: string, size: number): Y4m {
  const fd = openSync(file, 'r')
  try {
    const buf = Buffer.alloc(256)
    readSync(fd, buf, 0, buf.length, 0)
    const end = buf.indexOf(0x0a)
    const header = buf.subarray(0, end).toString('latin1')
    if (!header.startsWith('YUV4MPEG2 ')) throw new Error(`${file} is not a y4m file`)
    const field = (c: string): string | undefined =>
      header
        .split(' ')
        .find((f) => f.startsWith(c))
        ?.slice(1)
    const width = Number(field('W'))
    const height = Number(field('H'))
    const [num, den] = (field('F') ?? '30:1').split(':').map(Number)
    const chroma = field('C') ?? '420jpeg'
    if (!chroma.startsWith('420')) throw new Error(`${file}: chroma ${chroma}, not 4:2:0`)
    const frameBytes = (width * height * 3) / 2
    const headerBytes = end + 1
    const frames = Math.floor((size - headerBytes) / (frameBytes + FRAME_LINE.length))
    return { width, height, fps: num! / den!, headerBytes, frameBytes, frames }
  } finally {
    closeSync(fd)
  }
}

/** Where frame `i`'s I420 bytes start. */
export const y4mFrameOffset = (y: Y4m, i: number): number =>
  y.headerBytes + i * (y.frameBytes + FRAME_LINE.length) + FRAME_LINE.length

/** Paints each frame's own number (0, 1, ...) into a y4m file, in place. */
export function paintY4m(file: string, size: number): Y4m {
  const y = readY4mHeader(file, size)
  const fd = openSync(file, 'r+')
  try {
    const frame = Buffer.alloc(y.frameBytes)
    for (let i = 0; i < y.frames; i++) {
      const at = y4mFrameOffset(y, i)
      readSync(fd, frame, 0, y.frameBytes, at)
      paintIndex(frame, y.width, y.height, i)
      writeSync(fd, frame, 0, y.frameBytes, at)
    }
  } finally {
    closeSync(fd)
  }
  return y
}

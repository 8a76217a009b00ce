// The encoder bench's painted frame index (scripts/bench/clips/frame-index.ts) read back after a real
// x264 encode at 2.5 Mbps, as the bench's clips go through the app: noisy 720p frames, each painted with
// its own index, encoded by ffmpeg's libx264 veryfast CBR and decoded again; every frame reads its own
// index. A frame without an index, or with one block flipped, reads as none (the guards and parity).
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { paintIndex, readIndex } from '../../../scripts/bench/clips/frame-index'
import { testFfmpeg } from '../../helpers/studio'

const W = 1280
const H = 720
const FRAME = (W * H * 3) / 2
const N = 40

/** Noisy moving frames from ffmpeg (testsrc2 with strong temporal noise), raw I420. */
function sourceFrames(): Buffer {
  return execFileSync(
    testFfmpeg(),
    [
      ...['-hide_banner', '-loglevel', 'error', '-f', 'lavfi'],
      ...['-i', `testsrc2=size=${W}x${H}:rate=30,noise=alls=19:allf=t`],
      ...['-frames:v', String(N), '-pix_fmt', 'yuv420p', '-f', 'rawvideo', 'pipe:1']
    ],
    { maxBuffer: FRAME * (N + 1) }
  )
}

/** x264 veryfast at 2.5 Mbps CBR (1 s buffer, keyframe every 60), decoded back to raw I420. */
function throughX264(raw: Buffer): Buffer {
  const h264 = execFileSync(
    testFfmpeg(),
    [
      ...['-hide_banner', '-loglevel', 'error'],
      ...['-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-s', `${W}x${H}`, '-r', '30', '-i', 'pipe:0'],
      ...['-c:v', 'libx264', '-preset', 'veryfast', '-b:v', '2500k', '-maxrate', '2500k'],
      ...['-bufsize', '2500k', '-g', '60', '-f', 'h264', 'pipe:1']
    ],
    { input: raw, maxBuffer: raw.length }
  )
  return execFileSync(
    testFfmpeg(),
    [
      ...['-hide_banner', '-loglevel', 'error', '-f', 'h264', '-i', 'pipe:0'],
      ...['-pix_fmt', 'yuv420p', '-f', 'rawvideo', 'pipe:1']
    ],
    { input: h264, maxBuffer: FRAME * (N + 1) }
  )
}

const frameAt = (buf: Buffer, i: number): Buffer => buf.subarray(i * FRAME, (i + 1) * FRAME)

describe('the bench frame index', () => {
  it('reads back every painted index after an x264 encode at 2.5 Mbps', () => {
    const raw = sourceFrames()
    // Indices across the whole range: small ones, every bit on, and alternating bits.
    const indices = Array.from({ length: N }, (_, i) =>
      i === 0 ? 0xffff : i === 1 ? 0xaaaa : i === 2 ? 0x5555 : i * 37 + 1
    )
    for (let i = 0; i < N; i++) {
      const f = frameAt(raw, i)
      paintIndex(f, W, H, indices[i]!)
      expect(readIndex(f, W)).toBe(indices[i])
    }
    const decoded = throughX264(raw)
    expect(decoded.length).toBe(raw.length)
    const read = Array.from({ length: N }, (_, i) => readIndex(frameAt(decoded, i), W))
    expect(read).toEqual(indices)
  })

  it('reads no index from a frame whose index has one block flipped', () => {
    const f = Buffer.alloc(FRAME, 128)
    expect(readIndex(f, W)).toBeNull() // nothing painted
    paintIndex(f, W, H, 1234)
    expect(readIndex(f, W)).toBe(1234)
    // The 8th block (a data bit): its luma turned over.
    for (let y = 0; y < 32; y++) {
      for (let x = 7 * 16; x < 8 * 16; x++) f[y * W + x] = f[y * W + x]! > 128 ? 16 : 235
    }
    expect(readIndex(f, W)).toBeNull()
  })
})

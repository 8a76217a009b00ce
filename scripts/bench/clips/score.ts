// Scores an encode of one of the bench's clips against the clip itself: every decoded frame's painted
// index names its source frame, and the luma of the two is compared (mean squared error) below the
// index band. PSNR-Y over a set of frames is ffmpeg's psnr filter's "average": from the mean of their
// squared errors. Frames are matched by what they show, so a capture that dropped, repeated or looped
// frames is scored frame by frame against the right source.
import { execFileSync, spawn } from 'node:child_process'
import { closeSync, openSync, readSync, statSync } from 'node:fs'
import { resolveFfprobe } from '../../../src/node/ffmpeg/locate'
import { testFfmpeg } from '../../../tests/helpers/studio'
import { INDEX_BAND_HEIGHT, readIndex, readY4mHeader, y4mFrameOffset } from './frame-index'

export interface Scored {
  /** One entry per decoded frame whose index was read: its source frame and squared error. */
  frames: Array<{ index: number; mse: number }>
  /** Decoded frames whose index could not be read (none expected). */
  unreadable: number
  /** Decoded frames in all. */
  decoded: number
}

/** Mean squared error of two luma planes below the index band. */
function lumaMse(a: Uint8Array, b: Uint8Array, width: number, height: number): number {
  let sum = 0
  for (let i = INDEX_BAND_HEIGHT * width; i < width * height; i++) {
    const d = a[i]! - b[i]!
    sum += d * d
  }
  return sum / (width * (height - INDEX_BAND_HEIGHT))
}

export const psnr = (mse: number): number => (mse > 0 ? 10 * Math.log10((255 * 255) / mse) : 100)

/** PSNR-Y of a set of scored frames (ffmpeg's average: from their mean squared error). */
export function psnrOf(frames: ReadonlyArray<{ mse: number }>): number {
  if (frames.length === 0) return NaN
  return psnr(frames.reduce((s, f) => s + f.mse, 0) / frames.length)
}

/**
 * Decodes `encoded` (a file or URL; its first video stream, every frame as it is, no rate change) and
 * scores each frame against `clip` (the y4m it was made from).
 */
export async function scoreAgainstClip(encoded: string, clip: string): Promise<Scored> {
  const y = readY4mHeader(clip, statSync(clip).size)
  const lumaBytes = y.width * y.height
  const fd = openSync(clip, 'r')
  const source = Buffer.alloc(lumaBytes)
  const out: Scored = { frames: [], unreadable: 0, decoded: 0 }
  try {
    const ff = spawn(
      testFfmpeg(),
      [
        ...['-hide_banner', '-loglevel', 'error', '-i', encoded, '-map', '0:v:0'],
        ...['-fps_mode', 'passthrough', '-pix_fmt', 'yuv420p', '-s', `${y.width}x${y.height}`],
        ...['-f', 'rawvideo', 'pipe:1']
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] }
    )
    let stderr = ''
    ff.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const frame = Buffer.alloc(y.frameBytes)
    let filled = 0
    for await (const chunk of ff.stdout as AsyncIterable<Buffer>) {
      let at = 0
      while (at < chunk.length) {
        const n = Math.min(chunk.length - at, y.frameBytes - filled)
        chunk.copy(frame, filled, at, at + n)
        filled += n
        at += n
        if (filled < y.frameBytes) continue
        filled = 0
        out.decoded++
        const index = readIndex(frame, y.width)
        if (index === null || index >= y.frames) {
          out.unreadable++
          continue
        }
        readSync(fd, source, 0, lumaBytes, y4mFrameOffset(y, index))
        out.frames.push({ index, mse: lumaMse(frame, source, y.width, y.height) })
      }
    }
    const code = await new Promise<number | null>((r) => {
      if (ff.exitCode !== null) r(ff.exitCode)
      else ff.on('close', r)
    })
    if (code !== 0)
      throw new Error(`ffmpeg could not decode ${encoded}: ${stderr.trim().slice(-400)}`)
  } finally {
    closeSync(fd)
  }
  return out
}

/**
 * A file's video: its bitrate (kbit/s: its packets' bytes over their time span, one frame more) and its
 * frame rate (packets over the same span).
 */
export function videoRate(file: string): { kbps: number; fps: number } {
  const csv = execFileSync(
    resolveFfprobe(),
    [
      ...['-v', 'error', '-select_streams', 'v:0'],
      ...['-show_entries', 'packet=pts_time,size', '-of', 'csv=p=0', file]
    ],
    { maxBuffer: 1 << 26 }
  ).toString()
  const packets = csv
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(',').map(Number) as [number, number])
  const times = packets.map((p) => p[0]).filter(Number.isFinite)
  const bytes = packets.reduce((s, p) => s + p[1], 0)
  const span = (Math.max(...times) - Math.min(...times)) * (1 + 1 / Math.max(1, packets.length - 1))
  return { kbps: (bytes * 8) / span / 1000, fps: packets.length / span }
}

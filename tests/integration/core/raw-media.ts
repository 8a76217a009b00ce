// The integration tests' raw media and packet probes: the page's raw frames and tone (packRaw, as the
// page packs them) at an Output's size and rate, and every packet's time of a file (ffprobe).
import { execFile } from 'node:child_process'
import { randomFillSync } from 'node:crypto'
import { promisify } from 'node:util'
import { resolveFfprobe } from '../../../src/node/ffmpeg/locate'
import type { OutputSettings } from '../../../src/shared/contract'
import { i420Bytes, packRaw } from '../../../src/shared/raw-media'
import { OUTPUT, sleep } from './live-helpers'

const run = promisify(execFile)

/** The Output with Onair's x264 chosen (Automatic picks it only from 4 CPU cores; these machines have 2). */
export const X264_OUTPUT: OutputSettings = { ...OUTPUT, videoEncoder: 'x264' }
/** The page's source as it names it when it hands raw frames over (camera, screen or scene). */
export const RAW_SOURCE = { kind: 'media', mimeType: 'video/x-matroska;codecs=avc1,opus' } as const

/**
 * The page's raw media at the Output's size and rate: each call one picture and its 40 ms of tone,
 * two raw-media messages in one pushFrames. The picture is a band of fresh noise over a texture that
 * slides, so x264 has to spend its bitrate. Stops when told; collects what pushFrames threw.
 */
export function rawFeeder(push: (bytes: Uint8Array) => Promise<void>, o: OutputSettings) {
  const { width: w, height: h, fps } = o
  const texture = randomFillSync(new Uint8Array(w * 2 * h))
  const picture = new Uint8Array(i420Bytes(w, h))
  picture.fill(128, w * h)
  const samples = Math.round(48_000 / fps)
  const tone = new Float32Array(samples * 2)
  const errors: unknown[] = []
  let stopped = false
  let sent = 0
  const done = (async () => {
    const t0 = Date.now()
    for (let i = 0; !stopped; i++) {
      const shift = (i * 3) % w
      for (let y = 0; y < h; y++)
        picture.set(texture.subarray(y * 2 * w + shift, y * 2 * w + shift + w), y * w)
      randomFillSync(picture, ((i * 7) % (h - h / 4)) * w, (h / 4) * w)
      for (let k = 0; k < samples; k++)
        tone[k] = tone[k + samples] =
          0.3 * Math.sin((2 * Math.PI * 440 * (i * samples + k)) / 48_000)
      const ts = Math.round((i * 1e6) / fps)
      const video = packRaw({ kind: 'video', width: w, height: h, timestampUs: ts }, picture)
      const audio = packRaw(
        { kind: 'audio', sampleRate: 48_000, channels: 2, frames: samples, timestampUs: ts },
        new Uint8Array(tone.buffer)
      )
      const both = new Uint8Array(video.length + audio.length)
      both.set(video)
      both.set(audio, video.length)
      await push(both).catch((e: unknown) => errors.push(e))
      sent++
      await sleep(Math.max(0, t0 + ((i + 1) * 1000) / fps - Date.now()))
    }
  })()
  return { done, errors, sent: () => sent, stop: () => (stopped = true) }
}

/** Every packet's time of one stream (v or a), in order of decoding: what a player would walk. */
export async function packetTimes(file: string, stream: 'v' | 'a'): Promise<number[]> {
  const { stdout } = await run(
    resolveFfprobe(),
    [
      '-v',
      'error',
      '-select_streams',
      `${stream}:0`,
      '-show_entries',
      'packet=pts_time',
      '-of',
      'csv=p=0',
      file
    ],
    { maxBuffer: 64 * 1024 * 1024 }
  )
  return stdout
    .split('\n')
    .map((l) => parseFloat(l))
    .filter((n) => Number.isFinite(n))
}

/** The largest step between consecutive packet times (sorted: B-frames aside, none are used here). */
export function largestGap(times: number[]): number {
  const t = [...times].sort((a, b) => a - b)
  let gap = 0
  for (let i = 1; i < t.length; i++) gap = Math.max(gap, t[i]! - t[i - 1]!)
  return gap
}

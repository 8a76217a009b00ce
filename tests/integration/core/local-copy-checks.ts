// What a saved local copy must be (local-recording*.test.ts): a file an editor takes, and how much
// of the broadcast it covers.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { expect } from 'vitest'
import { resolveFfprobe } from '../../../src/node/ffmpeg/locate'
import { testFfmpeg } from '../../helpers/studio'
import { packetTimes } from './raw-media'

const run = promisify(execFile)

/**
 * What an editor needs of the saved copy: AAC sound (QuickTime and several editors refuse Opus in
 * MP4), a frame rate in the header near the output's (not the 16000 of a millisecond clock), and a
 * full decode with ffmpeg's own words, `ffmpeg -v error -i FILE -f null -`, printing nothing.
 */
export async function expectEditorReady(file: string, fps: number): Promise<void> {
  expect(file).toMatch(/\.mp4$/)
  const { stdout } = await run(resolveFfprobe(), [
    '-v',
    'error',
    '-show_entries',
    'stream=codec_type,codec_name,r_frame_rate,avg_frame_rate',
    '-of',
    'json',
    file
  ])
  const streams = (
    JSON.parse(stdout) as {
      streams: {
        codec_type: string
        codec_name: string
        r_frame_rate: string
        avg_frame_rate: string
      }[]
    }
  ).streams
  const rate = (r: string): number => {
    const [n, d] = r.split('/').map(Number)
    return n! / d!
  }
  const video = streams.find((x) => x.codec_type === 'video')!
  const audio = streams.find((x) => x.codec_type === 'audio')
  expect(audio?.codec_name).toBe('aac')
  expect(video.codec_name).toBe('h264')
  expect(rate(video.r_frame_rate), `r_frame_rate ${video.r_frame_rate}`).toBeCloseTo(fps, 0)
  expect(
    Math.abs(rate(video.avg_frame_rate) - fps),
    `avg_frame_rate ${video.avg_frame_rate}`
  ).toBeLessThan(fps * 0.1)
  const decode = await run(testFfmpeg(), ['-v', 'error', '-i', file, '-f', 'null', '-'], {
    maxBuffer: 16 * 1024 * 1024
  })
  expect(decode.stderr).toBe('')
}

/** Seconds the file covers: its last video packet's time minus its first. */
export async function covers(file: string): Promise<number> {
  const t = await packetTimes(file, 'v')
  return Math.max(...t) - Math.min(...t)
}

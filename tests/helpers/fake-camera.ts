// A camera for Chromium's fake capture device, made by ffmpeg: a solid colour (so a test can find the
// camera's picture by its colour in a recorded frame) with a white square moving across it (so every
// frame differs), at a chosen frame rate. The built-in fake camera gives only 20 fps and draws the same
// green pattern as the fake screen. MJPEG keeps the file small; Chromium loops it. Or any lavfi
// picture (the uplink bench: testsrc2 with noise), as MJPEG or raw y4m.
import { join } from 'node:path'
import { makeMediaFile } from './studio'

export interface FakeCamera {
  file: string
  /** The flag that makes Chromium's fake camera play the file. */
  flag: string
}

export function makeFakeCamera(
  dir: string,
  opts: {
    color?: string
    fps?: number
    seconds?: number
    width?: number
    height?: number
    /** Another picture (an ffmpeg lavfi source) instead of the colour and square. */
    lavfi?: string
    /** y4m: raw frames (big file, nothing to decode: for pictures MJPEG compresses badly, e.g. noise). */
    format?: 'mjpeg' | 'y4m'
    /** Names the file apart from other lavfi cameras of the same size and rate in one folder. */
    tag?: string
  } = {}
): FakeCamera {
  const { color = '0x2040ff', fps = 30, seconds = 2, width = 1280, height = 720 } = opts
  const format = opts.format ?? 'mjpeg'
  const kind = (opts.lavfi ? 'lavfi' : color) + (opts.tag ? `-${opts.tag}` : '')
  const file = join(dir, `fake-camera-${kind}-${width}x${height}-${fps}.${format}`)
  const src =
    opts.lavfi ??
    `color=c=${color}:s=${width}x${height}:r=${fps},` +
      `drawbox=x='mod(t*${Math.round(width / seconds)},${width - 80})':y=${Math.round(height / 2 - 40)}:w=80:h=80:color=white:t=fill`
  makeMediaFile(file, [
    ...['-f', 'lavfi', '-i', src, '-t', String(seconds)],
    ...(format === 'y4m'
      ? ['-pix_fmt', 'yuv420p', '-f', 'yuv4mpegpipe']
      : ['-c:v', 'mjpeg', '-q:v', '3', '-pix_fmt', 'yuvj420p'])
  ])
  return { file, flag: `--use-file-for-fake-video-capture=${file}` }
}

// The page's own encoder (WebCodecs H.264 + Opus, muxed by live-mux.ts) in real Chromium: chosen in
// Output as "Browser (WebCodecs)" (Onair's x264 is the default), said while live, the stream reaching the local studio and
// the local copy, and main's word to the encoder (live:encoder, the uplink controller's) followed: a
// lower bitrate steps the picture down and the measured output comes down to it. The sound is read and
// encoded in a worker, and on the page's thread where the worker cannot load: sound all through either way.
import { spawnSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { makeFakeCamera } from '../helpers/fake-camera'
import { resolveFfprobe } from '../../src/node/ffmpeg/locate'
import { formatBitrate } from '../../src/shared/rates'
import { ffprobe, testFfmpeg } from '../helpers/studio'
import {
  appForFile,
  createStream,
  elapsedSeconds,
  eventually,
  goLive,
  liveFor,
  savedLocalCopy,
  shot,
  stopLive,
  text
} from './app-page'

const camera = makeFakeCamera(mkdtempSync(join(tmpdir(), 'onair-enc-cam-')))
const app = appForFile({ chromiumArgs: [camera.flag] })
const NAME = `Encoder ${Date.now()}`
const LOWER_KBPS = 800

describe('the page encoder', () => {
  it('is used when chosen, says so while live, and follows a lower bitrate from main', async () => {
    const { page, shell } = app()
    await createStream(page, NAME, { profiles: 'none', record: true })
    // The browser's encoder is chosen in Output (Onair's x264 is the default: app-encoder.test.ts).
    await goLive(page, 'camera', { encoder: 'browser' })
    // Hardware is offered only where the browser says it has one (this Chromium has none: disabled).
    const hardware = await page.evaluate(async () => {
      const r = await VideoEncoder.isConfigSupported({
        codec: 'avc1.42e01f',
        width: 1280,
        height: 720,
        hardwareAcceleration: 'prefer-hardware'
      })
      return r.supported === true
    })
    const select = page.getByTestId('output-encoder')
    await select.waitFor()
    expect(await select.locator('option[value=hardware]').isDisabled()).toBe(!hardware)
    expect(await select.inputValue()).toBe(hardware ? 'hardware' : 'software')

    const liveAt = performance.now()
    const line = page.getByTestId('health-encoder')
    const kind = hardware ? 'hardware' : 'software'
    expect(await text(line)).toContain(`Encoder: ${kind} H.264 (WebCodecs), 1280×720 30 fps`)
    expect(await line.getAttribute('data-path')).toBe('webcodecs')
    // The output's own bitrate is measured over 2 s windows; at 2.5 Mbit/s it holds within 15%.
    await eventually(() => line.getAttribute('data-measured'), 20_000).toMatch(/^\d+$/)
    expect(Number(await line.getAttribute('data-measured'))).toBeLessThanOrEqual(2500 * 1.15)
    expect(await line.getAttribute('data-audio-in')).toBe('worker')
    await shot(page, 'live-encoder-line')

    // Main's uplink controller asks for less (and a keyframe): 800 kbit/s is 0.03 bits per pixel at
    // 720p30, under the 0.05 floor, so the picture steps down to 540p inside the same 720p stream.
    const run = await shell.core.liveStatus()
    if (!run) throw new Error('no run')
    shell.core.events.emit('live:encoder', {
      runId: run.runId,
      videoBitrateKbps: LOWER_KBPS,
      keyframe: true
    })
    await eventually(() => line.getAttribute('data-target')).toBe(String(LOWER_KBPS))
    expect(await line.getAttribute('data-height')).toBe('540')
    // Until a window at the new target has passed, the line does not set the old window's rate
    // beside it (it read "2.3 Mbps of 0.8 Mbps"): it says the bitrate was lowered. Read in one go.
    const now = await page.evaluate(
      `(() => { const e = document.querySelector('[data-testid=health-encoder]');
        return { text: e.textContent, measuredFor: Number(e.getAttribute('data-measured-for')) } })()`
    )
    const { text: lineText, measuredFor } = now as { text: string; measuredFor: number }
    if (measuredFor > LOWER_KBPS)
      expect(lineText).toContain(
        `lowered to 0.8 Mbps (was ${formatBitrate(measuredFor * 1000)}; measuring)`
      )
    else expect(lineText).toMatch(/[\d.]+ Mbps of 0\.8 Mbps$/)
    await shot(page, 'live-encoder-lowered')
    // A window measured at the new target, then two more whole windows (2 s of media each) by the live
    // clock: the window measured then was made wholly at the new target, and is within 15 % of it.
    // (It counted windows by a change in the measured figure before: this camera, a colour and a
    // small square, is so cheap to encode that two windows in a row can measure the same, 20 kbit/s.)
    await eventually(() => line.getAttribute('data-measured-for')).toBe(String(LOWER_KBPS))
    await liveFor(page, (await elapsedSeconds(page)) + 5)
    const last = Number(await line.getAttribute('data-measured'))
    expect(Number(await line.getAttribute('data-measured-for'))).toBe(LOWER_KBPS)
    expect(last, await text(page.getByTestId('live-banner'))).toBeGreaterThan(0)
    expect(last).toBeLessThanOrEqual(LOWER_KBPS * 1.15)
    await liveFor(page, 2)
    const liveSeconds = (performance.now() - liveAt) / 1000
    await stopLive(page)

    // The studio took the stream (a session) and the local copy is whole: 720p all through, every
    // frame decodable across the bitrate change.
    const { file } = await savedLocalCopy(shell)
    const probed = await ffprobe(file)
    // All of the time live is in the copy (less the start: Live shows once the ingest took media).
    expect(probed.duration).toBeGreaterThan(liveSeconds - 2)
    const v = probed.streams.find((s) => s.codec_type === 'video')
    expect([v?.codec_name, v?.width, v?.height]).toEqual(['h264', 1280, 720])
    expect(probed.streams.map((s) => s.codec_type).sort()).toEqual(['audio', 'video'])
    // Every video packet decodes to a picture, with no decoder error, across the change.
    const decode = spawnSync(
      resolveFfprobe(),
      [
        ...['-v', 'error', '-select_streams', 'v', '-count_frames', '-count_packets'],
        ...['-show_entries', 'stream=nb_read_frames,nb_read_packets', '-of', 'csv=p=0', file]
      ],
      { encoding: 'utf8' }
    )
    expect(decode.stderr.trim()).toBe('')
    const [frames, packets] = decode.stdout.trim().split(',').map(Number)
    // At least 10 fps over the copy (this shared 2-core machine does not always give the camera's 30).
    expect(frames).toBeGreaterThan(probed.duration * 10)
    expect(frames).toBe(packets)
    // The sound (read and encoded in the worker) runs the whole copy.
    expect(audioSeconds(file)).toBeGreaterThan(probed.duration - 1.5)
    // An editor takes it (#32 §4): AAC sound (not the page's Opus), the output's 30 fps in the header
    // (not a millisecond clock's 16000), and a full decode with not one word from ffmpeg.
    expect(probed.streams.find((s) => s.codec_type === 'audio')?.codec_name).toBe('aac')
    expect((v as { r_frame_rate?: string } | undefined)?.r_frame_rate).toBe('30/1')
    const full = spawnSync(testFfmpeg(), ['-v', 'error', '-i', file, '-f', 'null', '-'], {
      encoding: 'utf8'
    })
    expect(full.stderr).toBe('')
  })

  it('reads the sound on the page when its worker cannot load', async () => {
    const { page, shell } = app()
    // A worker script that is not there (a packaging problem): the sound is read here instead.
    await page.route('**/audio-worker*', (r) => r.fulfill({ status: 404, body: '' }))
    try {
      await createStream(page, `${NAME} without worker`, { profiles: 'none', record: false })
      await goLive(page, 'camera', { encoder: 'browser' })
      const line = page.getByTestId('health-encoder')
      await eventually(() => line.getAttribute('data-audio-in'), 20_000).toBe('page')
      const liveAt = performance.now()
      await liveFor(page, 4)
      const liveSeconds = (performance.now() - liveAt) / 1000
      await stopLive(page)
      const { file } = await savedLocalCopy(shell)
      const probed = await ffprobe(file)
      expect(probed.duration).toBeGreaterThan(liveSeconds - 2)
      expect(audioSeconds(file)).toBeGreaterThan(probed.duration - 1.5)
    } finally {
      await page.unroute('**/audio-worker*')
    }
  })
})

/** Seconds of sound in a file: its audio packets' durations summed. */
function audioSeconds(file: string): number {
  const r = spawnSync(
    resolveFfprobe(),
    ['-v', 'error', '-select_streams', 'a', '-show_entries', 'packet=duration_time'].concat([
      '-of',
      'csv=p=0',
      file
    ]),
    { encoding: 'utf8' }
  )
  return r.stdout
    .split('\n')
    .map(Number)
    .filter((x) => Number.isFinite(x) && x > 0)
    .reduce((a, b) => a + b, 0)
}

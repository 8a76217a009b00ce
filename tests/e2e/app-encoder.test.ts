// Onair's own encoder (#33) from the page, in real Chromium through the web shell: Output lists the
// encoders this machine can start (x264; NVENC disabled with the reason it gave) and x264's presets; by
// default a camera goes live through x264, the page handing raw frames over with pushFrames (never a
// page-encoded pushMedia), the live bar naming "x264 veryfast", a frames call lost on the way sent
// again, the studio taking an H.264 High stream and Stop ending it cleanly; Browser (WebCodecs) chosen, the page encodes as before.
import { spawnSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { makeFakeCamera } from '../helpers/fake-camera'
import { resolveFfprobe } from '../../src/node/ffmpeg/locate'
import { X264_PRESETS } from '../../src/shared/contract'
import {
  appForFile,
  createStream,
  eventually,
  goLive,
  liveFor,
  savedLocalCopy,
  shot,
  stopLive,
  text
} from './app-page'

const camera = makeFakeCamera(mkdtempSync(join(tmpdir(), 'onair-app-enc-cam-')))
const app = appForFile({ chromiumArgs: [camera.flag] })
const NAME = `App encoder ${Date.now()}`

/** The first video stream of a file or URL as ffprobe reads it. */
function videoOf(target: string): Record<string, string | number> {
  const r = spawnSync(
    resolveFfprobe(),
    [
      ...['-v', 'error', '-select_streams', 'v:0', '-print_format', 'json'],
      ...['-show_entries', 'stream=codec_name,profile,width,height', target]
    ],
    { encoding: 'utf8', timeout: 60_000 }
  )
  const streams = (JSON.parse(r.stdout || '{}') as { streams?: Record<string, string>[] }).streams
  return streams?.[0] ?? {}
}

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

describe("Onair's encoder from the page", () => {
  it('Output lists x264 (available), NVENC disabled with its reason, the Browser, and x264 presets', async () => {
    const { page } = app()
    await createStream(page, `${NAME} form`, { profiles: 'none', record: false })
    await page.getByTestId('stream-go-live').click()
    const select = page.getByRole('combobox', { name: /^Encoder/ })
    await select.waitFor()
    expect(await select.getAttribute('data-testid')).toBe('output-video-encoder')
    // Automatic is the default (x264 from 4 CPU cores, else the browser's encoder).
    expect(await select.inputValue()).toBe('auto')
    const x264 = select.locator('option[value=x264]')
    expect(await x264.isDisabled()).toBe(false)
    expect(await text(x264)).toContain('x264')
    // No NVIDIA card here: NVENC is listed, disabled, with the error it gave as the reason.
    const nvenc = select.locator('option[value=nvenc]')
    expect(await nvenc.isDisabled()).toBe(true)
    expect(await text(nvenc)).toContain('(not available here)')
    expect(await nvenc.getAttribute('title')).toMatch(/^Not available here: \S.{4,}/)
    expect(await select.locator('option[value=browser]').textContent()).toBe('Browser (WebCodecs)')
    const preset = page.getByRole('combobox', { name: /^x264 preset/ })
    expect(await preset.inputValue()).toBe('veryfast')
    expect(
      await preset.locator('option').evaluateAll((os) => os.map((o) => o.getAttribute('value')))
    ).toEqual([...X264_PRESETS])
    await shot(page, 'output-encoders')
    // The browser's encoder: no x264 preset, the WebCodecs choice instead.
    await select.selectOption('browser')
    await page.getByTestId('output-encoder').waitFor()
    expect(await page.getByTestId('output-x264-preset').count()).toBe(0)
    await select.selectOption('x264')
    await page.getByTestId('output-x264-preset').waitFor()
    expect(await page.getByTestId('output-encoder').count()).toBe(0)
  })

  it('goes live through x264 when chosen: raw frames to the encoder, H.264 High to the studio, a clean stop', async () => {
    const { page, shell, calls } = app()
    await createStream(page, NAME, { profiles: 'none', record: true })
    const before = calls.length
    await goLive(page, 'camera', { encoder: 'x264' })
    const line = page.getByTestId('health-encoder')
    expect(await line.getAttribute('data-path')).toBe('app')
    expect(await text(line)).toContain("Encoder: x264 veryfast (Onair's encoder), 1280×720 30 fps")
    expect(await page.getByTestId('encoder-fallback').count()).toBe(0)
    // The page hands raw frames over; it encodes nothing itself.
    expect(calls.slice(before)).toContain('pushFrames')
    expect(calls.slice(before)).not.toContain('pushMedia')
    const stream = (await shell.core.listStreams({ limit: 1000 })).items.find(
      (s) => s.name === NAME
    )
    if (!stream) throw new Error('no stream')
    await eventually(async () => (await shell.core.getStream(stream.id)).isActive, 30_000).toBe(
      true
    )
    // Frames go at about the camera's rate (at least 10 fps on this shared 2-core machine).
    await eventually(
      async () => Number((await line.getAttribute('data-measured-fps')) || 0),
      20_000
    ).toBeGreaterThanOrEqual(10)
    const liveAt = performance.now()
    // One frames call lost on the way (its connection reset, the page's fetch fails with no answer):
    // the page sends it again and the broadcast goes on.
    let lost = 0
    const pattern = '**/rpc/pushFrames*'
    await page.route(pattern, (route) => {
      if (lost++ === 0) return route.abort('connectionreset')
      return route.continue()
    })
    await eventually(async () => lost, 10_000).toBeGreaterThan(0)
    await page.unroute(pattern)
    const afterLoss = calls.length
    await eventually(
      async () => calls.slice(afterLoss).filter((c) => c === 'pushFrames').length,
      20_000
    ).toBeGreaterThan(30)
    expect(await page.getByTestId('live-error').count()).toBe(0)
    expect(await page.getByTestId('live-banner').getAttribute('data-state')).toBe('live')
    await liveFor(page, 6)
    const liveSeconds = (performance.now() - liveAt) / 1000
    await shot(page, 'live-app-encoder')
    await stopLive(page)
    expect(await page.getByTestId('live-error').count()).toBe(0)

    // The local copy is x264's: H.264 High at the Output's size, with sound all through.
    const { file } = await savedLocalCopy(shell)
    expect(videoOf(file)).toEqual({ codec_name: 'h264', profile: 'High', width: 1280, height: 720 })
    const seconds = Number(
      spawnSync(
        resolveFfprobe(),
        ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file],
        { encoding: 'utf8' }
      ).stdout
    )
    expect(seconds).toBeGreaterThan(liveSeconds - 2)
    expect(audioSeconds(file)).toBeGreaterThan(seconds - 1.5)
    // So is what the studio received and recorded.
    const session = async () =>
      (await shell.core.listSessions({ limit: 10, streamId: stream.id })).items[0]
    await eventually(async () => (await session())?.recordingStatus, 60_000).toBe('ready')
    const url = (await session())?.recordingUrl
    if (!url) throw new Error('no recording')
    expect(videoOf(url)).toMatchObject({ codec_name: 'h264', profile: 'High' })
  })

  it('with Browser (WebCodecs) chosen, the page encodes and pushes its own stream as before', async () => {
    const { page, calls } = app()
    await createStream(page, `${NAME} browser`, { profiles: 'none', record: false })
    const before = calls.length
    await goLive(page, 'camera', { encoder: 'browser' })
    const line = page.getByTestId('health-encoder')
    expect(await line.getAttribute('data-path')).toBe('webcodecs')
    expect(await text(line)).toContain('H.264 (WebCodecs)')
    // Chosen, not a fallback: no reason to give.
    expect(await page.getByTestId('encoder-fallback').count()).toBe(0)
    expect(calls.slice(before)).toContain('pushMedia')
    expect(calls.slice(before)).not.toContain('pushFrames')
    await liveFor(page, 2)
    await stopLive(page)
    expect(await page.getByTestId('live-error').count()).toBe(0)
  })
})

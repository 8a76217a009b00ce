// A video file's sound in the mixer (#34 §4), through the web shell in real Chromium. The clip is made
// by ffmpeg: 1 s of picture (red, then blue) with a 1 kHz sine at -18 dBFS (ffmpeg's sine source, an
// amplitude of 1/8) in Opus. The microphone is Chromium's fake capture from a silent WAV, so the
// master (the mix's AnalyserNode on the node the broadcast's audio track is taken from) carries only
// the video's sound: silent while the video's strip is muted (its default), the tone once unmuted,
// through every loop.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readScenes } from '../../src/shared/scenes-saved'
import { makeMediaFile } from '../helpers/studio'
import { writeWav } from '../helpers/wav'
import {
  SHOTS,
  appForFile,
  attr,
  createStream,
  eventually,
  meterDbRange,
  nav,
  text
} from './app-page'

const dir = mkdtempSync(join(tmpdir(), 'onair-video-sound-'))
const silence = writeWav(join(dir, 'silence.wav'), 1, () => 0)
const app = appForFile({ chromiumArgs: [`--use-file-for-fake-audio-capture=${silence}`] })

const TONE_DB = -18
const clip = (): string =>
  makeMediaFile(join(dir, 'tone.webm'), [
    ...[
      '-filter_complex',
      'color=c=red:s=320x180:r=30:d=0.5[a];color=c=blue:s=320x180:r=30:d=0.5[b];[a][b]concat=n=2:v=1[v];' +
        'sine=frequency=1000:sample_rate=48000:duration=1,asetnsamples=n=960:p=0[s]'
    ],
    ...['-map', '[v]', '-map', '[s]', '-c:v', 'libvpx', '-b:v', '500k', '-c:a', 'libopus']
  ])

describe('video file sound', () => {
  it('is a strip of its own in the mixer, muted by default; unmuted, the mix carries its tone through each loop', async () => {
    const { page, shell } = app()
    await page.setViewportSize({ width: 1366, height: 768 })
    await createStream(page, 'Video sound', { profiles: 'none', record: false })
    await page.getByTestId('stream-go-live').click()
    await page.getByTestId('source-scene').check()
    await page.getByTestId('scene-canvas').waitFor()
    await page.getByTestId('video-file').setInputFiles(clip())

    // Its own strip, named after the file, muted.
    const strip = page.getByTestId('channel-video')
    await eventually(() => text(strip), 20_000).toContain('tone.webm')
    const mute = strip.getByRole('button', { name: /^Mute/ })
    expect(await attr(mute, 'aria-pressed')).toBe('true')
    // Its sound is connected (the file has a track), yet the broadcast stays silent.
    await eventually(() => text(strip), 20_000).not.toContain('no sound')
    expect((await meterDbRange(page, 'meter-master', 1500)).max).toBeLessThan(-55)

    // Unmuted: the master carries the tone at its level, and still after two more loops of the clip.
    await mute.click()
    expect(await attr(mute, 'aria-pressed')).toBe('false')
    await eventually(
      async () => (await meterDbRange(page, 'meter-master', 500)).max,
      10_000
    ).toBeGreaterThan(TONE_DB - 3)
    const later = await meterDbRange(page, 'meter-master', 2500)
    expect(later.max).toBeGreaterThan(TONE_DB - 3)
    expect(later.max).toBeLessThan(TONE_DB + 3)
    const sourceId = await attr(strip, 'data-source')
    const own = await meterDbRange(page, `meter-${sourceId}`, 1000)
    expect(own.max).toBeGreaterThan(TONE_DB - 3)

    // Its chain is there too: the audio panel has its gain, compressor, limiter, offset, monitoring.
    await page.getByTestId('open-audio-panel').click()
    await page.getByTestId(`audio-source-${sourceId}`).waitFor()
    await page.getByTestId(`audio-source-${sourceId}`).scrollIntoViewIfNeeded()
    await page.screenshot({ path: join(SHOTS, 'scene-video-audio-panel.png') })
    await page.getByRole('button', { name: 'Close' }).click()
    await strip.scrollIntoViewIfNeeded()
    await page.screenshot({ path: join(SHOTS, 'scene-video-mixer-strip.png') })

    // The mute is saved with the scenes: after a restart (the file picked again) it stays unmuted.
    const saved = async () =>
      readScenes((await shell.core.getSettings()).scenes).sources.find((s) => s.kind === 'video')
    await eventually(saved).toMatchObject({ name: 'tone.webm', muted: false })
    await page.reload()
    await nav(page, 'Go live')
    await page.getByTestId('scene-canvas').waitFor()
    const again = page
      .getByTestId('video-source')
      .getByRole('button', { name: 'Pick the file again' })
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), again.click()])
    await chooser.setFiles(clip())
    await eventually(
      () => attr(strip.getByRole('button', { name: /^Mute/ }), 'aria-pressed'),
      20_000
    ).toBe('false')
    await eventually(
      async () => (await meterDbRange(page, 'meter-master', 500)).max,
      10_000
    ).toBeGreaterThan(TONE_DB - 3)
  })
})

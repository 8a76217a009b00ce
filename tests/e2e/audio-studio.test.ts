// Audio like a studio (#34 §5), through the web shell in real Chromium. The microphone is a file
// (Chromium's fake capture from a WAV): a steady 440 Hz tone at -12 dBFS, so every stage's effect on
// the mix is a level to read. Levels are read from the master's and the microphone's meters (the mix's
// own AnalyserNodes, in dBFS, every animation frame), with the browser's processing off (it would
// reshape the tone). What the sync offset does to the sound against the picture is measured by the
// bench (`audio: sync offset applied vs set`, scripts/bench/audio-sync.ts).
import AxeBuilder from '@axe-core/playwright'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import {
  DEFAULT_AUDIO,
  DEFAULT_SOURCE_AUDIO,
  type AudioSettings,
  type MicSettings
} from '../../src/shared/audio'
import { DEFAULT_HOTKEYS } from '../../src/shared/hotkeys'
import { attr, createStream, eventually, meterDbRange, nav, SHOTS, text } from './app-page'
import {
  appWithTone,
  master,
  near,
  openPanel,
  openWith,
  PLAIN,
  savedAudio as savedAudioOf,
  TONE_DB
} from './audio-page'

const app = appWithTone()

/** Opens the Go live screen on the Scene source with these settings, the microphone connected. */
const openScene = (page: Page, audio: AudioSettings, mic: MicSettings = PLAIN) =>
  openWith(app(), 'scene', audio, mic, () =>
    page.getByTestId('scene-canvas').waitFor({ timeout: 30_000 })
  )

const savedAudio = (): Promise<AudioSettings> => savedAudioOf(app().shell.core)

describe('audio like a studio', () => {
  it('gain, compressor, limiter and monitoring change the measured level of the mix; the clip light stays lit until cleared', async () => {
    const { page } = app()
    await openScene(page, DEFAULT_AUDIO)
    await eventually(() => master(page), 20_000).toSatisfy(near(TONE_DB, 1))
    await openPanel(page)

    // Gain: +6 dB on the microphone, 6 dB louder in the mix.
    await page.getByTestId('audio-mic-gain').fill('6')
    await eventually(() => master(page)).toSatisfy(near(TONE_DB + 6, 1))

    // +20 dB: over full scale; the master's and the microphone's clip lights come on...
    const clip = page.getByTestId('meter-master-clip')
    expect(await attr(clip, 'data-on')).toBe('false')
    await page.getByTestId('audio-mic-gain').fill('20')
    await eventually(() => attr(clip, 'data-on')).toBe('true')
    await eventually(() => attr(page.getByTestId('meter-mic-clip'), 'data-on')).toBe('true')
    // ...and stay lit once the level is down again, past the peak hold, until clicked.
    await page.getByTestId('audio-mic-gain').fill('0')
    await eventually(() => master(page)).toSatisfy(near(TONE_DB, 1))
    await eventually(
      () => attr(page.getByTestId('meter-master'), 'data-peak-db').then(Number),
      10_000
    ).toSatisfy(near(TONE_DB, 1))
    expect(await attr(clip, 'data-on')).toBe('true')
    await page.getByTestId('audio-panel').getByRole('button', { name: 'Close' }).click()
    await clip.click()
    await eventually(() => attr(clip, 'data-on')).toBe('false')
    expect(await attr(page.getByTestId('meter-mic-clip'), 'data-on')).toBe('true')

    // The limiter at -1 dBFS holds the +20 dB tone under full scale: no clip light this time.
    await openPanel(page)
    await page.getByTestId('audio-mic-limiter').check()
    await page.getByTestId('audio-mic-gain').fill('20')
    await eventually(() => master(page)).toSatisfy(near(-1, 0.6))
    const limited = await meterDbRange(page, 'meter-master', 2000)
    expect(limited.max).toBeLessThan(-0.3)
    expect(await attr(clip, 'data-on')).toBe('false')

    // The compressor: threshold -30 dBFS, 4:1, the tone at -12 comes out at -30 + 18/4 = -25.5; the
    // makeup adds its own 6 dB and nothing more (the node's own makeup is taken off).
    await page.getByTestId('audio-mic-limiter').uncheck()
    await page.getByTestId('audio-mic-gain').fill('0')
    await page.getByTestId('audio-mic-comp-threshold').fill('-30')
    await page.getByTestId('audio-mic-comp-ratio').fill('4')
    await page.getByTestId('audio-mic-compressor').check()
    await eventually(() => master(page)).toSatisfy(near(-25.5, 1.5))
    await page.getByTestId('audio-mic-comp-makeup').fill('6')
    await eventually(() => master(page)).toSatisfy(near(-19.5, 1.5))
    await page.getByTestId('audio-mic-compressor').uncheck()
    await eventually(() => master(page)).toSatisfy(near(TONE_DB, 1))

    // Monitor only: heard on this computer, gone from the broadcast; its own meter still moves.
    await page.getByTestId('audio-mic-monitoring').selectOption('monitor-only')
    await eventually(() => master(page)).toBeLessThan(-55)
    expect((await meterDbRange(page, 'meter-mic', 500)).max).toSatisfy(near(TONE_DB, 1))
    expect(await text(page.getByTestId('audio-monitor-note'))).toContain('use headphones')
    await page.getByTestId('audio-mic-monitoring').selectOption('monitor-and-output')
    await eventually(() => master(page)).toSatisfy(near(TONE_DB, 1))
  })

  it('a negative sync offset is refused with the reason; the settings survive a reload', async () => {
    const { page } = app()
    await openScene(page, DEFAULT_AUDIO)
    await openPanel(page)
    const sync = page.getByTestId('audio-mic-sync')
    await sync.fill('-50')
    expect(await text(page.getByTestId('audio-mic-sync-error'))).toContain(
      'A negative offset would play the sound before it is captured'
    )
    expect(await attr(sync, 'aria-invalid')).toBe('true')
    await sync.fill('200')
    await page.getByTestId('audio-screen-gain').fill('-6.5')
    await page.getByTestId('audio-screen-limiter').check()
    await page.getByTestId('audio-screen-lim-ceiling').fill('-3')
    await page.getByTestId('audio-mic-monitoring').selectOption('monitor-and-output')
    const want: AudioSettings = {
      sources: {
        mic: { ...DEFAULT_SOURCE_AUDIO, syncOffsetMs: 200, monitoring: 'monitor-and-output' },
        screen: {
          ...DEFAULT_SOURCE_AUDIO,
          gainDb: -6.5,
          limiter: { ...DEFAULT_SOURCE_AUDIO.limiter, enabled: true, ceilingDb: -3 }
        }
      }
    }
    await eventually(savedAudio).toEqual(want)

    await page.reload()
    await nav(page, 'Go live')
    await page.getByTestId('scene-canvas').waitFor({ timeout: 30_000 })
    await openPanel(page)
    expect(await page.getByTestId('audio-mic-sync').inputValue()).toBe('200')
    expect(await page.getByTestId('audio-screen-gain').inputValue()).toBe('-6.5')
    expect(await page.getByTestId('audio-screen-limiter').isChecked()).toBe(true)
    expect(await page.getByTestId('audio-screen-lim-ceiling').inputValue()).toBe('-3')
    expect(await page.getByTestId('audio-mic-monitoring').inputValue()).toBe('monitor-and-output')
    expect(await savedAudio()).toEqual(want)
  })

  it('the audio panel fits a 1366x768 window, every control named', async () => {
    const { page } = app()
    await page.setViewportSize({ width: 1366, height: 768 })
    try {
      await openScene(page, DEFAULT_AUDIO)
      await openPanel(page)
      const box = (await page.getByTestId('audio-panel').boundingBox())!
      expect(box.y).toBeGreaterThanOrEqual(0)
      expect(box.y + box.height).toBeLessThanOrEqual(768)
      // Nothing inside it scrolls: every field is in view.
      const scrolls = await page
        .getByTestId('audio-panel')
        .evaluate((el) => el.scrollHeight > el.clientHeight + 1)
      expect(scrolls).toBe(false)
      const r = await new AxeBuilder({ page }).include('[data-testid=audio-panel]').analyze()
      expect(
        r.violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => v.id)
      ).toEqual([])
      await page.screenshot({ path: join(SHOTS, 'audio-panel.png') })
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 })
    }
  })

  it('the live bar shows push-to-talk held shut, and open while its key is held', async () => {
    const { page } = app()
    const { core } = app().shell
    await core.setHotkeys({
      ...DEFAULT_HOTKEYS,
      bindings: { ...DEFAULT_HOTKEYS.bindings, 'push-to-talk': 'Alt+P' }
    })
    await openScene(page, DEFAULT_AUDIO, { ...PLAIN, pushToTalk: true })
    await createStream(page, 'Audio live', { profiles: 'none', record: false })
    await page.getByTestId('stream-go-live').click()
    await page.getByTestId('source-scene').check()
    await page.getByTestId('scene-canvas').waitFor({ timeout: 30_000 })
    // The live bar shows the program's state from the moment the run holds it (connecting or live).
    await page.getByTestId('go-live').click()
    await page.getByTestId('live-banner').waitFor({ timeout: 30_000 })
    const ptt = page.getByTestId('banner-ptt')
    await eventually(() => text(ptt)).toBe('Push to talk: held shut')
    expect(await attr(ptt, 'data-talking')).toBe('false')
    // Beside the mute button.
    const mute = (await page.getByTestId('banner-mute-mic').boundingBox())!
    const pill = (await ptt.boundingBox())!
    expect(Math.abs(pill.y + pill.height / 2 - (mute.y + mute.height / 2))).toBeLessThan(8)

    await page.getByRole('heading', { name: 'Go live' }).click()
    await page.keyboard.down('Alt')
    await page.keyboard.down('p')
    await eventually(() => text(ptt)).toBe('Push to talk: open')
    await page
      .getByTestId('live-banner')
      .screenshot({ path: join(SHOTS, 'live-bar-push-to-talk.png') })
    await page.keyboard.up('p')
    await page.keyboard.up('Alt')
    await eventually(() => text(ptt)).toBe('Push to talk: held shut')
    await page.getByTestId('stop-live').click()
    await page
      .getByTestId('live-banner')
      .and(page.locator('[data-state=ended]'))
      .waitFor({ timeout: 60_000 })
  })
})

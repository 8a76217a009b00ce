// Audio like a studio in the Camera and Screen sources (#34 §5), through the web shell in real
// Chromium: the microphone of a camera broadcast (or a screen's own sound) goes through the same chain
// as a scene's (gain, compressor, limiter, sync offset, monitoring, the meters), its settings are the
// source's (kept once, as in the Scene source), so are its volume and mute (no scene keeps them
// here), and push-to-talk and mute work here too. The
// microphone is a file (Chromium's fake capture from a WAV): a steady 440 Hz tone at -12 dBFS, the
// browser's processing off; Chromium's fake screen beeps. The recording made with Record shows that
// the encoder gets the chain's sound, not the raw microphone.
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
import {
  attr,
  eventually,
  maxVolume,
  meterDbRange,
  nav,
  numberAbove,
  pressGoLive,
  type Probe,
  reopenWithSettings,
  SHOTS,
  stopLive,
  text
} from './app-page'
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

/** Opens the Go live screen on the Camera source with these settings: the picture and the mic open. */
const openCamera = (page: Page, audio: AudioSettings, mic: MicSettings = PLAIN) =>
  openWith(app(), 'camera', audio, mic, async () => {
    await page.waitForFunction(numberAbove, ['[data-testid=preview]', 'videoWidth', 0] as Probe, {
      timeout: 30_000
    })
    await page.getByTestId('mixer').waitFor({ timeout: 30_000 })
  })

const savedAudio = (): Promise<AudioSettings> => savedAudioOf(app().shell.core)

describe('audio like a studio, Camera and Screen sources', () => {
  it("gain, sync offset and monitoring act on the camera's microphone, are kept for the source, and survive a reload", async () => {
    const { page } = app()
    await openCamera(page, DEFAULT_AUDIO)
    await eventually(() => master(page), 20_000).toSatisfy(near(TONE_DB, 1))
    // The mix's own mic channel only: a camera has no screen audio.
    expect(await page.getByTestId('channel-screen').count()).toBe(0)
    await openPanel(page)
    expect(await page.getByTestId('audio-source-screen').count()).toBe(0)

    await page.getByTestId('audio-mic-gain').fill('6')
    await eventually(() => master(page)).toSatisfy(near(TONE_DB + 6, 1))
    await page.getByTestId('audio-mic-sync').fill('150')
    // Monitor only: on this computer, gone from the broadcast; the microphone's own meter still moves.
    await page.getByTestId('audio-mic-monitoring').selectOption('monitor-only')
    await eventually(() => master(page)).toBeLessThan(-55)
    expect((await meterDbRange(page, 'audio-meter-mic', 500)).max).toSatisfy(near(TONE_DB + 6, 1))
    await page.getByTestId('audio-mic-monitoring').selectOption('monitor-and-output')
    await eventually(() => master(page)).toSatisfy(near(TONE_DB + 6, 1))

    const want: AudioSettings = {
      sources: {
        mic: {
          ...DEFAULT_SOURCE_AUDIO,
          gainDb: 6,
          syncOffsetMs: 150,
          monitoring: 'monitor-and-output'
        },
        screen: DEFAULT_SOURCE_AUDIO
      }
    }
    await eventually(savedAudio).toEqual(want)

    // Reopened: the source's settings are as left, and heard.
    await page.reload()
    await nav(page, 'Go live')
    await page.getByTestId('mixer').waitFor({ timeout: 30_000 })
    await eventually(() => master(page), 20_000).toSatisfy(near(TONE_DB + 6, 1))
    await openPanel(page)
    expect(await page.getByTestId('audio-mic-gain').inputValue()).toBe('6')
    expect(await page.getByTestId('audio-mic-sync').inputValue()).toBe('150')
    expect(await page.getByTestId('audio-mic-monitoring').inputValue()).toBe('monitor-and-output')
  })

  it("the camera's volume and mute are kept: back after a reload, and the mix obeys them", async () => {
    const { page, shell } = app()
    await openCamera(page, DEFAULT_AUDIO)
    await eventually(() => master(page), 20_000).toSatisfy(near(TONE_DB, 1))
    // Half the volume (-6 dB), then muted.
    await page.getByTestId('gain-mic').fill('50')
    await eventually(() => master(page)).toSatisfy(near(TONE_DB - 6, 1))
    await page.getByTestId('mute-mic').click()
    await eventually(() => master(page)).toBeLessThan(-55)
    const levels = async () => ((await shell.core.getSettings()).audio ?? {}).levels
    await eventually(levels).toEqual({ mic: { gain: 0.5, muted: true } })

    // Reopened: still muted at half volume, and silent; unmuted, the tone comes back 6 dB down.
    await page.reload()
    await nav(page, 'Go live')
    await page.getByTestId('mixer').waitFor({ timeout: 30_000 })
    await eventually(() => attr(page.getByTestId('mute-mic'), 'aria-pressed'), 20_000).toBe('true')
    expect(await page.getByTestId('gain-mic').inputValue()).toBe('50')
    await eventually(async () => (await meterDbRange(page, 'meter-mic', 500)).max).toBeLessThan(-55)
    expect(await master(page)).toBeLessThan(-55)
    await page.getByTestId('mute-mic').click()
    await eventually(() => master(page), 20_000).toSatisfy(near(TONE_DB - 6, 1))
    await eventually(levels).toEqual({ mic: { gain: 0.5, muted: false } })
    // Back to full volume for the tests after this one.
    await page.getByTestId('gain-mic').fill('100')
    await eventually(levels).toEqual({ mic: { gain: 1, muted: false } })
  })

  it("the live bar's Mute mic, pressed on another screen, mutes the broadcast's microphone and is kept", async () => {
    const { page, shell } = app()
    // Made before the page opens Go live, so its list of streams has it.
    const { id } = await shell.core.createStream({
      name: 'Mute from the bar',
      profiles: [],
      record: false
    })
    await openCamera(page, DEFAULT_AUDIO)
    await eventually(() => master(page), 20_000).toSatisfy(near(TONE_DB, 1))
    await page.getByTestId('live-stream').selectOption(id)
    await pressGoLive(page)
    await nav(page, 'Sessions')
    await page.getByTestId('banner-mute-mic').click()
    await page.getByTestId('mic-muted').waitFor()
    const levels = async () => ((await shell.core.getSettings()).audio ?? {}).levels
    // Kept without the Go live screen being opened again.
    await eventually(levels).toEqual({ mic: { gain: 1, muted: true } })
    await stopLive(page)

    // Reopened: muted, and the mix is silent; unmuted from the mixer, the tone is back.
    await page.reload()
    await nav(page, 'Go live')
    await page.getByTestId('mixer').waitFor({ timeout: 30_000 })
    await eventually(() => attr(page.getByTestId('mute-mic'), 'aria-pressed'), 20_000).toBe('true')
    await eventually(() => master(page), 20_000).toBeLessThan(-55)
    await page.getByTestId('mute-mic').click()
    await eventually(() => master(page), 20_000).toSatisfy(near(TONE_DB, 1))
    await eventually(levels).toEqual({ mic: { gain: 1, muted: false } })
  })

  it("the recording carries the chain's sound: a -20 dB gain is 20 dB lower in the file", async () => {
    const { page, shell } = app()
    const quiet: AudioSettings = {
      sources: { ...DEFAULT_AUDIO.sources, mic: { ...DEFAULT_SOURCE_AUDIO, gainDb: -20 } }
    }
    await openCamera(page, quiet)
    await eventually(() => master(page), 20_000).toSatisfy(near(TONE_DB - 20, 1))
    await page.getByTestId('output-resolution').selectOption('640x360')
    await page.getByRole('button', { name: 'Record', exact: true }).click()
    await eventually(() => text(page.getByTestId('record-state')), 30_000).toBe('Recording')
    await eventually(() => text(page.getByTestId('record-elapsed')), 30_000).toMatch(/^0:0[4-9]$/)
    await page.getByRole('button', { name: 'Stop recording' }).click()
    await eventually(async () => (await shell.core.listRecordings())[0]?.state, 60_000).toBe(
      'saved'
    )
    const file = (await shell.core.listRecordings())[0]!.file
    // The file's loudest sample, past its first second: the tone 20 dB down (AAC's rounding aside).
    expect(await maxVolume(file, 1, 3)).toSatisfy(near(TONE_DB - 20, 1.5))
  })

  it('push-to-talk holds the microphone shut until its key is held; Mute shuts it', async () => {
    const { page } = app()
    const { core } = app().shell
    await core.setHotkeys({
      ...DEFAULT_HOTKEYS,
      bindings: { ...DEFAULT_HOTKEYS.bindings, 'push-to-talk': 'Alt+P' }
    })
    await openCamera(page, DEFAULT_AUDIO, { ...PLAIN, pushToTalk: true })
    await eventually(() => attr(page.getByTestId('talk-state'), 'data-talking')).toBe('false')
    expect(await master(page)).toBeLessThan(-55)

    await page.getByRole('heading', { name: 'Go live' }).click()
    await page.keyboard.down('Alt')
    await page.keyboard.down('p')
    await eventually(() => attr(page.getByTestId('talk-state'), 'data-talking')).toBe('true')
    await eventually(() => master(page)).toSatisfy(near(TONE_DB, 1))
    await page.keyboard.up('p')
    await page.keyboard.up('Alt')
    await eventually(() => master(page)).toBeLessThan(-55)

    await page.getByTestId('push-to-talk').uncheck()
    await eventually(() => master(page)).toSatisfy(near(TONE_DB, 1))
    await page.getByTestId('mute-mic').click()
    await eventually(() => master(page)).toBeLessThan(-55)
    await page.getByTestId('mute-mic').click()
    await eventually(() => master(page)).toSatisfy(near(TONE_DB, 1))
  })

  it("the Screen source's sound goes through the screen's chain: the mixer and the panel show the screen only", async () => {
    const { page } = app()
    // Its volume as kept from before (half), its chain 6 dB down.
    const quieter: AudioSettings = {
      sources: { ...DEFAULT_AUDIO.sources, screen: { ...DEFAULT_SOURCE_AUDIO, gainDb: -6 } },
      levels: { screen: { gain: 0.5, muted: false } }
    }
    await reopenWithSettings(app(), (s) => ({ ...s, sourceKind: 'screen', audio: quieter }))
    await page.getByRole('button', { name: 'Choose screen' }).click()
    await page.waitForFunction(numberAbove, ['[data-testid=preview]', 'videoWidth', 0] as Probe, {
      timeout: 30_000
    })
    await page.getByTestId('channel-screen').waitFor({ timeout: 30_000 })
    expect(await page.getByTestId('channel-mic').count()).toBe(0)
    expect(await page.getByTestId('mic-options').count()).toBe(0)
    await openPanel(page)
    expect(await page.getByTestId('audio-source-mic').count()).toBe(0)
    expect(await page.getByTestId('audio-screen-gain').inputValue()).toBe('-6')
    await page.getByTestId('audio-panel').getByRole('button', { name: 'Close' }).click()
    expect(await page.getByTestId('gain-screen').inputValue()).toBe('50')
    // Chromium's fake screen beeps: its loudest block over 2 s, at -6 dB and half volume, then at
    // 0 dB (6 dB up), then at full volume (6 dB more).
    const loudest = async (): Promise<number> =>
      (await meterDbRange(page, 'meter-master', 2000)).max
    await eventually(loudest, 20_000).toBeGreaterThan(-55)
    const before = await loudest()
    await openPanel(page)
    await page.getByTestId('audio-screen-gain').fill('0')
    await eventually(loudest).toSatisfy(near(before + 6, 1.5))
    await page.getByTestId('audio-panel').getByRole('button', { name: 'Close' }).click()
    await page.getByTestId('gain-screen').fill('100')
    await eventually(loudest).toSatisfy(near(before + 12, 1.5))
    await openPanel(page)
    await page.getByTestId('audio-screen-monitoring').selectOption('monitor-only')
    await eventually(loudest).toBeLessThan(-55)
    // What is sent: the screen's picture and the mix's one audio track.
    const tracks = await page.evaluate(() => {
      const v = (
        globalThis as unknown as {
          document: { querySelector(s: string): { srcObject: MediaStream | null } }
        }
      ).document.querySelector('[data-testid=preview]')
      const s = v.srcObject
      return { video: s?.getVideoTracks().length ?? 0, audio: s?.getAudioTracks().length ?? 0 }
    })
    expect(tracks).toEqual({ video: 1, audio: 1 })
  })

  it('the audio panel fits a 1366x768 window in the Camera source, every control named', async () => {
    const { page } = app()
    await page.setViewportSize({ width: 1366, height: 768 })
    try {
      await openCamera(page, DEFAULT_AUDIO)
      await openPanel(page)
      const box = (await page.getByTestId('audio-panel').boundingBox())!
      expect(box.y).toBeGreaterThanOrEqual(0)
      expect(box.y + box.height).toBeLessThanOrEqual(768)
      const r = await new AxeBuilder({ page }).include('[data-testid=audio-panel]').analyze()
      expect(
        r.violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => v.id)
      ).toEqual([])
      await page.screenshot({ path: join(SHOTS, 'audio-panel-camera.png') })
      await page.getByTestId('audio-panel').getByRole('button', { name: 'Close' }).click()
      await page.getByTestId('mixer').screenshot({ path: join(SHOTS, 'mixer-camera.png') })
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 })
    }
  })
})

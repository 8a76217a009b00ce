// Shared steps for the audio e2e tests (audio-studio, audio-camera): one app whose microphone is a
// steady tone, the microphone's settings with the browser's processing off (it would reshape the
// tone), opening a source with saved settings, the master's steady level, the saved audio settings
// and the Audio panel.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import type { Core } from '../../src/main/core/core'
import type { CaptureKind } from '../../src/shared/contract'
import {
  DEFAULT_MIC,
  readAudio,
  type AudioSettings,
  type MicSettings
} from '../../src/shared/audio'
import { tone, writeWav } from '../helpers/wav'
import {
  type App,
  appForFile,
  eventually,
  meterDbRange,
  reopenWithSettings,
  text
} from './app-page'

/** The microphone's steady 440 Hz tone (dBFS). */
export const TONE_DB = -12

/** One app for a test file whose microphone is the tone (Chromium's fake capture from a WAV). */
export function appWithTone(): () => App {
  const dir = mkdtempSync(join(tmpdir(), 'onair-audio-'))
  const wav = writeWav(join(dir, 'tone.wav'), 2, tone(440, TONE_DB))
  return appForFile({ chromiumArgs: [`--use-file-for-fake-audio-capture=${wav}`] })
}

/** No processing, no gate, no push-to-talk. */
export const PLAIN: MicSettings = {
  ...DEFAULT_MIC,
  processing: { noiseSuppression: false, echoCancellation: false, autoGainControl: false }
}

/**
 * Opens the Go live screen on a source with these audio and microphone settings: `ready` waits for
 * the source's picture, then the mixer's microphone is awaited.
 */
export async function openWith(
  app: App,
  sourceKind: CaptureKind,
  audio: AudioSettings,
  mic: MicSettings,
  ready: () => Promise<unknown>
): Promise<void> {
  const { page } = app
  await reopenWithSettings(app, (s) => ({ ...s, sourceKind, mic, audio }))
  await ready()
  await eventually(() => text(page.getByTestId('channel-mic')), 30_000).not.toContain(
    'not connected'
  )
}

/** The master's steady level: its loudest block over a second (the tone's peak), once it has settled. */
export const master = async (page: Page): Promise<number> =>
  (await meterDbRange(page, 'meter-master', 1000)).max

export async function savedAudio(core: Core): Promise<AudioSettings> {
  return readAudio((await core.getSettings()).audio)
}

export async function openPanel(page: Page): Promise<void> {
  await page.getByTestId('open-audio-panel').click()
  await page.getByTestId('audio-panel').waitFor()
}

/** A level within `within` dB of `want`. */
export const near = (want: number, within: number) => (v: number) => Math.abs(v - want) <= within

// A cleaner microphone and keys from anywhere (#20 parts 4 and 5), through the web shell in real
// Chromium. The microphone is a file (Chromium's fake capture from a WAV): a 440 Hz tone, one second
// loud (-6 dBFS) and one second quiet (-50 dBFS), looped, so the mixer's microphone meter (after the
// gate, the talk stage and the volume) tells open from shut. What only Electron can show (a key heard
// while another app is in front) is tested by injection in tests/unit/core/global-hotkeys.test.ts.
import AxeBuilder from '@axe-core/playwright'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { DEFAULT_MIC, readMic, type MicSettings } from '../../src/shared/audio'
import { tone, writeWav } from '../helpers/wav'
import {
  appForFile,
  attr,
  createStream,
  eventually,
  nav,
  reopenWithSettings,
  SHOTS,
  text
} from './app-page'

/** 440 Hz, loud (-6 dBFS) then quiet (-50 dBFS), a second each, twice. */
const loudQuietWav = (file: string): string =>
  writeWav(file, 4, (t) => tone(440, Math.floor(t) % 2 === 0 ? -6 : -50)(t))

const dir = mkdtempSync(join(tmpdir(), 'onair-mic-keys-'))
const wav = loudQuietWav(join(dir, 'loud-quiet.wav'))
const app = appForFile({ chromiumArgs: [`--use-file-for-fake-audio-capture=${wav}`] })

/** No processing (it would reshape the test tone), no gate, no push-to-talk. */
const PLAIN: MicSettings = {
  ...DEFAULT_MIC,
  processing: { noiseSuppression: false, echoCancellation: false, autoGainControl: false }
}

/** Opens the Go live screen on the Scene source with these microphone settings, the mic connected. */
async function openScene(page: Page, mic: MicSettings): Promise<void> {
  await reopenWithSettings(app(), (s) => ({ ...s, sourceKind: 'scene', mic }))
  await page.getByTestId('scene-canvas').waitFor({ timeout: 30_000 })
  await eventually(() => text(page.getByTestId('channel-mic')), 30_000).not.toContain(
    'not connected'
  )
}

/** The microphone meter's lowest and highest readings (0..100, -60..0 dBFS) over `ms`, every frame. */
function micRange(page: Page, ms: number): Promise<{ min: number; max: number }> {
  return page.evaluate(
    (ms) =>
      new Promise<{ min: number; max: number }>((resolve) => {
        const doc = (globalThis as unknown as { document: { querySelector(s: string): unknown } })
          .document
        const raf = (globalThis as unknown as { requestAnimationFrame(f: () => void): void })
          .requestAnimationFrame
        const meter = doc.querySelector('[data-testid=meter-mic]') as {
          getAttribute(n: string): string | null
        }
        let min = 100
        let max = 0
        const end = Date.now() + ms
        const tick = (): void => {
          const v = Number(meter.getAttribute('aria-valuenow'))
          min = Math.min(min, v)
          max = Math.max(max, v)
          if (Date.now() < end) raf(tick)
          else resolve({ min, max })
        }
        raf(tick)
      }),
    ms
  )
}

async function savedMic(): Promise<MicSettings> {
  return readMic((await app().shell.core.getSettings()).mic)
}

async function openKeys(page: Page): Promise<void> {
  await nav(page, 'Keys')
  await page.getByTestId('keys-table').waitFor()
}

/** Serious or critical axe-core findings inside one part of the page. */
async function axeFindings(page: Page, selector: string): Promise<string[]> {
  const r = await new AxeBuilder({ page }).include(selector).analyze()
  return r.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
}

/** Chooses a key on the Keys screen: Change, then the keys pressed together. */
async function chooseKey(page: Page, action: string, keys: string): Promise<void> {
  await page.getByTestId(`key-change-${action}`).click()
  await page.getByTestId(`key-change-${action}`).press(keys)
}

/** Two animation frames of the page: a key already handled has been drawn by then. */
const twoFrames = (page: Page): Promise<void> =>
  page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        const raf = (globalThis as unknown as { requestAnimationFrame(f: () => void): void })
          .requestAnimationFrame
        raf(() => raf(() => resolve()))
      })
  )

const activeTab = (page: Page): Promise<string> =>
  text(page.locator('[data-testid=scene-tab][aria-pressed=true]'))

describe('a cleaner microphone', () => {
  it("the processing switches change the microphone track's applied settings, and are kept across a reload", async () => {
    const { page } = app()
    await openScene(page, DEFAULT_MIC)
    // The browser's own processing, all on by default, as the track reports it (getSettings()).
    for (const k of ['noiseSuppression', 'echoCancellation', 'autoGainControl'])
      await eventually(() => attr(page.getByTestId(`applied-${k}`), 'data-value')).toBe('true')

    await page.getByTestId('mic-noiseSuppression').uncheck()
    await eventually(() => attr(page.getByTestId('applied-noiseSuppression'), 'data-value')).toBe(
      'false'
    )
    await page.getByTestId('mic-autoGainControl').uncheck()
    await page.getByTestId('mic-echoCancellation').uncheck()
    for (const k of ['noiseSuppression', 'echoCancellation', 'autoGainControl'])
      await eventually(() => attr(page.getByTestId(`applied-${k}`), 'data-value')).toBe('false')
    expect(await text(page.getByTestId('mic-applied'))).toContain(
      'The browser applied: noise suppression off, echo cancellation off, automatic gain off.'
    )
    await eventually(savedMic).toEqual(PLAIN)

    // Reopened: the switches are as left, and the microphone opens with them.
    await page.reload()
    await nav(page, 'Go live')
    await page.getByTestId('scene-canvas').waitFor({ timeout: 30_000 })
    expect(await page.getByTestId('mic-noiseSuppression').isChecked()).toBe(false)
    expect(await page.getByTestId('mic-echoCancellation').isChecked()).toBe(false)
    for (const k of ['noiseSuppression', 'echoCancellation', 'autoGainControl'])
      await eventually(() => attr(page.getByTestId(`applied-${k}`), 'data-value')).toBe('false')
  })

  it('the noise gate shuts the microphone below its threshold, shown on the meter, and is saved', async () => {
    const { page } = app()
    await openScene(page, PLAIN)
    // No gate: the quiet second (-50 dBFS) still shows on the meter, the loud one near the top.
    await eventually(() => micRange(page, 2500), 20_000).toEqual({
      min: expect.toSatisfy((v: number) => v >= 8),
      max: expect.toSatisfy((v: number) => v >= 80)
    })

    await page.getByTestId('gate-enabled').check()
    await page.getByTestId('gate-threshold').fill('-30')
    // The threshold is drawn on the meter: -30 dBFS is the middle of its -60..0 scale.
    expect(await attr(page.getByTestId('meter-mic-marker'), 'style')).toContain('left: 50%')
    // Gated: the loud second passes, the quiet one is shut (nothing on the meter).
    await eventually(() => micRange(page, 2500), 20_000).toEqual({
      min: expect.toSatisfy((v: number) => v <= 2),
      max: expect.toSatisfy((v: number) => v >= 80)
    })
    await eventually(savedMic).toEqual({ ...PLAIN, gate: { enabled: true, thresholdDb: -30 } })
    expect(await axeFindings(page, '[data-testid=mixer]')).toEqual([])
    await page.getByTestId('mixer').screenshot({ path: join(SHOTS, 'mixer-mic.png') })
  })

  it('push-to-talk opens the microphone only while its key is held', async () => {
    const { page } = app()
    await page.reload()
    await openKeys(page)
    await chooseKey(page, 'push-to-talk', 'Alt+T')
    await eventually(() => text(page.getByTestId('key-push-to-talk'))).toBe('Alt+T')

    await openScene(page, { ...PLAIN, pushToTalk: true })
    expect(await text(page.getByTestId('talk-hint'))).toContain(
      'The microphone is open only while you hold Alt+T.'
    )
    await eventually(() => attr(page.getByTestId('talk-state'), 'data-talking')).toBe('false')
    expect((await micRange(page, 2200)).max).toBeLessThanOrEqual(2)

    // Held: the tone comes through (the page has focus; not typing in a field).
    await page.getByRole('heading', { name: 'Go live' }).click()
    await page.keyboard.down('Alt')
    await page.keyboard.down('t')
    await eventually(() => attr(page.getByTestId('talk-state'), 'data-talking')).toBe('true')
    expect((await micRange(page, 2200)).max).toBeGreaterThanOrEqual(80)
    // Let go (Alt first, as people do): shut again.
    await page.keyboard.up('Alt')
    await page.keyboard.up('t')
    await eventually(() => attr(page.getByTestId('talk-state'), 'data-talking')).toBe('false')
    // The meter's window (about 21 ms of sound) empties first; then it stays shut through a loud second.
    await eventually(async () => (await micRange(page, 100)).max).toBeLessThanOrEqual(2)
    expect((await micRange(page, 2200)).max).toBeLessThanOrEqual(2)
  })
})

describe('keys', () => {
  it('a chosen key switches the scene while the page has focus (never while typing), and a key chosen twice is named', async () => {
    const { page } = app()
    await page.reload()
    await openKeys(page)
    await chooseKey(page, 'scene-2', 'Control+Shift+2')
    await eventually(() => text(page.getByTestId('key-scene-2'))).toBe('Ctrl+Shift+2')

    await openScene(page, PLAIN)
    const tabs = page.getByTestId('scene-tab')
    const second = await text(tabs.nth(1))
    const first = await text(tabs.nth(0))
    await page.keyboard.press('Alt+1')
    await eventually(() => activeTab(page)).toBe(first)
    await page.keyboard.press('Control+Shift+2')
    await eventually(() => activeTab(page)).toBe(second)
    expect(await attr(tabs.nth(1), 'title')).toBe(`${second} (Ctrl+Shift+2)`)
    // Scene 2's old key does nothing now.
    await page.keyboard.press('Alt+1')
    await eventually(() => activeTab(page)).toBe(first)
    await page.keyboard.press('Alt+2')
    await twoFrames(page)
    expect(await activeTab(page)).toBe(first)
    // Typed into the scene's name: the field's, not a scene switch.
    const name = page.getByTestId('scene-name')
    await name.press('Control+Shift+2')
    await twoFrames(page)
    expect(await activeTab(page)).toBe(first)
    expect(await name.inputValue()).toBe(first)

    // The same key for a marker: both are named, and the key does neither.
    await openKeys(page)
    await chooseKey(page, 'marker', 'Control+Shift+2')
    await eventually(() => text(page.getByTestId('key-conflicts'))).toContain(
      'Ctrl+Shift+2 is chosen for both Scene 2 and Add a marker, so it does neither: pick another key for one of them, or clear it.'
    )
    expect(await attr(page.getByTestId('key-row-scene-2'), 'data-conflict')).toBe('true')
    // A key that types is refused with the reason.
    await chooseKey(page, 'clip', 'k')
    await eventually(() => text(page.getByTestId('key-problem-clip'))).toBe(
      'K types text: hold Ctrl or Alt with it.'
    )
    await page.screenshot({ path: join(SHOTS, 'keys-panel.png'), fullPage: true })
    expect(await axeFindings(page, '[aria-labelledby=keys-title]')).toEqual([])
    await nav(page, 'Go live')
    await page.getByTestId('scene-canvas').waitFor()
    await page.getByRole('heading', { name: 'Go live' }).click()
    await eventually(() => activeTab(page)).toBe(first)
    await page.keyboard.press('Control+Shift+2')
    await twoFrames(page)
    expect(await activeTab(page)).toBe(first)

    // Cleared: the conflict is gone, and the key is scene 2's again.
    await openKeys(page)
    await page.getByTestId('key-clear-marker').click()
    await eventually(() => page.getByTestId('key-conflicts').count()).toBe(0)
    const saved = (await app().shell.core.getHotkeys()).settings.bindings
    expect(saved['scene-2']).toBe('CommandOrControl+Shift+2')
    expect(saved.marker).toBeNull()
    expect(await text(page.getByTestId('keys-global-note'))).toBe(
      'Only the Onair app can hear keys while another app is in front.'
    )
    expect(await page.getByTestId('keys-global').isDisabled()).toBe(true)
  })

  it('the Go live / Stop key starts the chosen stream on the Go live screen and stops it from another screen', async () => {
    const { page } = app()
    await openKeys(page)
    await chooseKey(page, 'golive-toggle', 'Control+Shift+L')
    await eventually(() => text(page.getByTestId('key-golive-toggle'))).toBe('Ctrl+Shift+L')
    await createStream(page, 'Keys live', { profiles: 'none', record: false })
    await page.getByTestId('stream-go-live').click()
    await page.getByTestId('source-test-pattern').check()
    await eventually(() => page.getByTestId('go-live').isEnabled()).toBe(true)
    await page.getByRole('heading', { name: 'Go live' }).click()
    await page.keyboard.press('Control+Shift+L')
    await page
      .getByTestId('live-banner')
      .and(page.locator('[data-state=live]'))
      .waitFor({ timeout: 90_000 })
    await nav(page, 'Sessions')
    await page.keyboard.press('Control+Shift+L')
    await page
      .getByTestId('live-banner')
      .and(page.locator('[data-state=ended]'))
      .waitFor({ timeout: 60_000 })
  })
})

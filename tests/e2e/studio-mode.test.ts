// Studio mode (#34 §3) in real Chromium through the web shell, live: with it on, a picked scene goes to
// the preview and the program (the canvas the broadcast's track is captured from) does not change;
// Transition, the button or its key, puts the preview on air. Off, a pick goes on air at once. The
// camera is a blue file (helpers/fake-camera.ts): "Camera" is blue in the middle, "Screen + camera"
// (no screen shared) is not.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { DEFAULT_HOTKEYS } from '../../src/shared/hotkeys'
import { makeFakeCamera } from '../helpers/fake-camera'
import {
  appForFile,
  createStream,
  eventually,
  pressGoLive,
  sceneColourAt,
  shot,
  stopLive,
  text
} from './app-page'

const camera = makeFakeCamera(mkdtempSync(join(tmpdir(), 'onair-studio-mode-cam-')))
const app = appForFile({ chromiumArgs: [camera.flag] })

type RGB = [number, number, number]
const isBlue = ([r, g, b]: RGB): boolean => b > 170 && r < 90 && g < 120
/** The program's middle: blue while "Camera" is on air. */
const programBlue = async (page: Page): Promise<boolean> =>
  isBlue(await sceneColourAt(page, 0.5, 0.5))
const tab = (page: Page, name: RegExp) => page.getByTestId('scene-tab').filter({ hasText: name })

/** Stays false for `ms` (sampled every 100 ms): the program did not change. */
async function staysFalse(read: () => Promise<boolean>, ms: number): Promise<void> {
  const until = Date.now() + ms
  while (Date.now() < until) {
    expect(await read()).toBe(false)
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe('studio mode', () => {
  it('a pick goes to the preview while live; Transition (button or its chosen key) puts it on air; off, a pick is on air at once', async () => {
    const { page, shell } = app()
    // Transition has no key until the creator picks one (as in OBS): pick Alt+T.
    await shell.core.setHotkeys({
      ...DEFAULT_HOTKEYS,
      bindings: { ...DEFAULT_HOTKEYS.bindings, transition: 'Alt+T' }
    })
    await page.reload()
    await page.setViewportSize({ width: 1366, height: 768 })
    await createStream(page, 'Studio mode show', { profiles: 'none', record: false })
    await page.getByTestId('stream-go-live').click()
    await page.getByTestId('source-scene').check()
    await page.getByTestId('scene-canvas').waitFor()
    await eventually(() => programBlue(page), 20_000).toBe(false)
    await pressGoLive(page)

    // Off (the default): a pick is on air at once, and back.
    expect(await page.getByTestId('studio-mode').isChecked()).toBe(false)
    await tab(page, /^Camera$/).click()
    await eventually(() => programBlue(page), 5_000).toBe(true)
    await tab(page, /^Screen \+ camera$/).click()
    await eventually(() => programBlue(page), 5_000).toBe(false)

    // On: the preview shows the pick, the program stays as it was while live.
    await page.getByTestId('studio-mode').check()
    await page.getByTestId('studio-preview-canvas').waitFor()
    await tab(page, /^Camera$/).click()
    await eventually(async () => {
      const c = await page.evaluate(() => {
        const el = (
          globalThis as unknown as { document: Document }
        ).document.querySelector('[data-testid=studio-preview-canvas]') as HTMLCanvasElement
        const d = el.getContext('2d')!.getImageData(el.width / 2, el.height / 2, 1, 1).data
        return [d[0], d[1], d[2]] as RGB
      })
      return isBlue(c)
    }, 10_000).toBe(true)
    await staysFalse(() => programBlue(page), 1_500)
    expect(await text(page.getByTestId('live-scene'))).toBe('Scene: Screen + camera')
    // The page is no wider than the window: this camera's name is a long file path, as a real camera's
    // can be long, and its device list once widened the page to 1429 px (scrolled sideways).
    expect(
      await page.evaluate(() => {
        const d = (globalThis as unknown as { document: Document }).document
        return d.scrollingElement!.scrollWidth
      })
    ).toBeLessThanOrEqual(1366)
    await shot(page, 'studio-mode', false)

    // The Transition button: the program becomes the preview's scene (a 300 ms dissolve; 3 s bound).
    await page.getByTestId('studio-transition').click()
    await eventually(() => programBlue(page), 3_000).toBe(true)
    await eventually(() => text(page.getByTestId('live-scene'))).toBe('Scene: Camera')

    // The key (Alt+T, chosen above): pick "Screen + camera" into the preview, the program stays, Alt+T sends it.
    await tab(page, /^Screen \+ camera$/).click()
    await staysFalse(async () => !(await programBlue(page)), 1_000)
    await page.locator('body').press('Alt+T')
    await eventually(() => programBlue(page), 3_000).toBe(false)

    // Off again: the program stays on air, and a pick is on air at once.
    await page.getByTestId('studio-mode').uncheck()
    await page.getByTestId('studio-preview-canvas').waitFor({ state: 'detached' })
    expect(await programBlue(page)).toBe(false)
    await tab(page, /^Camera$/).click()
    await eventually(() => programBlue(page), 5_000).toBe(true)
    await stopLive(page)
  }, 240_000)
})

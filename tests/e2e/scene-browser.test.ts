// Browser sources (#34 §4, OBS's browser source: alerts, chat overlays), in Chromium through the web
// shell. The plain web shell cannot render a page for the scene: the source is kept, says it needs the
// desktop app, and draws nothing over the camera. With a page renderer in Node (helpers/browser-painter:
// a solid colour from the address, a failed load for fail.invalid) standing in for Electron's offscreen
// windows, the page's picture is drawn in the source's box of the output, a failed load and a crash are
// worded (Reload paints the page again), and removing the source closes its page.
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { readScenes } from '../../src/shared/scenes-saved'
import { painter } from '../helpers/browser-painter'
import { appForFile, createStream, eventually, nav, sceneColourAt, shot, text } from './app-page'

type Rgb = [number, number, number]
/** Chromium's fake camera: a green picture. */
const isGreen = ([r, g, b]: Rgb): boolean => g > 100 && g > r + 60 && g > b + 60

/** Go live with the Scene source, on the Camera scene (the camera fills the picture). */
async function cameraScene(page: Page, name: string): Promise<void> {
  await createStream(page, name, { profiles: 'none', record: false })
  await page.getByTestId('stream-go-live').click()
  await page.getByTestId('source-scene').check()
  await page.getByTestId('scene-canvas').waitFor()
  await page
    .getByTestId('scene-tab')
    .filter({ hasText: /^Camera$/ })
    .click()
  await eventually(async () => isGreen(await sceneColourAt(page, 0.5, 0.5)), 20_000).toBe(true)
}

/** Add browser source with an address (its page's size and rate OBS's 800x600@30 unless given). */
async function addBrowser(
  page: Page,
  address: string,
  size?: { width: number; height: number; fps: number }
): Promise<void> {
  const form = page.getByTestId('browser-form')
  if (!(await form.isVisible())) await page.getByTestId('add-browser').click()
  await form.getByTestId('browser-url').fill(address)
  if (size) {
    await form.getByTestId('browser-width').fill(String(size.width))
    await form.getByTestId('browser-height').fill(String(size.height))
    await form.getByTestId('browser-fps').fill(String(size.fps))
  }
  await form.getByTestId('browser-save').click()
}

describe('browser source in the web shell', () => {
  const app = appForFile()

  it('refuses a non-web address at its field, keeps a page that needs the desktop app, and the scene still draws', async () => {
    const { page, shell } = app()
    await cameraScene(page, 'Browser source')

    await addBrowser(page, 'javascript:alert(1)')
    await eventually(() => text(page.getByTestId('browser-url-issue'))).toContain(
      'web pages (http or https), not javascript: addresses'
    )
    expect(await page.getByTestId('browser-url').getAttribute('aria-invalid')).toBe('true')
    expect(await page.getByTestId('browser-source').count()).toBe(0)

    // An alert box's address carries its token: the list shows the host only.
    await addBrowser(page, 'overlay.example.com/alert-box/v3/SECRET123')
    const row = page.getByTestId('browser-source')
    await eventually(() => text(row.getByTestId('browser-host'))).toBe('overlay.example.com')
    expect(await text(row)).not.toContain('SECRET123')
    const state = row.getByTestId('browser-state')
    await eventually(() => text(state)).toContain('only in the Onair desktop app')
    await page.getByTestId('box-browser').waitFor()
    await shot(page, 'scene-browser-needs-desktop')
    // Nothing is drawn for it: the camera shows inside its box and around it, and the output runs.
    expect(isGreen(await sceneColourAt(page, 0.5, 0.5))).toBe(true)
    expect(isGreen(await sceneColourAt(page, 0.05, 0.5))).toBe(true)

    // Saved whole (the address in the settings, for the desktop app), and kept after a reload.
    const saved = async () =>
      readScenes((await shell.core.getSettings()).scenes).sources.find((s) => s.kind === 'browser')
    await eventually(saved).toMatchObject({
      url: 'https://overlay.example.com/alert-box/v3/SECRET123',
      width: 800,
      height: 600,
      fps: 30
    })
    await page.reload()
    await nav(page, 'Go live')
    await page.getByTestId('scene-canvas').waitFor()
    await eventually(() => text(page.getByTestId('browser-state'))).toContain(
      'only in the Onair desktop app'
    )
    // The whole address only in its edit field.
    await page.getByTestId('browser-source').getByRole('button', { name: 'Edit' }).click()
    expect(await page.getByTestId('browser-url').inputValue()).toBe(
      'https://overlay.example.com/alert-box/v3/SECRET123'
    )
  })
})

describe('browser source with a page renderer', () => {
  const pages = painter()
  const app = appForFile({ core: { browserPages: pages } })
  const isRed = ([r, g, b]: Rgb): boolean => r > 200 && g < 60 && b < 60

  it('draws the page in its box only, words a failed load and a crash (Reload starts it again), and closes the page when it is removed', async () => {
    const { page } = app()
    await cameraScene(page, 'Painted page')
    // A 400x300 page at 5 fps on a 1280x720 output: its box is x 0.34-0.66, y 0.29-0.71, centred.
    await addBrowser(page, 'https://alerts.example.com/box#ff0000', {
      width: 400,
      height: 300,
      fps: 5
    })
    await eventually(async () =>
      pages.openPages().map((p) => [p.url, p.width, p.height, p.fps])
    ).toEqual([['https://alerts.example.com/box#ff0000', 400, 300, 5]])
    const red = page.getByTestId('browser-source').filter({ hasText: 'alerts.example.com' })
    await eventually(() => text(red.getByTestId('browser-state'))).toBe('Showing the page.')
    await eventually(async () => isRed(await sceneColourAt(page, 0.5, 0.5)), 20_000).toBe(true)
    expect(isRed(await sceneColourAt(page, 0.36, 0.31))).toBe(true)
    for (const [x, y] of [
      [0.32, 0.5],
      [0.68, 0.5],
      [0.5, 0.27],
      [0.5, 0.73],
      [0.05, 0.05]
    ] as const)
      expect(isGreen(await sceneColourAt(page, x, y)), `camera at ${x},${y}`).toBe(true)
    await shot(page, 'scene-browser-painted')

    // An address that does not load: the engine's words, and a way out.
    await addBrowser(page, 'https://fail.invalid/chat')
    const failed = page.getByTestId('browser-source').filter({ hasText: 'fail.invalid' })
    await eventually(() => text(failed.getByTestId('browser-state'))).toContain(
      'The page did not load (ERR_NAME_NOT_RESOLVED, -105)'
    )
    await failed.getByRole('button', { name: 'Try again' }).waitFor()

    // Its page's process gone (Electron's render-process-gone): said with Reload, which starts it again.
    pages.pages[0]!.crash('oom')
    await eventually(() => text(red.getByTestId('browser-state'))).toContain(
      'The page stopped (oom)'
    )
    const beforeReload = pages.pages[0]!.paints
    await red.getByRole('button', { name: 'Reload' }).click()
    await eventually(() => text(red.getByTestId('browser-state'))).toBe('Showing the page.')
    await eventually(async () => pages.pages[0]!.paints > beforeReload + 2).toBe(true)
    await eventually(async () => isRed(await sceneColourAt(page, 0.5, 0.5)), 20_000).toBe(true)

    // Removed: its page is closed (the painter stops) and the camera shows where it was.
    await red.getByRole('button', { name: 'Remove the page from alerts.example.com' }).click()
    await eventually(async () =>
      pages.openPages().filter((p) => p.url.includes('alerts.example.com'))
    ).toEqual([])
    const paints = pages.pages[0]!.paints
    await eventually(async () => isGreen(await sceneColourAt(page, 0.5, 0.5))).toBe(true)
    expect(pages.pages[0]!.paints).toBe(paints)
  })
})

// Browser sources (#34 §4, OBS's browser source: alerts, chat overlays), in Chromium through the web
// shell. The plain web shell cannot render a page for the scene: the source is kept, says it needs the
// desktop app, and draws nothing over the camera. With a page renderer in Node (helpers/browser-painter:
// a solid colour from the address, a failed load for fail.invalid) standing in for Electron's offscreen
// windows, the page's picture is drawn in the source's box of the output, a failed load is worded, and
// removing the source closes its page.
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { readScenes } from '../../src/shared/scenes-saved'
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

/** Add browser source with an address (the page's size and rate left at OBS's 800x600@30). */
async function addBrowser(page: Page, address: string): Promise<void> {
  const form = page.getByTestId('browser-form')
  if (!(await form.isVisible())) await page.getByTestId('add-browser').click()
  await form.getByTestId('browser-url').fill(address)
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

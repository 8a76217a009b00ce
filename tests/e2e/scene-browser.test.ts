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

/**
 * Counts the pictures of a page's size made on the page's own thread (an ImageData, or an ImageBitmap
 * made by createImageBitmap); a worker's are out of this script's sight.
 */
async function countPagePictures(page: Page, width: number, height: number): Promise<void> {
  await page.evaluate(
    ([w, h]) => {
      type Sized = { width: number; height: number }
      const g = globalThis as unknown as {
        ImageData: new (...args: unknown[]) => Sized
        createImageBitmap: (...args: unknown[]) => Promise<Sized>
        pagePictures: number
      }
      g.pagePictures = 0
      const seen = (p: Sized): void => {
        if (p.width === w && p.height === h) g.pagePictures++
      }
      const Base = g.ImageData
      g.ImageData = class extends Base {
        constructor(...args: unknown[]) {
          super(...args)
          seen(this)
        }
      }
      const make = g.createImageBitmap.bind(g)
      g.createImageBitmap = async (...args: unknown[]) => {
        const bitmap = await make(...args)
        seen(bitmap)
        return bitmap
      }
    },
    [width, height] as [number, number]
  )
}
const pagePictures = (page: Page): Promise<number> =>
  page.evaluate(() => (globalThis as unknown as { pagePictures: number }).pagePictures)

/** The page's workers that convert a browser source's frames. */
const browserWorkers = (page: Page): number =>
  page.workers().filter((w) => w.url().includes('browser-worker')).length

describe('browser source frames off the page thread', () => {
  const pages = painter()
  const app = appForFile({ core: { browserPages: pages } })
  // A 400x300 page on a 1280x720 output: its box is x 0.34-0.66, y 0.29-0.71, centred; a point in it
  // away from the fake camera's turning disc (the camera is plain green there).
  const at = [0.37, 0.32] as const
  /** Straight red at alpha 0x80 over what was there: half red, half of the camera. */
  const halfRedOver = (camera: Rgb, [r, g, b]: Rgb): boolean => {
    const a = 0x80 / 255
    const want = [255 * a + camera[0] * (1 - a), camera[1] * (1 - a), camera[2] * (1 - a)]
    return [r, g, b].every((c, i) => Math.abs(c - want[i]!) <= 24)
  }

  it('converts them in a worker: a half-transparent page shows its straight colour over the camera, and the page makes no picture of them', async () => {
    const { page } = app()
    await cameraScene(page, 'Worker page')
    // The centre turned green first; this point follows within a frame or two (CI once read it a frame
    // early), so it is awaited too, and a failure prints its last reading.
    await eventually(() => sceneColourAt(page, ...at)).toSatisfy(isGreen)
    const camera = await sceneColourAt(page, ...at)
    expect(camera).toSatisfy(isGreen)
    await countPagePictures(page, 400, 300)

    await addBrowser(page, 'https://alerts.example.com/half#ff000080', {
      width: 400,
      height: 300,
      fps: 10
    })
    const row = page.getByTestId('browser-source').filter({ hasText: 'alerts.example.com' })
    await eventually(() => text(row.getByTestId('browser-state'))).toBe('Showing the page.')
    // Premultiplied bytes drawn as straight would halve the red (about 64 here, not 128).
    await eventually(
      async () => halfRedOver(camera, await sceneColourAt(page, ...at)),
      20_000
    ).toBe(true)
    expect(await row.getByTestId('browser-state').getAttribute('data-frames-in')).toBe('worker')
    expect(browserWorkers(page)).toBe(1)
    const painted = pages.pages[0]!.paints
    await eventually(async () => pages.pages[0]!.paints > painted + 10).toBe(true)
    await eventually(async () => halfRedOver(camera, await sceneColourAt(page, ...at))).toBe(true)
    expect(await pagePictures(page)).toBe(0)

    // Removed: its worker ends with its page.
    await row.getByRole('button', { name: 'Remove the page from alerts.example.com' }).click()
    await eventually(async () => browserWorkers(page)).toBe(0)
    await eventually(async () => isGreen(await sceneColourAt(page, ...at))).toBe(true)
  })

  it('converts them on the page where the worker cannot load, with the same colours', async () => {
    const { page } = app()
    // A worker script that is not there (a packaging problem).
    await page.route('**/browser-worker*', (r) => r.fulfill({ status: 404, body: '' }))
    try {
      await eventually(async () => isGreen(await sceneColourAt(page, ...at)), 20_000).toBe(true)
      const camera = await sceneColourAt(page, ...at)
      await countPagePictures(page, 400, 300)
      await addBrowser(page, 'https://overlay.example.com/half#ff000080', {
        width: 400,
        height: 300,
        fps: 10
      })
      const row = page.getByTestId('browser-source').filter({ hasText: 'overlay.example.com' })
      await eventually(() => text(row.getByTestId('browser-state'))).toBe('Showing the page.')
      await eventually(
        async () => halfRedOver(camera, await sceneColourAt(page, ...at)),
        20_000
      ).toBe(true)
      await eventually(() => row.getByTestId('browser-state').getAttribute('data-frames-in')).toBe(
        'page'
      )
      expect(await pagePictures(page)).toBeGreaterThan(0)
    } finally {
      await page.unroute('**/browser-worker*')
    }
  })
})

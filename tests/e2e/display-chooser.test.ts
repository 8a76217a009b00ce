// The screen and window chooser that Electron's getDisplayMedia shows (features/live/DisplayChooser.tsx),
// driven in real Chromium through the web shell. Electron's desktopCapturer cannot run here, so the test
// asks the real core's broker directly (as window.ts does) with generated thumbnails; the event, the
// dialog, the keyboard and the chooseDisplaySource answer are all real.
import { crc32, deflateSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DisplaySourceView } from '../../src/shared/contract'
import { eventually, openApp, shot, type App } from './app-page'

/** A small solid PNG (with a white bar, so a thumbnail is plainly a picture) as a data URL. */
function pngDataUrl(w: number, h: number, [r, g, b]: [number, number, number]): string {
  const chunk = (type: string, data: Buffer): Buffer => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data])
    const out = Buffer.alloc(body.length + 8)
    out.writeUInt32BE(data.length, 0)
    body.copy(out, 4)
    out.writeUInt32BE(crc32(body), body.length + 4)
    return out
  }
  const rows = Buffer.alloc((w * 3 + 1) * h)
  for (let y = 0; y < h; y++) {
    const bar = y >= h * 0.75 && y < h * 0.85
    for (let x = 0; x < w; x++) {
      const at = y * (w * 3 + 1) + 1 + x * 3
      rows.set(bar && x > w * 0.1 && x < w * 0.7 ? [255, 255, 255] : [r, g, b], at)
    }
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(w, 0)
  header.writeUInt32BE(h, 4)
  header.set([8, 2, 0, 0, 0], 8) // 8-bit RGB
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0))
  ])
  return `data:image/png;base64,${png.toString('base64')}`
}

const SOURCES: DisplaySourceView[] = [
  {
    id: 'screen:0:0',
    name: 'Screen 1',
    kind: 'screen',
    thumbnail: pngDataUrl(320, 180, [40, 90, 200])
  },
  {
    id: 'screen:1:0',
    name: 'Screen 2',
    kind: 'screen',
    thumbnail: pngDataUrl(320, 200, [30, 140, 80])
  },
  {
    id: 'window:42:0',
    name: 'Slides: the quarterly review (presenter view)',
    kind: 'window',
    thumbnail: pngDataUrl(320, 240, [200, 120, 30]),
    appIcon: pngDataUrl(16, 16, [220, 40, 40])
  },
  { id: 'window:43:0', name: 'Terminal', kind: 'window', thumbnail: '' }
]

let app: App
const chooser = () => app.page.getByTestId('display-chooser')
const focusedSourceId = (): Promise<string | null> =>
  app.page.evaluate(() => document.activeElement?.getAttribute('data-source-id') ?? null)
const focusedText = (): Promise<string> =>
  app.page.evaluate(() => document.activeElement?.textContent?.trim() ?? '')

/** Presses Tab until `done` holds (at most `max` times): the keyboard path a creator would take. */
async function tabUntil(done: () => Promise<boolean>, max = 12): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await done()) return
    await app.page.keyboard.press('Tab')
  }
  expect(await done()).toBe(true)
}

describe('the screen and window chooser (Electron getDisplayMedia)', () => {
  beforeAll(async () => {
    app = await openApp()
    // The chooser subscribes in the same commit that shows the navigation (a layout effect).
    await app.page.getByRole('navigation', { name: 'Main' }).waitFor()
  })
  afterAll(async () => {
    await app?.close()
  })

  it('shows screens and windows with thumbnails, and shares the window picked with the keyboard', async () => {
    const answer = app.shell.core.displayChooser.choose(SOURCES)
    await chooser().waitFor()
    const dialog = app.page.getByRole('dialog', { name: 'Choose what to share' })
    expect(await dialog.isVisible()).toBe(true)
    const screens = dialog.getByRole('region', { name: 'Screens' })
    const windows = dialog.getByRole('region', { name: 'Windows' })
    expect(await screens.getByTestId('display-source').count()).toBe(2)
    expect(await windows.getByTestId('display-source').count()).toBe(2)
    // Every thumbnail and the app icon decoded (the CSP allows data: images), and the one without a
    // picture says so.
    await eventually(() =>
      dialog
        .locator('img')
        .evaluateAll((imgs) =>
          imgs.map((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth)
        )
    ).toEqual([320, 320, 320, 16])
    expect(await windows.getByText('No preview').isVisible()).toBe(true)

    // Focus starts on the first source; Share waits for a choice.
    expect(await focusedSourceId()).toBe('screen:0:0')
    expect(await dialog.getByTestId('chooser-share').isDisabled()).toBe(true)
    await tabUntil(async () => (await focusedSourceId()) === 'window:42:0')
    await app.page.keyboard.press('Space')
    const slides = dialog.locator('[data-source-id="window:42:0"]')
    expect(await slides.getAttribute('aria-pressed')).toBe('true')
    expect(await dialog.locator('[aria-pressed=true]').count()).toBe(1)
    await tabUntil(async () => (await focusedText()) === 'Share')
    await shot(app.page, 'display-chooser', false) // picked (tinted, checked) and focused differ
    await app.page.keyboard.press('Enter')
    await expect(answer).resolves.toBe('window:42:0')
    await chooser().waitFor({ state: 'hidden' })
    expect(app.calls).toContain('chooseDisplaySource')
  })

  it('Escape cancels: the broker resolves null and the dialog closes', async () => {
    const answer = app.shell.core.displayChooser.choose(SOURCES)
    await chooser().waitFor()
    await app.page.keyboard.press('Escape')
    await expect(answer).resolves.toBeNull()
    await chooser().waitFor({ state: 'hidden' })
  })

  it('a newer question replaces the open one', async () => {
    const first = app.shell.core.displayChooser.choose(SOURCES)
    await chooser().waitFor()
    const second = app.shell.core.displayChooser.choose(SOURCES.slice(0, 1))
    await expect(first).resolves.toBeNull()
    await eventually(() => chooser().getByTestId('display-source').count()).toBe(1)
    await chooser().getByTestId('display-source').click()
    await chooser().getByTestId('chooser-share').click()
    await expect(second).resolves.toBe('screen:0:0')
    await chooser().waitFor({ state: 'hidden' })
  })

  it('closes by itself when the question expires (main has answered "cancelled" by then)', async () => {
    // Straight on the core's event hub: the broker's own 2-minute limit is proven in the unit test.
    app.shell.core.events.emit('display:choose', {
      requestId: 'expiring',
      sources: SOURCES,
      expiresAt: Date.now() + 1_500
    })
    await chooser().waitFor()
    await chooser().waitFor({ state: 'hidden', timeout: 10_000 })
  })
})

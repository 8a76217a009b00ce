// Keyboard and screen readers: an axe-core scan of every screen finds no serious or critical
// violation; a new screen moves focus to its heading; the player dialog traps focus, closes on Esc
// (even when the video has focus) and gives focus back to the button that opened it.
import AxeBuilder from '@axe-core/playwright'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import {
  createStream,
  eventually,
  goLive,
  nav,
  numberAbove,
  appForFile,
  stopLive,
  type Probe
} from './app-page'

const app = appForFile()

/** Every serious or critical violation found, by screen: all of them are reported at once. */
const found: string[] = []

async function scan(page: Page, screen: string): Promise<void> {
  const r = await new AxeBuilder({ page }).analyze()
  for (const v of r.violations)
    if (v.impact === 'serious' || v.impact === 'critical')
      found.push(
        `${screen}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`
      )
}

const focusedText = (page: Page): Promise<string> =>
  page.evaluate(() => {
    const el = (
      globalThis as unknown as {
        document: { activeElement: { textContent: string | null; tagName: string } | null }
      }
    ).document.activeElement
    return `${el?.tagName ?? ''}:${el?.textContent?.trim() ?? ''}`
  })

describe('keyboard and screen readers', () => {
  it('every screen: no serious or critical axe violation, focus on the new heading', async () => {
    const { page } = app()
    // A new user's first screen: Connection with the first-run guide's invitation on it, under the
    // screen's h1 (a screen reader's heading list starts with the screen's name).
    await page.getByTestId('setup-invite').waitFor()
    expect(await page.locator('main h1, main h2').first().textContent()).toBe('Connection')
    await scan(page, 'Connection')
    await createStream(page, 'Accessible', { profiles: 'recommended', record: true })
    await scan(page, 'Stream page')
    for (const [label, heading] of [
      ['Streams', 'Streams'],
      ['Go live', 'Go live'],
      ['Sessions', 'Sessions'],
      ['Keys', 'Keys'],
      ['About', 'About Onair'],
      ['Connection', 'Connection']
    ] as const) {
      await nav(page, label)
      await eventually(() => focusedText(page)).toBe(`H1:${heading}`)
      await scan(page, label)
    }
    await nav(page, 'Streams')
    await page.getByTestId('new-stream').click()
    await scan(page, 'New stream form')
    expect(found, found.join('\n')).toEqual([])
  })

  it('live: the banner and health strip pass; the player dialog traps focus and Esc closes it', async () => {
    const { page } = app()
    await nav(page, 'Streams')
    await page.getByRole('button', { name: 'Accessible', exact: true }).click()
    await goLive(page, 'camera')
    await scan(page, 'Go live while live')
    await page.waitForFunction(numberAbove, ['[data-testid=health-kbps]', 'text', 0] as Probe)
    await stopLive(page)
    await nav(page, 'Sessions')
    const row = page.locator('[data-testid=session-row][data-status=ready]').first()
    await row.waitFor({ timeout: 120_000 })
    const play = row.getByTestId('play-session')
    await play.focus()
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('dialog')
    await dialog.waitFor()
    await scan(page, 'Player')
    expect(found, found.join('\n')).toEqual([])
    // Tab never leaves the dialog.
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab')
      const inside = await dialog.evaluate((d) => {
        const doc = (d as unknown as { ownerDocument: { activeElement: unknown } }).ownerDocument
        return (d as unknown as { contains(x: unknown): boolean }).contains(doc.activeElement)
      })
      expect(inside, `focus left the dialog after ${i + 1} Tab`).toBe(true)
    }
    // Esc closes it even when the video element has focus, and focus returns to Play.
    await page.getByTestId('player-video').focus()
    await page.keyboard.press('Escape')
    await eventually(() => dialog.count()).toBe(0)
    await eventually(() =>
      play.evaluate(
        (b) =>
          b ===
          (b as unknown as { ownerDocument: { activeElement: unknown } }).ownerDocument
            .activeElement
      )
    ).toBe(true)
  })
})

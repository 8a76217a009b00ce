// Capture refused by the browser (no auto-accepting fake prompt: Chromium answers NotAllowedError) is
// named with what to do and a way to try again; and the app is usable from the keyboard:
// navigation, the create form and its validation reached with Tab/Enter/Space only.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { chromium, type Browser, type Page } from 'playwright-core'
import { CHROMIUM_FLAGS, chromiumPath } from '../helpers/browser'
import { startWebShell, type TestWebShell } from '../helpers/web-shell'
import { eventually, shot, text, waitLocalReady } from './app-page'

let shell: TestWebShell
let browser: Browser
let page: Page

describe('permissions and keyboard', () => {
  beforeAll(async () => {
    shell = await startWebShell()
    // Same Chromium and fake devices, but no fake permission UI: headless Chromium then refuses.
    browser = await chromium.launch({
      executablePath: chromiumPath(),
      headless: true,
      args: CHROMIUM_FLAGS.filter((f) => f !== '--use-fake-ui-for-media-stream')
    })
    page = await browser.newPage({ viewport: { width: 1280, height: 860 } })
    await page.goto(shell.url)
    await waitLocalReady(page)
  })
  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail' && page) await shot(page, `fail-${task.name.slice(0, 40)}`)
  })
  afterAll(async () => {
    await browser?.close()
    await shell?.stop()
  })

  it('a refused camera is named (NotAllowedError) with a way out', async () => {
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('button', { name: 'Go live' })
      .click()
    const error = page.getByTestId('source-error')
    await eventually(() => text(error), 30_000).toContain(
      'Permission to use the camera or microphone was denied'
    )
    await eventually(() => text(error)).toContain('Allow camera and microphone access')
    expect(await error.getByRole('button', { name: 'Try again' }).isVisible()).toBe(true)
    await shot(page, 'golive-permission-denied')
  })

  it('is usable from the keyboard: Tab to Streams, open the form, submit it empty, read the rule', async () => {
    await page.goto(new URL('/', shell.url).toString())
    await page.getByRole('heading', { name: 'Connection', level: 1 }).waitFor()
    const focused = (): Promise<string> =>
      page.evaluate(() => {
        const el = (
          globalThis as unknown as { document: { activeElement: { textContent: string } | null } }
        ).document.activeElement
        return el?.textContent?.trim() ?? ''
      })
    let found = false
    for (let i = 0; i < 10 && !found; i++) {
      await page.keyboard.press('Tab')
      found = (await focused()) === 'Streams'
    }
    expect(found).toBe(true)
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Streams', level: 1 }).waitFor()
    for (let i = 0; i < 20 && (await focused()) !== 'New stream'; i++)
      await page.keyboard.press('Tab')
    await page.keyboard.press('Enter')
    await page.getByTestId('stream-name').waitFor()
    for (let i = 0; i < 40 && (await focused()) !== 'Create stream'; i++)
      await page.keyboard.press('Tab')
    expect(await focused()).toBe('Create stream')
    await page.keyboard.press('Space')
    await eventually(() => text(page.getByTestId('form-issues'))).toContain('name is required')
  })
})

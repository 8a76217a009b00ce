// The page knows when Onair is gone: within 3 s of the web shell's socket closing (Onair quit) the page
// says Onair is not running and shows no live state; it comes back by itself when Onair is back on the
// same address.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../helpers/browser'
import { startWebShell, type TestWebShell } from '../helpers/web-shell'
import { createStream, goLive, shot, waitLocalReady } from './app-page'

const dir = mkdtempSync(join(tmpdir(), 'onair-gone-'))
let shell: TestWebShell | undefined
let browser: Browser | undefined
afterAll(async () => {
  await browser?.close()
  await shell?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('when Onair quits', () => {
  it('the page says so within 3 s, shows no live state, and recovers when Onair is back', async () => {
    shell = await startWebShell({ appDataDir: dir, core: { broadcast: { preset: 'ultrafast' } } })
    browser = await launchChromium()
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } })
    await page.goto(shell.url)
    await waitLocalReady(page)
    await createStream(page, 'Gone test', { profiles: 'none', record: false })
    await goLive(page, 'test-pattern')
    expect(await page.getByTestId('live-banner').getAttribute('data-state')).toBe('live')

    const { origin, session } = shell
    const closedAt = Date.now()
    await shell.stop()
    shell = undefined
    await page.getByTestId('app-gone').waitFor({ timeout: 3000 })
    expect(Date.now() - closedAt).toBeLessThan(3000)
    expect(await page.getByTestId('live-banner').count()).toBe(0)
    expect(await page.getByTestId('connection-badge').count()).toBe(0)
    expect(await page.textContent('body')).not.toMatch(/Live|ready/)
    await shot(page, 'app-gone')

    // Onair is back on the same address, with the same session: the page finds it on its own.
    shell = await startWebShell({
      appDataDir: dir,
      port: Number(new URL(origin).port),
      session
    })
    await page.getByTestId('connection-badge').waitFor({ timeout: 30_000 })
    await waitLocalReady(page)
    expect(await page.getByTestId('app-gone').count()).toBe(0)
  })
})

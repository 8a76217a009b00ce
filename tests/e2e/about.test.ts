// The foundation's end-to-end check: the built renderer in real Chromium, through the web shell, shows
// the ffmpeg that the core found (path and version), the same version ffmpeg itself reports.
import { execFileSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { resolveFfmpeg } from '../../src/node/ffmpeg/locate'
import { launchChromium } from '../helpers/browser'
import { startWebShell, type TestWebShell } from '../helpers/web-shell'

let shell: TestWebShell
let browser: Browser

beforeAll(async () => {
  shell = await startWebShell()
  browser = await launchChromium()
})

afterAll(async () => {
  await browser?.close()
  await shell?.stop()
})

describe('About, through the web shell', () => {
  it('shows the ffmpeg version the core reported, and window.onair is the contract', async () => {
    const page = await browser.newPage()
    await page.goto(shell.url)
    // The token left the address bar: it was exchanged for a cookie.
    expect(page.url()).not.toContain('token=')
    await page.getByRole('button', { name: 'About' }).click()
    const ffmpeg = page.getByTestId('about-ffmpeg')
    await expect.poll(() => ffmpeg.textContent(), { timeout: 20_000 }).toBeTruthy()
    const expected = /ffmpeg version (\S+)/.exec(
      execFileSync(resolveFfmpeg().path, ['-version']).toString()
    )?.[1]
    expect(expected).toBeTruthy()
    const text = (await ffmpeg.textContent()) ?? ''
    expect(text).toContain(expected as string)
    expect(text).toContain(resolveFfmpeg().path)
    await expect.poll(() => page.getByText('Web shell').count()).toBeGreaterThan(0)
    const keys = await page.evaluate(() => Object.keys(window.onair).sort())
    const { CALL_NAMES } = await import('../../src/shared/contract')
    expect(keys).toEqual([...CALL_NAMES, 'on'].sort())
    await page.screenshot({ path: 'artifacts/screenshots/about.png', fullPage: true })
  })
})

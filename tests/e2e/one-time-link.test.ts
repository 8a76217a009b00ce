// The printed link opens Onair once. A second browser (no cookie) that opens the same link gets a page
// saying how to open Onair, and cannot call anything; the first browser keeps working.
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../helpers/browser'
import { startWebShell, type TestWebShell } from '../helpers/web-shell'
import { nav, shot, waitLocalReady } from './app-page'

let shell: TestWebShell
let browser: Browser

describe('the one-time link', () => {
  beforeAll(async () => {
    shell = await startWebShell()
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    await shell?.stop()
  })

  it('works once; a second, cookie-less browser is told how to open Onair', async () => {
    const first = await (await browser.newContext()).newPage()
    await first.goto(shell.url)
    await waitLocalReady(first)
    expect(new URL(first.url()).searchParams.get('token')).toBeNull()

    const second = await (await browser.newContext()).newPage()
    const res = await second.goto(shell.url)
    expect(res?.status()).toBe(403)
    await second.getByRole('heading', { name: 'This Onair link was already used' }).waitFor()
    expect(await second.textContent('body')).toContain('npm start')
    await shot(second, 'one-time-link-used')
    // Nothing of the app works for it (its cookie jar has no session).
    const call = await second.request.post(`${shell.origin}/rpc/appInfo`, {
      headers: { 'content-type': 'application/json', origin: shell.origin },
      data: { args: [] }
    })
    expect(call.status()).toBe(401)
    expect((await second.request.get(shell.origin)).status()).toBe(401)

    // The first browser is untouched, reloads included.
    await first.reload()
    await nav(first, 'About')
    await first.getByTestId('about-ffmpeg').waitFor()
  })
})

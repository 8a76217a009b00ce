// When the local studio's remembered ingest port is taken at launch, the Connection screen says
// plainly that the ingest address changed and shows the new one.
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../helpers/browser'
import { startWebShell } from '../helpers/web-shell'
import { nav, shot, waitLocalReady } from './app-page'

const dir = mkdtempSync(join(tmpdir(), 'onair-moved-'))
let blocker: Server | undefined
let browser: Browser | undefined
afterAll(async () => {
  await browser?.close()
  if (blocker) await new Promise((r) => blocker!.close(r))
  rmSync(dir, { recursive: true, force: true })
})

describe('a taken ingest port', () => {
  it('is named on the Connection screen with the new address', async () => {
    const first = await startWebShell({ appDataDir: dir })
    await first.core.getIngest()
    const was = (await first.core.connectionStatus()).local.rtmp!
    await first.stop()
    // Another program takes the remembered port while Onair is closed.
    blocker = createServer()
    await new Promise<void>((r) => blocker!.listen(Number(new URL(was).port), '127.0.0.1', r))

    const shell = await startWebShell({ appDataDir: dir })
    try {
      browser = await launchChromium()
      const page = await browser.newPage()
      await page.goto(shell.url)
      await waitLocalReady(page)
      await nav(page, 'Connection')
      const now = (await shell.core.connectionStatus()).local.rtmp!
      expect(now).not.toBe(was)
      const notice = page.getByTestId('local-moved')
      await notice.waitFor()
      const text = (await notice.textContent()) ?? ''
      expect(text).toContain('The ingest address changed')
      expect(text).toContain(was)
      expect(text).toContain(now)
      await shot(page, 'connection-ingest-moved')
    } finally {
      await shell.stop()
    }
  })
})

// The desktop shell itself, when Electron can run here: launch the built app with Playwright's _electron
// and read the About panel. Where Electron's binary is missing (as on CI machines, which cannot download
// it) or there is no display, the test is reported as skipped with that reason.
import { describe, expect, it } from 'vitest'
import { _electron as electron } from 'playwright-core'
import { resolve } from 'node:path'
// @ts-expect-error plain .mjs helper shared with scripts/start.mjs
import { electronBinary } from '../../scripts/electron-binary.mjs'

const found = electronBinary() as { ok: boolean; path?: string; reason?: string }

describe('Electron shell', () => {
  it.skipIf(!found.ok)(
    `launches the built app and shows Onair${found.ok ? '' : ` (skipped: ${found.reason})`}`,
    async () => {
      const app = await electron.launch({
        executablePath: found.path,
        args: [resolve(__dirname, '../..')],
        env: { ...process.env, ONAIR_APP_DATA: resolve(__dirname, '../../artifacts/electron-data') }
      })
      try {
        const page = await app.firstWindow()
        await expect.poll(() => page.title()).toMatch(/Onair/)
        const exposed = await page.evaluate(() => Object.keys(window.onair).length)
        expect(exposed).toBeGreaterThan(20)
        const hasNode = await page.evaluate(
          () => typeof (globalThis as { require?: unknown }).require
        )
        expect(hasNode).toBe('undefined')
      } finally {
        await app.close()
      }
    }
  )
})

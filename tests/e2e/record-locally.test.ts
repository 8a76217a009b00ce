// Record on this computer, as the creator sees it: the switch on Go live (on by default, with the cost
// and the folder), a broadcast that leaves an MP4 in that folder, and the session's "On this computer"
// row. The web shell cannot open the OS's file manager or player: it shows the path with a copy button
// (Electron's shell.showItemInFolder / openPath cannot run here; the core's hook is what they plug into).
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  appForFile,
  createStream,
  eventually,
  localCopyShown,
  pressGoLive,
  liveFor,
  savedLocalCopy,
  shot,
  stopLive,
  text
} from './app-page'

const app = appForFile()

describe('Record on this computer', () => {
  it('is on by default with its cost and folder, and the session shows the copy', async () => {
    const { page, shell } = app()
    await createStream(page, 'Local copy', { profiles: 'none', record: false })
    await page.getByTestId('stream-go-live').click()
    await page.getByTestId('source-test-pattern').check()

    const sw = page.getByTestId('record-locally')
    expect(await sw.isChecked()).toBe(true)
    // 720p30 at 2.5 Mbit/s + 128 kbit/s: (2628 kbit/s x 3600 s) / 8 = 1.18 GB.
    expect(await text(page.getByTestId('record-cost'))).toContain(
      'about 1.2 GB an hour, in Videos/Onair'
    )
    const folder = join(shell.appDataDir, 'Videos', 'Onair')
    await eventually(() => text(page.getByTestId('record-folder'))).toContain(folder)
    await page.getByTestId('record-switch').scrollIntoViewIfNeeded()
    await shot(page, 'golive-record-switch')
    await page.getByTestId('record-switch').screenshot({
      path: join(__dirname, '../../artifacts/screenshots/golive-record-switch-close.png')
    })

    // A lower bitrate costs less, and says so at once.
    await page.getByTestId('output-bitrate').fill('1000')
    await eventually(() => text(page.getByTestId('record-cost'))).toContain('about 508 MB an hour')
    await page.getByTestId('output-bitrate').fill('2500')

    await pressGoLive(page)
    await liveFor(page, 3)
    await stopLive(page)
    const saved = await savedLocalCopy(shell)
    expect(saved.file.startsWith(folder)).toBe(true)
    expect(saved.file).toMatch(/Local copy .*\.mp4$/)
    expect(existsSync(saved.file)).toBe(true)
    await localCopyShown(page, saved.file, 'sessions-on-this-computer')
  })
})

// A copy on this computer that Onair's death cut off (issue 32 §4), as the creator sees it on the next
// start: the app (its main process, tests/fixtures/app/live-app.ts) is killed with SIGKILL while live on
// the camera path with Record on this computer; the next start on the same data finishes the copy,
// and the session's "On this computer" row says when it was cut off and how far it plays.
import { execFileSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, describe, expect, it } from 'vitest'
import type { LocalRecordingView } from '../../src/shared/contract'
import { launchChromium } from '../helpers/browser'
import { startWebShell, type TestWebShell } from '../helpers/web-shell'
import { waitUntil } from '../helpers/wait-until'
import { makeCameraFile, sleep, startLiveApp } from '../integration/core/live-helpers'
import { eventually, nav, shot, text, waitLocalReady } from './app-page'

const dir = mkdtempSync(join(tmpdir(), 'onair-cut-copy-'))
let app: ChildProcess | undefined
let shell: TestWebShell | undefined
let browser: Browser | undefined
afterAll(async () => {
  if (app && app.exitCode === null && app.signalCode === null) app.kill('SIGKILL')
  await browser?.close()
  await shell?.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** Every process whose command line names this folder (the killed app's studio and ffmpegs). */
const processesOf = (folder: string): string[] =>
  execFileSync('ps', ['-eo', 'args'])
    .toString()
    .split('\n')
    .filter((l) => l.includes(folder))

describe('a copy on this computer cut off by a crash', () => {
  it('is finished on the next start, and its row says when it was cut and how far it plays', async () => {
    const appData = join(dir, 'app data')
    // Where the web shell's core writes copies (tests/helpers/web-shell.ts): the same folder.
    const videos = join(appData, 'Videos', 'Onair')
    const keychainService = `onair-cut-copy-${process.pid}`
    const started = startLiveApp(['--record', makeCameraFile(dir, 20)], {
      ...process.env,
      ONAIR_APP_DATA: appData,
      ONAIR_RECORDINGS_DIR: videos,
      ONAIR_KEYCHAIN_SERVICE: keychainService
    })
    app = started.app
    await started.live
    expect(started.out()).toContain('LIVE ')
    const index = (): LocalRecordingView[] =>
      JSON.parse(
        readFileSync(join(appData, 'local-recordings.json'), 'utf8')
      ) as LocalRecordingView[]
    const rec = index()[0]!
    expect(rec.state).toBe('recording')
    // Six seconds of broadcast is the scenario itself, counted from the start of the file.
    await sleep(Math.max(0, rec.startedAt + 6000 - Date.now()))
    app.kill('SIGKILL')
    await waitUntil(() => app!.signalCode !== null, 'the app to die', 10_000)
    await waitUntil(() => processesOf(appData).length === 0, 'the app’s children to end', 15_000)

    // The next start, on the same data: the web shell's core, and the page in Chromium.
    shell = await startWebShell({ appDataDir: appData, core: { keychainService } })
    browser = await launchChromium()
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } })
    await page.goto(shell.url)
    await waitLocalReady(page)
    await nav(page, 'Sessions')

    const finished = await waitUntil(
      () => index()[0]?.durationSec !== undefined,
      'the copy to be finished',
      60_000
    ).then(() => index()[0]!)
    expect(finished.file).toMatch(/\.mp4$/)
    expect(finished.cutAt).toBeDefined()
    // The words, in the page's own clock and locale: "interrupted at 21:14, plays to 0:05".
    const at = await page.evaluate(
      (ms) => new Date(ms).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' }),
      finished.cutAt!
    )
    const s = Math.floor(finished.durationSec!)
    const plays = `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`
    expect(s).toBeGreaterThanOrEqual(4)
    const row = page.getByTestId('session-row').filter({ has: page.getByTestId('local-copy') })
    await row.first().waitFor({ timeout: 60_000 })
    const note = row.first().getByTestId('local-copy-note')
    await eventually(() => text(note), 30_000).toBe(`interrupted at ${at}, plays to ${plays}`)
    const play = row.first().getByTestId('local-copy-play')
    expect(await play.isEnabled()).toBe(true)
    // The row at its widest: 15 s after the studio last heard from the killed app the session is no
    // longer live, and the row adds the copy's upload button (Publish, or Upload copy when the
    // service's recording falls short). The words give way; every button stays in the row, which is
    // one line high.
    await eventually(() => row.first().getAttribute('data-status'), 40_000).not.toBe('live')
    const upload = row.first().getByTestId('upload-copy').locator('button')
    await upload.waitFor({ timeout: 10_000 })
    const rowBox = (await row.first().boundingBox())!
    const buttons = await row.first().locator('button').all()
    expect(buttons.length).toBeGreaterThanOrEqual(4)
    for (const b of buttons) {
      const box = (await b.boundingBox())!
      expect(box.x + box.width, await b.innerText()).toBeLessThanOrEqual(rowBox.x + rowBox.width)
      expect(box.y + box.height).toBeLessThanOrEqual(rowBox.y + rowBox.height)
    }
    expect(await row.first().getByTestId('local-copy').getAttribute('title')).toContain(
      `interrupted at ${at}, plays to ${plays}`
    )
    await row.first().screenshot({ path: '/tmp/onair-interrupted-row.png' })
    await shot(page, 'sessions-interrupted-copy')
  })
})

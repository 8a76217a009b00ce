// The README's `npm start`, as a new user runs it: no FFMPEG_PATH, no FFMPEG_BIN, ffmpeg-static without
// its binary (it cannot download here), ffmpeg installed on PATH. The launcher says Electron cannot
// run here, serves the app to the browser, and the local studio gets ready with the PATH ffmpeg.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../helpers/browser'
import { waitUntil } from '../helpers/wait-until'
import { nav, shot, waitLocalReady } from './app-page'

const ROOT = resolve(__dirname, '../..')
let child: ChildProcess | undefined
let browser: Browser | undefined
let dataDir = ''

afterAll(async () => {
  await browser?.close()
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child!.once('exit', r))
    child.kill('SIGTERM')
    await exited
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
})

describe('first run with nothing but the README', () => {
  it('npm start gets a ready local studio with no ffmpeg variable set', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'onair-first-run-'))
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ONAIR_SKIP_BUILD: '1', // npm test built it already
      ONAIR_APP_DATA: join(dataDir, 'Onair Studio', 'Ana López'),
      ONAIR_KEYCHAIN_SERVICE: `onair-first-run-${process.pid}`
    }
    for (const k of ['FFMPEG_PATH', 'FFMPEG_BIN', 'FFPROBE_PATH']) delete env[k]
    child = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs')], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let out = ''
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d))
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d))
    await waitUntil(() => /ONAIR_WEB_READY (.+)/.test(out), 'the web shell to be ready', 60_000)
    const { url } = JSON.parse(/ONAIR_WEB_READY (.+)/.exec(out)![1]!) as { url: string }
    expect(out).not.toMatch(/could not start/i)

    browser = await launchChromium()
    const page = await browser.newPage()
    await page.goto(url)
    await waitLocalReady(page)
    await nav(page, 'About')
    const about = page.getByTestId('about-ffmpeg')
    await about.waitFor()
    // ffmpeg-static has no binary here, so the one on PATH is the one in use, and About says so.
    expect(await about.textContent()).toMatch(/\(PATH\)/)
    await shot(page, 'first-run-about')
  })
})

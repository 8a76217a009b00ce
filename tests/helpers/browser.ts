// Real Chromium for the e2e tests: CHROMIUM_PATH, /usr/bin/chromium, or Playwright's own browser if one is
// installed. The fake-device flags give a synthetic camera and microphone; permission prompts auto-accept.
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser } from 'playwright-core'

export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.CHROMIUM_PATH?.trim()) return env.CHROMIUM_PATH.trim()
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium'
  return undefined // Playwright's own download, when `npx playwright install` could run
}

export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--use-fake-device-for-media-stream',
  '--use-fake-ui-for-media-stream',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--autoplay-policy=no-user-gesture-required'
]

/**
 * extraArgs: e.g. a fake camera from a file (helpers/fake-camera.ts). executablePath: another launcher
 * (e.g. a script that starts chromiumPath() inside a network namespace).
 */
export async function launchChromium(
  extraArgs: readonly string[] = [],
  opts: { executablePath?: string } = {}
): Promise<Browser> {
  const executablePath = opts.executablePath ?? chromiumPath()
  try {
    return await chromium.launch({
      executablePath,
      headless: true,
      args: [...CHROMIUM_FLAGS, ...extraArgs]
    })
  } catch (e) {
    throw new Error(
      `Chromium did not start (${executablePath ?? "Playwright's own browser"}): ${String(e).split('\n')[0]}. ` +
        'Install it with scripts/install-system-deps.sh or set CHROMIUM_PATH.',
      { cause: e }
    )
  }
}

/**
 * Chromium that a bench can leave alone while it measures: started with a DevTools port, driven by
 * Playwright over CDP, and detached (the page keeps running) for a span. Playwright enables DevTools'
 * Network domain on every page, and Chromium then copies each WebSocket message and each inline
 * request body into a base64 event for it: a CPU figure taken with Playwright attached counts that
 * too, which the app never pays. `attach()` connects (again); `detach()` disconnects without closing
 * anything; `close()` ends Chromium. The page to open is given at launch (a web shell's one-time URL).
 */
export interface DetachableChromium {
  attach(): Promise<Browser>
  detach(): Promise<void>
  close(): Promise<void>
  /** The page's console and Chromium's own log lines so far (the last 64 KiB), read while detached too. */
  log(): string
}

/** Chromium's stderr kept for `log()`, at most this much. */
const LOG_KEPT = 64 * 1024

export async function launchDetachableChromium(
  url: string,
  extraArgs: readonly string[] = []
): Promise<DetachableChromium> {
  const executablePath = chromiumPath()
  if (!executablePath) throw new Error('Chromium not found: set CHROMIUM_PATH.')
  // A DevTools port needs a profile of its own; 0 = any free port, printed on stderr.
  const profile = mkdtempSync(join(tmpdir(), 'onair-chromium-'))
  const child = spawn(
    executablePath,
    [
      '--headless=new',
      ...CHROMIUM_FLAGS,
      ...extraArgs,
      // The page's console to stderr ("CONSOLE" lines), readable with no DevTools client attached.
      '--enable-logging=stderr',
      '--remote-debugging-port=0',
      '--remote-debugging-address=127.0.0.1',
      `--user-data-dir=${profile}`,
      url
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] }
  )
  let err = ''
  const endpoint = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Chromium gave no DevTools port: ${err}`)), 30_000)
    child.stderr.on('data', (d: Buffer) => {
      err = (err + d.toString()).slice(-LOG_KEPT)
      const m = /DevTools listening on (ws:\S+)/.exec(err)
      if (m) {
        clearTimeout(timer)
        resolve(m[1] as string)
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`Chromium exited (${code}) before its DevTools port: ${err}`))
    })
  })
  let browser: Browser | undefined
  const detach = async (): Promise<void> => {
    const b = browser
    browser = undefined
    // Connected over CDP, close() only disconnects: Chromium and its page go on.
    await b?.close()
  }
  return {
    log: () => err,
    attach: async () => (browser ??= await chromium.connectOverCDP(endpoint)),
    detach,
    close: async () => {
      await detach()
      if (child.exitCode === null && child.signalCode === null) {
        const gone = new Promise((r) => child.once('exit', r))
        child.kill()
        await gone
      }
      // Chromium's helpers may still be writing to the profile as it goes: retry, then leave it to the
      // system's temporary folder.
      try {
        rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 })
      } catch {
        // Left behind.
      }
    }
  }
}

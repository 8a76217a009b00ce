// Real Chromium for the e2e tests: CHROMIUM_PATH, /usr/bin/chromium, or Playwright's own browser if one is
// installed. The fake-device flags give a synthetic camera and microphone; permission prompts auto-accept.
import { existsSync } from 'node:fs'
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

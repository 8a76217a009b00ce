// Starts the real core and the real web shell in this process, serving the built renderer (out/renderer),
// with a fresh app-data folder (so the local studio starts from nothing, as on a first run).
import { mkdtempSync, rmSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createCore, type Core, type CoreOptions } from '../../src/main/core/core'
import { startWebShell as start } from '../../src/main/web/web-shell'

export const RENDERER_DIR = resolve(__dirname, '../../out/renderer')

export interface TestWebShell {
  url: string
  origin: string
  token: string
  session: string
  core: Core
  appDataDir: string
  stop(): Promise<void>
}

export async function startWebShell(
  opts: {
    appDataDir?: string
    core?: Partial<CoreOptions>
    /** A restarted shell: the same port and session secret as an earlier one. */
    port?: number
    session?: string
  } = {}
): Promise<TestWebShell> {
  if (!existsSync(join(RENDERER_DIR, 'index.html'))) {
    throw new Error(
      'out/renderer is missing: run `npm run build` before the e2e tests (npm test does).'
    )
  }
  const appDataDir = opts.appDataDir ?? mkdtempSync(join(tmpdir(), 'onair-e2e-'))
  const core = await createCore({
    appDataDir,
    shell: 'web',
    appVersion: '0.0.0-test',
    // Record on this computer (on by default in Go live) writes beside the test's data, never in ~/Videos.
    recordingsDir: join(appDataDir, 'Videos', 'Onair'),
    ...opts.core
  })
  const shell = await start({
    core,
    staticDir: RENDERER_DIR,
    ...(opts.port ? { port: opts.port } : {}),
    ...(opts.session ? { session: opts.session } : {})
  })
  return {
    url: shell.url,
    origin: shell.origin,
    token: shell.token,
    session: shell.session,
    core,
    appDataDir,
    stop: async () => {
      await shell.close()
      await core.shutdown()
      if (!opts.appDataDir) rmSync(appDataDir, { recursive: true, force: true })
    }
  }
}

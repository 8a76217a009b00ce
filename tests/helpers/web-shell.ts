// Starts the real core and the real web shell in this process, serving the built renderer (out/renderer),
// with a fresh app-data folder (so the local studio starts from nothing, as on a first run). The local
// studio and Onair's encoder run as the build made them (out/main/studio.js, encoder.js under plain
// node), as the packaged app runs them: the e2e layer builds first anyway, and a studio start then
// skips tsx compiling its TypeScript (measured: ready in 2.1 s instead of 3.4, 1.3 CPU-s instead of 2.1).
// The integration layer still runs them from source (core-local-studio.test.ts and others). As both
// real shells do (web-main.ts, electron/index.ts), the studio starts with the core (warmLocalStudio),
// while Chromium starts, rather than at the page's first load.
import { mkdtempSync, rmSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { bundledCommand } from '../../src/main/core/child-command'
import { commandOf, descendantsOf } from './proc'
import { createCore, type Core, type CoreOptions } from '../../src/main/core/core'
import { startWebShell as start } from '../../src/main/web/web-shell'

export const RENDERER_DIR = resolve(__dirname, '../../out/renderer')
const MAIN_DIR = resolve(__dirname, '../../out/main')
/** The built local studio's script: its process's command line names it (tests find the studio by it). */
export const STUDIO_SCRIPT = join(MAIN_DIR, 'studio.js')
const ENCODER_SCRIPT = join(MAIN_DIR, 'encoder.js')

/** The local studio this test process started (the core runs in-process): found by its script. */
export const studioPid = (): number | undefined =>
  descendantsOf(process.pid).find((p) => commandOf(p).includes(STUDIO_SCRIPT))

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
  for (const script of [STUDIO_SCRIPT, ENCODER_SCRIPT])
    if (!existsSync(script))
      throw new Error(`${script} is missing: run \`npm run build\` before the e2e tests.`)
  const appDataDir = opts.appDataDir ?? mkdtempSync(join(tmpdir(), 'onair-e2e-'))
  const core = await createCore({
    appDataDir,
    shell: 'web',
    appVersion: '0.0.0-test',
    // Record on this computer (on by default in Go live) writes beside the test's data, never in ~/Videos.
    recordingsDir: join(appDataDir, 'Videos', 'Onair'),
    warmLocalStudio: true,
    studioCommand: bundledCommand(STUDIO_SCRIPT),
    encoderCommand: bundledCommand(ENCODER_SCRIPT),
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

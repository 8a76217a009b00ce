// `npm run start:web` (and the fallback of `npm start`): the core and the web shell in plain Node.
import { join, resolve } from 'node:path'
import { defaultAppDataDir } from '../../node/app-data'
import { createAppLog } from '../core/app-log'
import { createCore } from '../core/core'
import { loadWebIdentity, saveWebIdentity } from './web-identity'
import { startWebShell } from './web-shell'

async function main(): Promise<void> {
  const appDataDir = defaultAppDataDir()
  const log = createAppLog(join(appDataDir, 'logs'))
  const staticDir = resolve(process.env.ONAIR_RENDERER_DIR ?? join(__dirname, '../renderer'))
  const builtStudio = join(__dirname, 'studio.js')
  const core = await createCore({
    appDataDir,
    log,
    shell: 'web',
    warmLocalStudio: true,
    appVersion: process.env.npm_package_version ?? '0.1.0',
    // Built: the bundled studio beside this file; from source (tsx), the core's default.
    ...(__filename.endsWith('.js')
      ? { studioCommand: { command: process.execPath, args: [builtStudio] } }
      : {})
  })
  // The same address and session as last time, so open tabs find Onair again after a restart.
  const identity = loadWebIdentity(appDataDir)
  const explicit = process.env.ONAIR_WEB_PORT
  const shell = await startWebShell({
    core,
    staticDir,
    port: explicit ? Number(explicit) : identity.port,
    portFallback: !explicit,
    session: identity.session,
    log
  })
  saveWebIdentity(appDataDir, { port: Number(new URL(shell.origin).port), session: shell.session })
  // One line the launcher (and tests) can read, then a sentence for people.
  console.log(`ONAIR_WEB_READY ${JSON.stringify({ url: shell.url })}`)
  console.log(`Onair is running in your browser: open ${shell.url}`)

  let stopping = false
  const stop = async (): Promise<void> => {
    if (stopping) return
    stopping = true
    await shell.close().catch(() => {})
    await core.shutdown().catch((e: unknown) => log(`shutdown: ${String(e)}`))
    process.exit(0)
  }
  process.on('SIGINT', () => void stop())
  process.on('SIGTERM', () => void stop())
}

main().catch((e: unknown) => {
  console.error(`Onair could not start: ${e instanceof Error ? e.message : String(e)}`)
  process.exit(1)
})

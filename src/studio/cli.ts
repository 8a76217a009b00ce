// `npm run studio -- [--host H] [--port N] [--rtmp-port N] [--port-fallback] [--data DIR]
// [--resume-window MS]` runs the studio until SIGINT/SIGTERM; `npm run studio -- keys create
// [--data DIR] [--user NAME]` prints a new API key. --data defaults to the app's <app data>/studio.
// stdout carries only the ONAIR_STUDIO_READY line (or the key); logs go to stderr.
// Started by the app (with an IPC channel), it says ready/failed on the channel instead, stops on the
// app's "stop", and stops by itself when the channel closes: the app died (crash, Force Quit, End task,
// SIGKILL) and nobody is left to stop it.
import { isStopMessage, type StudioToApp } from '../node/studio-channel'
import { EXIT, parseArgs, type CliArgs } from './cli-args'
import { createApiKey, startStudio, StudioStartError } from './index'

const stamp = (line: string): void => {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`)
}

function exitCodeFor(err: unknown): number {
  const code = err instanceof StudioStartError ? err.code : undefined
  if (code === 'EADDRINUSE') return EXIT.portBusy
  if (
    code === 'EACCES' ||
    code === 'EROFS' ||
    code === 'EPERM' ||
    code === 'ENOTDIR' ||
    code === 'EEXIST'
  )
    return EXIT.notWritable
  if (code === 'ENOENT') return EXIT.ffmpegMissing
  return EXIT.failed
}

/**
 * Whatever happens, the process is gone this long after its stop began: within 10 s of the app's
 * death, even when its own ffmpegs do not finish in time (the app forces an orderly stop at 5 s).
 */
const STOP_DEADLINE_MS = 8000

/** Started by the app, with a channel; the channel may close while the studio is still starting. */
const viaApp = typeof process.send === 'function'
let appGone = false
let onAppGone = (): void => {
  appGone = true
}
if (viaApp) process.on('disconnect', () => onAppGone())

/** Sends on the app's channel (when there is one); resolves once the message is written. */
const tell = (m: StudioToApp): Promise<void> =>
  new Promise((resolve) => {
    if (process.send && process.connected) process.send(m, undefined, {}, () => resolve())
    else resolve()
  })

async function main(): Promise<void> {
  let args: CliArgs
  try {
    args = parseArgs(process.argv.slice(2))
  } catch (err) {
    process.stderr.write(`onair studio: ${(err as Error).message}\n`)
    process.exit(EXIT.usage)
  }
  if (args.command === 'keys-create') {
    const key = await createApiKey(args.data, args.user)
    process.stdout.write(key + '\n')
    return
  }
  const studio = await startStudio({
    dataDir: args.data,
    host: args.host,
    port: args.port,
    rtmpPort: args.rtmpPort,
    ...(args.resumeWindowMs !== undefined ? { resumeWindowMs: args.resumeWindowMs } : {}),
    portFallback: args.portFallback ?? false,
    appOrigins: args.appOrigins ?? [],
    log: stamp
  })
  const ready = {
    api: studio.apiUrl,
    rtmp: studio.rtmpUrl,
    ...(studio.apiKey ? { apiKey: studio.apiKey } : {})
  }
  if (viaApp) await tell({ type: 'ready', ...ready })
  else process.stdout.write(`ONAIR_STUDIO_READY ${JSON.stringify(ready)}\n`)
  let stopping = false
  const shutdown = (sig: string): void => {
    if (stopping) return
    stopping = true
    stamp(`studio: ${sig}, finishing recordings and stopping`)
    setTimeout(() => {
      stamp('studio: stop took too long, exiting')
      process.exit(EXIT.failed)
    }, STOP_DEADLINE_MS).unref()
    studio.stop().then(
      () => process.exit(0),
      (err: Error) => {
        stamp(`studio: stop failed: ${err.message}`)
        process.exit(EXIT.failed)
      }
    )
  }
  process.on('SIGINT', () => shutdown('SIGINT'))
  process.on('SIGTERM', () => shutdown('SIGTERM'))
  process.on('message', (m) => {
    if (isStopMessage(m)) shutdown('stop asked by the app')
  })
  onAppGone = () => shutdown('the app is gone (its channel closed)')
  if (appGone) onAppGone()
}

main().catch(async (err: unknown) => {
  const reason = (err as Error).message
  process.stderr.write(`onair studio: ${reason}\n`)
  const code = err instanceof StudioStartError ? err.code : undefined
  // The app hears why before the process (and its channel) ends.
  await tell({ type: 'failed', reason, ...(code ? { code } : {}) })
  process.exit(exitCodeFor(err))
})

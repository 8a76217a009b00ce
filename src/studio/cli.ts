// `npm run studio -- [--host H] [--port N] [--rtmp-port N] [--data DIR] [--resume-window MS]`
// runs the studio until SIGINT/SIGTERM; `npm run studio -- keys create --data DIR [--user NAME]`
// prints a new API key.
// stdout carries only the ONAIR_STUDIO_READY line (or the key); logs go to stderr.
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
    log: stamp
  })
  const ready = {
    api: studio.apiUrl,
    rtmp: studio.rtmpUrl,
    ...(studio.apiKey ? { apiKey: studio.apiKey } : {})
  }
  process.stdout.write(`ONAIR_STUDIO_READY ${JSON.stringify(ready)}\n`)
  let stopping = false
  const shutdown = (sig: string): void => {
    if (stopping) return
    stopping = true
    stamp(`studio: ${sig}, finishing recordings and stopping`)
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
}

main().catch((err: unknown) => {
  process.stderr.write(`onair studio: ${(err as Error).message}\n`)
  process.exit(exitCodeFor(err))
})

// Command-line arguments of the studio CLI, apart from the entry so they can be tested without
// starting anything.
import { homedir } from 'node:os'
import { posix, win32 } from 'node:path'
import { defaultAppDataDir } from '../node/app-data'
import { originOf } from '../shared/origin'

/** Exit codes the app's studio host can tell apart. */
export const EXIT = { usage: 64, portBusy: 2, notWritable: 3, ffmpegMissing: 4, failed: 1 } as const

/** The app's own local-studio folder: <Onair's app data>/studio (ONAIR_APP_DATA moves both). */
export function defaultDataDir(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
  home = homedir()
): string {
  const appData = defaultAppDataDir(env, platform, home)
  return platform === 'win32' ? win32.join(appData, 'studio') : posix.join(appData, 'studio')
}

export interface CliArgs {
  command: 'serve' | 'keys-create'
  host: string
  port: number
  rtmpPort: number
  data: string
  /** Milliseconds a dropped publisher has to come back into the same session (tests shorten it). */
  resumeWindowMs?: number
  /** --port-fallback: a taken --port or --rtmp-port gives way to any free port. */
  portFallback?: boolean
  /** --app-origin O (repeatable): the app's renderer origins, allowed to upload by tus from a page. */
  appOrigins?: string[]
  user?: string
}

export function parseArgs(argv: string[]): CliArgs {
  const out: CliArgs = {
    command: 'serve',
    host: '127.0.0.1',
    port: 0,
    rtmpPort: 0,
    data: defaultDataDir()
  }
  const rest = [...argv]
  if (rest[0] === 'keys') {
    if (rest[1] !== 'create') throw new Error('unknown command: keys ' + (rest[1] ?? ''))
    out.command = 'keys-create'
    rest.splice(0, 2)
  }
  const port = (v: string | undefined, flag: string): number => {
    const n = Number(v)
    if (v === undefined || !Number.isInteger(n) || n < 0 || n > 65535)
      throw new Error(`${flag} needs a port number 0-65535 (0 = any free port)`)
    return n
  }
  for (let i = 0; i < rest.length; i++) {
    const flag = rest[i]!
    const value = rest[i + 1]
    const need = (): string => {
      if (value === undefined || value.startsWith('--')) throw new Error(`${flag} needs a value`)
      i++
      return value
    }
    if (flag === '--host') out.host = need()
    else if (flag === '--port') out.port = port(need(), flag)
    else if (flag === '--rtmp-port') out.rtmpPort = port(need(), flag)
    else if (flag === '--data') out.data = need()
    else if (flag === '--port-fallback') out.portFallback = true
    else if (flag === '--app-origin') {
      const origin = originOf(need())
      if (!origin) throw new Error('--app-origin needs an origin: scheme://host[:port]')
      out.appOrigins = [...(out.appOrigins ?? []), origin]
    } else if (flag === '--resume-window') {
      const ms = Number(need())
      if (!Number.isInteger(ms) || ms < 0 || ms > 3_600_000)
        throw new Error('--resume-window needs milliseconds, 0-3600000')
      out.resumeWindowMs = ms
    } else if (flag === '--user' && out.command === 'keys-create') out.user = need()
    else throw new Error(`unknown option ${flag}`)
  }
  return out
}

// Where ffmpeg is, decided in one place for the app, the local studio and the tests:
//   1. FFMPEG_PATH (an explicit choice; a wrong one is an error, never silently passed over);
//   2. ffmpeg-static's bundled binary, if the file is there (app.asar.unpacked when packaged;
//      ffmpeg-static itself honours FFMPEG_BIN);
//   3. `ffmpeg` on PATH (ffmpeg.exe and PATHEXT on Windows): a machine where ffmpeg-static could not
//      place its binary but ffmpeg is installed works with no variable set;
//   4. otherwise a clear error naming every way out.
import { existsSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { posix, win32 } from 'node:path'
import { AppFailure } from '../../shared/result'
import { runChild } from '../process'

export interface FfmpegLocation {
  path: string
  source: 'FFMPEG_PATH' | 'ffmpeg-static' | 'PATH'
}

const NOT_FOUND_HINT =
  'Install ffmpeg so that it is on your PATH, or set FFMPEG_PATH to an ffmpeg binary (for example ' +
  '/usr/bin/ffmpeg), or reinstall so that ffmpeg-static can place its own.'

/** Loads ffmpeg-static's export (a path or null); isolated so tests can swap it. */
export function ffmpegStaticPath(): string | null {
  try {
    const req = createRequire(__filename)
    const p = req('ffmpeg-static') as unknown
    return typeof p === 'string' ? unpackedAsarPath(p) : null
  } catch {
    return null
  }
}

/** In a packaged app the binary is unpacked beside the asar (asarUnpack): point there. */
export const unpackedAsarPath = (p: string): string =>
  p.replace(/app\.asar([\\/])/, 'app.asar.unpacked$1')

const isFile = (p: string): boolean => {
  try {
    return statSync(p).isFile()
  } catch {
    return false
  }
}

/**
 * `name` on PATH, as the OS would find it: PATH split by ';' on Windows (where the variable may be
 * spelt Path) and each PATHEXT extension tried; ':' elsewhere.
 */
export function findOnPath(
  name: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  exists: (p: string) => boolean = isFile
): string | undefined {
  const win = platform === 'win32'
  const pathVar = win
    ? (Object.entries(env).find(([k]) => k.toUpperCase() === 'PATH')?.[1] ?? '')
    : (env.PATH ?? '')
  const exts = win ? (env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';').filter(Boolean) : ['']
  const join = win ? win32.join : posix.join
  for (const dir of pathVar.split(win ? ';' : ':')) {
    const d = dir.trim().replace(/^"(.*)"$/, '$1')
    if (!d) continue
    for (const ext of exts) {
      const candidate = join(d, name + ext.toLowerCase())
      if (exists(candidate)) return candidate
    }
  }
  return undefined
}

export function resolveFfmpeg(
  env: NodeJS.ProcessEnv = process.env,
  staticPath: () => string | null = ffmpegStaticPath,
  exists: (p: string) => boolean = existsSync,
  platform: NodeJS.Platform = process.platform
): FfmpegLocation {
  const explicit = env.FFMPEG_PATH?.trim()
  if (explicit) {
    if (exists(explicit)) return { path: explicit, source: 'FFMPEG_PATH' }
    throw new AppFailure({
      code: 'ffmpeg-missing',
      message: `FFMPEG_PATH points to ${explicit}, but there is no file there.`,
      hint: NOT_FOUND_HINT
    })
  }
  const bundled = staticPath()
  if (bundled && exists(bundled)) return { path: bundled, source: 'ffmpeg-static' }
  const onPath = findOnPath('ffmpeg', env, platform, exists)
  if (onPath) return { path: onPath, source: 'PATH' }
  throw new AppFailure({
    code: 'ffmpeg-missing',
    message: bundled
      ? `ffmpeg was not found: ffmpeg-static expects it at ${bundled}, but the file is missing, and there is no ffmpeg on PATH.`
      : 'ffmpeg was not found: FFMPEG_PATH is not set, ffmpeg-static has no binary for this platform, and there is no ffmpeg on PATH.',
    hint: NOT_FOUND_HINT
  })
}

/** `ffmpeg -version`'s first line's version word, e.g. `5.1.9-0+deb12u1`. */
export async function ffmpegVersion(path: string, timeoutMs = 10_000): Promise<string> {
  const r = await runChild(path, ['-hide_banner', '-version'], { timeoutMs })
  const failure = r.error ?? (r.code !== 0 ? new Error(`exit ${r.code ?? r.signal}`) : undefined)
  if (failure)
    throw new AppFailure({
      code: 'ffmpeg-failed',
      message: `ffmpeg at ${path} did not run: ${failure.message.split('\n')[0]}`,
      hint: NOT_FOUND_HINT
    })
  const m = /ffmpeg version (\S+)/.exec(r.stdout)
  return m?.[1] ?? 'unknown'
}

/** ffprobe beside the resolved ffmpeg (FFPROBE_PATH wins), then on PATH; only the tests use it. */
export function resolveFfprobe(env: NodeJS.ProcessEnv = process.env): string {
  if (env.FFPROBE_PATH?.trim()) return env.FFPROBE_PATH.trim()
  const ff = resolveFfmpeg(env).path
  const probe = ff.replace(/ffmpeg(\.exe)?$/i, 'ffprobe$1')
  return existsSync(probe) ? probe : (findOnPath('ffprobe', env) ?? 'ffprobe')
}

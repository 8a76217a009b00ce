// Where ffmpeg is, decided in one place for the app, the local studio and the tests:
// FFMPEG_PATH first (an explicit choice), then ffmpeg-static's bundled binary if the file exists
// (ffmpeg-static itself honours FFMPEG_BIN), else a clear error naming both ways out.
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { AppFailure } from '../../shared/result'

export interface FfmpegLocation {
  path: string
  source: 'FFMPEG_PATH' | 'ffmpeg-static'
}

const NOT_FOUND_HINT =
  'Set FFMPEG_PATH to an ffmpeg binary (for example /usr/bin/ffmpeg), or reinstall so that ffmpeg-static can place its own.'

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
  p.replace(`app.asar${pathSep()}`, `app.asar.unpacked${pathSep()}`)

const pathSep = (): string => (process.platform === 'win32' ? '\\' : '/')

export function resolveFfmpeg(
  env: NodeJS.ProcessEnv = process.env,
  staticPath: () => string | null = ffmpegStaticPath,
  exists: (p: string) => boolean = existsSync
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
  throw new AppFailure({
    code: 'ffmpeg-missing',
    message: bundled
      ? `ffmpeg was not found: ffmpeg-static expects it at ${bundled}, but the file is missing.`
      : 'ffmpeg was not found: FFMPEG_PATH is not set and ffmpeg-static has no binary for this platform.',
    hint: NOT_FOUND_HINT
  })
}

/** `ffmpeg -version`'s first line's version word, e.g. `5.1.9-0+deb12u1`. */
export function ffmpegVersion(path: string, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(path, ['-hide_banner', '-version'], { timeout: timeoutMs }, (err, stdout) => {
      if (err) {
        reject(
          new AppFailure({
            code: 'ffmpeg-failed',
            message: `ffmpeg at ${path} did not run: ${err.message.split('\n')[0]}`,
            hint: NOT_FOUND_HINT
          })
        )
        return
      }
      const m = /ffmpeg version (\S+)/.exec(stdout)
      resolve(m?.[1] ?? 'unknown')
    })
  })
}

/** ffprobe beside the resolved ffmpeg (FFPROBE_PATH wins); tests and the studio's checks use it. */
export function resolveFfprobe(env: NodeJS.ProcessEnv = process.env): string {
  if (env.FFPROBE_PATH?.trim()) return env.FFPROBE_PATH.trim()
  const ff = resolveFfmpeg(env).path
  const probe = ff.replace(/ffmpeg(\.exe)?$/, 'ffprobe$1')
  return existsSync(probe) ? probe : 'ffprobe'
}

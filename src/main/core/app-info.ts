import type { AppInfo, ShellKind } from '../../shared/contract'
import { AppFailure } from '../../shared/result'
import { ffmpegVersion, resolveFfmpeg } from '../../node/ffmpeg/locate'

export async function readAppInfo(opts: {
  version: string
  shell: ShellKind
  electronVersion?: string
}): Promise<AppInfo> {
  let ffmpeg: AppInfo['ffmpeg']
  try {
    const loc = resolveFfmpeg()
    ffmpeg = { path: loc.path, source: loc.source, version: await ffmpegVersion(loc.path) }
  } catch (e) {
    ffmpeg = {
      error: e instanceof AppFailure ? `${e.error.message} ${e.error.hint ?? ''}`.trim() : String(e)
    }
  }
  return {
    name: 'Onair',
    version: opts.version,
    platform: process.platform,
    arch: process.arch,
    shell: opts.shell,
    electron: opts.electronVersion,
    node: process.versions.node,
    ffmpeg
  }
}

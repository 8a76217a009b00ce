// Where "Record on this computer" writes by default: the OS's videos folder, in an Onair subfolder.
// Pure, with the platform, environment, home and file reader injected, so every OS's branch is tested
// anywhere. (Electron's app.getPath('videos') knows the same folder, but the web shell cannot ask
// Electron: this one function serves both shells.)
import { posix, win32 } from 'node:path'
import { PRODUCT_NAME } from '../../../node/app-data'

export interface FolderEnv {
  env: NodeJS.ProcessEnv
  platform: NodeJS.Platform
  home: string
  /** Reads a file's text, or undefined when it cannot (Linux's ~/.config/user-dirs.dirs). */
  readText: (path: string) => string | undefined
}

/**
 * Windows `%USERPROFILE%\Videos\Onair`; macOS `~/Movies/Onair`; Linux `$XDG_VIDEOS_DIR/Onair`, from the
 * environment or from `user-dirs.dirs` (xdg-user-dirs), else `~/Videos/Onair`. ONAIR_RECORDINGS_DIR
 * replaces the whole answer (tests, or a creator's script).
 */
export function defaultRecordingFolder(f: FolderEnv): string {
  const { env, platform, home } = f
  if (env.ONAIR_RECORDINGS_DIR) return env.ONAIR_RECORDINGS_DIR
  if (platform === 'win32') return win32.join(env.USERPROFILE ?? home, 'Videos', PRODUCT_NAME)
  if (platform === 'darwin') return posix.join(home, 'Movies', PRODUCT_NAME)
  const videos = env.XDG_VIDEOS_DIR || xdgUserDir(f, 'VIDEOS') || posix.join(home, 'Videos')
  return posix.join(videos, PRODUCT_NAME)
}

/** One entry of user-dirs.dirs: `XDG_VIDEOS_DIR="$HOME/Videos"` (only $HOME is expanded, by spec). */
function xdgUserDir(f: FolderEnv, name: string): string | undefined {
  const config = f.env.XDG_CONFIG_HOME || posix.join(f.home, '.config')
  const text = f.readText(posix.join(config, 'user-dirs.dirs'))
  const m = text && new RegExp(`^XDG_${name}_DIR="([^"]*)"`, 'm').exec(text)
  if (!m?.[1]) return undefined
  const dir = m[1].replace(/^\$HOME(?=\/|$)/, f.home)
  // A folder set to $HOME itself means "disabled" in xdg-user-dirs.
  const bare = (p: string): string => posix.normalize(p).replace(/(?<=.)\/+$/, '')
  return posix.isAbsolute(dir) && bare(dir) !== bare(f.home) ? dir : undefined
}

/** The short name the form shows: the last two parts ("Videos/Onair"). */
export function folderLabel(folder: string): string {
  const parts = folder.split(/[\\/]+/).filter(Boolean)
  return parts.slice(-2).join('/')
}

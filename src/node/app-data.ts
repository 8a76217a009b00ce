// Where the app keeps its data: Electron's userData folder (the app's productName, "Onair", under the
// OS's per-user application data), so the web shell and the desktop app share one settings file and
// one local studio. ONAIR_APP_DATA overrides it. The local studio's data sits in <appData>/studio.
import { homedir } from 'node:os'
import { posix, resolve, win32 } from 'node:path'

export const PRODUCT_NAME = 'Onair'

/** Electron's app.getPath('userData') for this product, computed the same way for the web shell. */
export function defaultAppDataDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir()
): string {
  if (env.ONAIR_APP_DATA) return resolve(env.ONAIR_APP_DATA)
  if (platform === 'win32')
    return win32.join(env.APPDATA ?? win32.join(home, 'AppData', 'Roaming'), PRODUCT_NAME)
  if (platform === 'darwin') return posix.join(home, 'Library', 'Application Support', PRODUCT_NAME)
  return posix.join(env.XDG_CONFIG_HOME ?? posix.join(home, '.config'), PRODUCT_NAME)
}

// Is a launchable Electron here? Returns {ok:true, path} or {ok:false, reason} (one plain sentence).
import { createRequire } from 'node:module'
import { existsSync } from 'node:fs'

export function electronBinary() {
  const require = createRequire(import.meta.url)
  let path
  try {
    path = require('electron') // the package's main export is the binary's path
  } catch {
    return { ok: false, reason: "Electron's binary is not installed on this machine" }
  }
  if (typeof path !== 'string' || !existsSync(path)) {
    return { ok: false, reason: "Electron's binary is not installed on this machine" }
  }
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    return { ok: false, reason: 'no display is available' }
  }
  return { ok: true, path }
}

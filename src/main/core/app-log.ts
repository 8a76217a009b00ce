// The app's log: one file a creator can send when something went wrong, in the OS's usual place
// (Electron's logs path: ~/Library/Logs/Onair on macOS, %APPDATA%\Onair\logs on Windows,
// ~/.config/Onair/logs on Linux). Every line is redacted first; the file is capped (the previous one
// is kept as onair.old.log), so it never grows without bound. Also echoed to the console.
import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { redactSecrets } from '../../shared/redact'

export const LOG_FILE = 'onair.log'
const MAX_BYTES = 5 * 1024 * 1024

export type Log = (line: string) => void

export function createAppLog(
  dir: string,
  echo: (line: string) => void = (l) => console.error(l),
  maxBytes = MAX_BYTES
): Log {
  const file = join(dir, LOG_FILE)
  let size = -1
  return (line: string) => {
    const text = `${new Date().toISOString()} ${redactSecrets(line)}`
    echo(`[onair] ${text}`)
    try {
      if (size < 0) {
        mkdirSync(dir, { recursive: true })
        size = statSizeOr0(file)
      }
      if (size > maxBytes) {
        renameSync(file, join(dir, 'onair.old.log'))
        size = 0
      }
      appendFileSync(file, text + '\n')
      size += Buffer.byteLength(text) + 1
    } catch {
      // A log that cannot be written must never take the app down; the console still has it.
    }
  }
}

function statSizeOr0(file: string): number {
  try {
    return statSync(file).size
  } catch {
    return 0
  }
}

// What lets a browser tab outlive a restart of Onair's web shell: the same port (so the tab's address
// still points at Onair) and the same session secret (so the tab's HttpOnly cookie is still good).
// Kept in <appData>/web-shell.json, readable by this user only. The printed token stays one-time per
// launch: a new browser still needs the new link.
import { randomBytes } from 'node:crypto'
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface WebIdentity {
  port: number
  session: string
}

const FILE = 'web-shell.json'

export function loadWebIdentity(appDataDir: string): WebIdentity {
  try {
    const j = JSON.parse(readFileSync(join(appDataDir, FILE), 'utf8')) as Partial<WebIdentity>
    const port = Number(j.port)
    if (typeof j.session === 'string' && j.session.length >= 32 && Number.isInteger(port))
      return { port, session: j.session }
  } catch {
    // First run, or an unreadable file: a new identity.
  }
  return { port: 0, session: randomBytes(32).toString('base64url') }
}

export function saveWebIdentity(appDataDir: string, id: WebIdentity): void {
  const file = join(appDataDir, FILE)
  const tmp = `${file}.${process.pid}.tmp`
  writeFileSync(tmp, JSON.stringify(id), { mode: 0o600 })
  renameSync(tmp, file)
}

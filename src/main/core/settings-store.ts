// Non-secret settings (connections without their keys, the active one, device choices) as JSON in
// appDataDir. Written atomically (tmp file + rename) so a crash never leaves half a file; a file that
// cannot be read is set aside, not overwritten, so nothing is lost.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ConnectionKind, DeviceSettings } from '../../shared/contract'

export interface StoredConnection {
  id: string
  kind: ConnectionKind
  name: string
  baseUrl: string
}

/** The local studio's ports, chosen once and kept, so encoders and links pointed at it keep working. */
export interface LocalPorts {
  api: number
  rtmp: number
}

export interface Settings {
  version: 1
  connections: StoredConnection[]
  activeId: string
  devices: DeviceSettings
  localPorts?: LocalPorts
}

export const LOCAL_ID = 'local'

export const defaultSettings = (): Settings => ({
  version: 1,
  connections: [{ id: LOCAL_ID, kind: 'local', name: 'Local studio', baseUrl: '' }],
  activeId: LOCAL_ID,
  devices: {}
})

export class SettingsStore {
  readonly file: string
  private current: Settings

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true })
    this.file = join(dir, 'settings.json')
    this.current = this.load()
  }

  get(): Settings {
    return structuredClone(this.current)
  }

  update(fn: (s: Settings) => void): Settings {
    const next = structuredClone(this.current)
    fn(next)
    this.write(next)
    this.current = next
    return this.get()
  }

  private load(): Settings {
    if (!existsSync(this.file)) return defaultSettings()
    try {
      const parsed = JSON.parse(readFileSync(this.file, 'utf8')) as Partial<Settings>
      if (parsed.version !== 1 || !Array.isArray(parsed.connections))
        throw new Error('unknown shape')
      const s: Settings = { ...defaultSettings(), ...parsed } as Settings
      // The local studio connection always exists.
      if (!s.connections.some((c) => c.id === LOCAL_ID))
        s.connections.unshift(defaultSettings().connections[0]!)
      if (!s.connections.some((c) => c.id === s.activeId)) s.activeId = LOCAL_ID
      return s
    } catch {
      renameSync(this.file, `${this.file}.unreadable-${Date.now()}`)
      return defaultSettings()
    }
  }

  private write(s: Settings): void {
    const tmp = `${this.file}.${process.pid}.tmp`
    writeFileSync(tmp, JSON.stringify(s, null, 2), { mode: 0o600 })
    renameSync(tmp, this.file)
  }
}

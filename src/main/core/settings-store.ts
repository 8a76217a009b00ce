// Non-secret settings (connections without their keys, the active one, device choices, the scenes) as
// JSON in appDataDir. Written atomically (tmp file + rename) so a crash never leaves half a file; a file
// that cannot be read is set aside, not overwritten, so nothing is lost. The scenes' pictures are files
// beside it (scene-images.ts); scenes saved in the format before (pictures as data URLs in this file)
// are moved to that format on the first load.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ConnectionKind, DeviceSettings } from '../../shared/contract'
import type { HotkeySettings } from '../../shared/hotkeys'
import { type ScenesState } from '../../shared/scenes'
import { migrateScenes, readScenes } from '../../shared/scenes-saved'
import type { UploadSettings } from '../../shared/uploads'
import { dataUrlBytes, SceneImages } from './scene-images'

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
  /** The keys chosen for the actions (shared/hotkeys.ts, read back through readHotkeys). */
  hotkeys?: HotkeySettings
  /** The upload choices (shared/uploads.ts, read back through readUploadSettings). */
  uploads?: UploadSettings
}

export const LOCAL_ID = 'local'

export const defaultSettings = (): Settings => ({
  version: 1,
  connections: [{ id: LOCAL_ID, kind: 'local', name: 'Local studio', baseUrl: '' }],
  activeId: LOCAL_ID,
  devices: {}
})

/** The picture files the saved scenes name. */
export function imagesNamed(scenes: ScenesState | undefined): Set<string> {
  return new Set((scenes?.sources ?? []).flatMap((s) => (s.kind === 'image' ? [s.file] : [])))
}

export class SettingsStore {
  readonly file: string
  readonly images: SceneImages
  private current: Settings

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true })
    this.file = join(dir, 'settings.json')
    this.images = new SceneImages(dir)
    this.current = this.load()
    const scenes = this.current.devices.scenes as Record<string, unknown> | undefined
    if (scenes && scenes.version !== 2) this.update((s) => this.migrate(s))
    // Pictures no saved scene names any more (removed, or replaced) are deleted in the background.
    void this.images.prune(imagesNamed(this.current.devices.scenes))
  }

  /** Scenes in the format before version 2: their data URLs become files, the settings name them. */
  private migrate(s: Settings): void {
    const o = s.devices.output
    const aspect = o?.width && o?.height ? o.width / o.height : 16 / 9
    const save = (dataUrl: string): string | null => {
      const bytes = dataUrlBytes(dataUrl)
      try {
        return bytes ? this.images.saveSync(bytes) : null
      } catch {
        return null // not a PNG or JPEG, or not writable: that picture is dropped, the scenes kept
      }
    }
    const old = s.devices.scenes as unknown as Record<string, unknown>
    s.devices.scenes = readScenes(migrateScenes(old, save, aspect), aspect)
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

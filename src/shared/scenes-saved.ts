// Reading saved scenes (shared/scenes.ts is the model and its reducers): settings are JSON a newer
// or older Onair (or a hand edit) may have written, so readScenes cleans them piece by piece, and
// migrateScenes turns the format before version 2 into today's. No DOM, no Node.
import { CORNERS, type Corner, type Rect } from './scene-layout'
import { readLevel, readSourceAudio } from './audio'
import {
  arrange,
  CAMERA_ID,
  DEFAULT_CAMERA,
  DEFAULT_MIX,
  DEFAULT_SCREEN,
  DEFAULT_SOUND,
  DEFAULT_PIP,
  DEFAULT_TEXT,
  DEFAULT_TRANSITION,
  defaultScenes,
  dropUnused,
  IMAGE_FILE,
  isPicture,
  LAYOUT_KINDS,
  LIMITS,
  browserSettings,
  browserUrl,
  DEFAULT_BROWSER,
  MAX_GAIN,
  SCREEN_ID,
  TRANSITION_KINDS,
  type LayoutKind,
  type Pip,
  type Scene,
  type SceneItem,
  type SceneMix,
  type SceneSource,
  type ScenesState,
  type TextSource,
  type Transition,
  type TransitionKind
} from './scenes'

// ---- reading saved scenes -------------------------------------------------------------------------
// Whatever does not fit is dropped piece by piece, and the rest kept, rather than losing every scene
// for one bad field.

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null
const num = (v: unknown, lo: number, hi: number): number | null =>
  typeof v === 'number' && Number.isFinite(v) && v >= lo && v <= hi ? v : null
const str = (v: unknown, max: number): string | null =>
  typeof v === 'string' && v.length > 0 && v.length <= max ? v : null
const COLOR = /^#[0-9a-f]{6}$/i

function readRect(v: unknown): Rect | null {
  if (!isObj(v)) return null
  const x = num(v.x, 0, 1)
  const y = num(v.y, 0, 1)
  const w = num(v.w, 0.001, 1)
  const h = num(v.h, 0.001, 1)
  if (x === null || y === null || w === null || h === null) return null
  return { x: Math.min(x, 1 - w), y: Math.min(y, 1 - h), w, h }
}

function readTextSettings(v: Record<string, unknown>): Omit<TextSource, 'id'> {
  return {
    kind: 'text',
    text: typeof v.text === 'string' ? v.text.slice(0, LIMITS.textLength) : '',
    size: num(v.size, LIMITS.textSize.min, LIMITS.textSize.max) ?? DEFAULT_TEXT.size,
    color: typeof v.color === 'string' && COLOR.test(v.color) ? v.color : '#ffffff',
    band: typeof v.band === 'string' && COLOR.test(v.band) ? v.band : null
  }
}

function readSource(v: unknown): SceneSource | null {
  if (!isObj(v)) return null
  const id = str(v.id, 100)
  if (!id) return null
  switch (v.kind) {
    // Saved when there was one camera and one screen, they had no name and the camera no device of
    // its own: they load as the first camera (the device chosen in the settings) and the first screen.
    case 'camera':
      return {
        id,
        kind: 'camera',
        name: str(v.name, LIMITS.nameLength) ?? DEFAULT_CAMERA.name,
        videoDeviceId: str(v.videoDeviceId, 500)
      }
    case 'screen': {
      const name =
        str(v.name, LIMITS.nameLength) ?? (id === SCREEN_ID ? DEFAULT_SCREEN.name : 'Screen')
      // An added screen's sound (the first screen's are the scene's mix and the audio settings').
      const sound = id !== SCREEN_ID && isObj(v.sound) ? v.sound : null
      return sound
        ? {
            id,
            kind: 'screen',
            name,
            sound: { ...readLevel(sound, DEFAULT_SOUND), audio: readSourceAudio(sound.audio) }
          }
        : { id, kind: 'screen', name }
    }
    case 'image': {
      const file = typeof v.file === 'string' && IMAGE_FILE.test(v.file) ? v.file : null
      const width = num(v.width, 1, 10_000)
      const height = num(v.height, 1, 10_000)
      if (!file || !width || !height) return null
      return { id, kind: 'image', name: str(v.name, 300) ?? 'image', file, width, height }
    }
    case 'text':
      return { id, ...readTextSettings(v) }
    case 'video': {
      const width = num(v.width, 1, 10_000)
      const height = num(v.height, 1, 10_000)
      if (!width || !height) return null
      return {
        id,
        kind: 'video',
        name: str(v.name, 300) ?? 'video',
        width,
        height,
        muted: v.muted !== false,
        gain: num(v.gain, 0, MAX_GAIN) ?? 1,
        audio: readSourceAudio(v.audio)
      }
    }
    case 'browser': {
      const checked = typeof v.url === 'string' ? browserUrl(v.url) : null
      if (!checked || !('url' in checked)) return null
      return {
        id,
        kind: 'browser',
        ...browserSettings({
          name: str(v.name, LIMITS.nameLength) ?? '',
          url: checked.url,
          width: num(v.width, 1, 100_000) ?? DEFAULT_BROWSER.width,
          height: num(v.height, 1, 100_000) ?? DEFAULT_BROWSER.height,
          fps: num(v.fps, 1, 1000) ?? DEFAULT_BROWSER.fps
        })
      }
    }
    default:
      return null
  }
}

/** A scene's mix; a scene saved before mixes were kept (or a broken one) gets DEFAULT_MIX. */
const readMix = (v: unknown): SceneMix =>
  isObj(v)
    ? { mic: readLevel(v.mic, DEFAULT_MIX.mic), screen: readLevel(v.screen, DEFAULT_MIX.screen) }
    : DEFAULT_MIX

const readPip = (v: unknown): Pip =>
  isObj(v) && CORNERS.includes(v.corner as Corner) && num(v.size, 0.05, 1) !== null
    ? { corner: v.corner as Corner, size: v.size as number }
    : DEFAULT_PIP

function readTransition(v: unknown): Transition {
  if (!isObj(v) || !TRANSITION_KINDS.includes(v.kind as TransitionKind)) return DEFAULT_TRANSITION
  const durationMs = num(v.durationMs, 0, LIMITS.transitionMs)
  return {
    kind: v.kind as TransitionKind,
    durationMs: durationMs === null ? DEFAULT_TRANSITION.durationMs : Math.round(durationMs)
  }
}

/** Saved scenes (today's format, or the format before it: see migrateScenes), cleaned; no saved scenes (or nothing usable) gives the default set. */
export function readScenes(saved: unknown, canvasAspect = 16 / 9): ScenesState {
  if (isObj(saved) && saved.version !== 2) saved = migrateScenes(saved, () => null, canvasAspect)
  if (!isObj(saved) || !Array.isArray(saved.scenes)) return defaultScenes(canvasAspect)
  // The first camera and the first screen are always there (as saved, or as they were by default).
  const sources: SceneSource[] = [DEFAULT_CAMERA, DEFAULT_SCREEN]
  const count = { cameras: 1, screens: 1, images: 0, videos: 0, browsers: 0 }
  for (const v of Array.isArray(saved.sources) ? saved.sources : []) {
    const s = readSource(v)
    if (!s) continue
    if (s.id === CAMERA_ID || s.id === SCREEN_ID) {
      const first = s.id === CAMERA_ID ? 0 : 1
      if (s.kind === sources[first]!.kind) sources[first] = s
      continue
    }
    if (sources.some((x) => x.id === s.id)) continue
    if (s.kind === 'camera' && ++count.cameras > LIMITS.cameras) continue
    if (s.kind === 'screen' && ++count.screens > LIMITS.screens) continue
    if (s.kind === 'image' && ++count.images > LIMITS.images) continue
    if (s.kind === 'video' && ++count.videos > LIMITS.videos) continue
    if (s.kind === 'browser' && ++count.browsers > LIMITS.browsers) continue
    if (sources.length < LIMITS.sources + LIMITS.cameras + LIMITS.screens) sources.push(s)
  }
  const known = new Set(sources.map((s) => s.id))
  const seen = new Set<string>()
  const scenes: Scene[] = []
  for (const s of saved.scenes.slice(0, LIMITS.scenes)) {
    if (!isObj(s)) continue
    const id = str(s.id, 100)
    if (!id || seen.has(id)) continue
    seen.add(id)
    const name = (str(s.name, LIMITS.nameLength) ?? 'Scene').trim() || 'Scene'
    const itemIds = new Set<string>()
    const items: SceneItem[] = []
    for (const v of Array.isArray(s.items) ? s.items : []) {
      if (!isObj(v)) continue
      const itemId = str(v.id, 100)
      const sourceId = str(v.sourceId, 100)
      const rect = readRect(v.rect)
      if (!itemId || itemIds.has(itemId) || !sourceId || !known.has(sourceId) || !rect) continue
      itemIds.add(itemId)
      items.push({ id: itemId, sourceId, rect, visible: v.visible !== false })
    }
    const layout = LAYOUT_KINDS.includes(s.layout as LayoutKind) ? (s.layout as LayoutKind) : null
    scenes.push({
      id,
      name,
      items: items.slice(0, LIMITS.itemsPerScene),
      layout,
      pip: readPip(s.pip),
      mix: readMix(s.mix)
    })
  }
  if (scenes.length === 0) return defaultScenes(canvasAspect)
  const activeId =
    typeof saved.activeId === 'string' && scenes.some((s) => s.id === saved.activeId)
      ? saved.activeId
      : scenes[0]!.id
  return dropUnused({
    version: 2,
    sources,
    scenes,
    activeId,
    transition: readTransition(saved.transition),
    // Settings saved before studio mode: off, the active scene on air.
    studio: saved.studio === true,
    programId:
      typeof saved.programId === 'string' && scenes.some((s) => s.id === saved.programId)
        ? saved.programId
        : activeId
  })
}

// ---- the format before this one --------------------------------------------------------------------
// Until version 2, a scene held its sources inline: the camera and the screen as slots, a title's text
// in the scene, an image as an id into a list of data URLs kept in the settings. migrateScenes turns
// that into today's shape; the data URLs become files through `saveImage` (main writes them into the
// app data folder and answers the file's name; null drops the image). The layout a scene had is found
// once, here, by comparing its pictures with the ready layouts.

/** Today's shape from the format before it (unchecked: readScenes cleans the result). */
export function migrateScenes(
  old: Record<string, unknown>,
  saveImage: (dataUrl: string) => string | null,
  canvasAspect = 16 / 9
): Record<string, unknown> {
  const sources: Record<string, unknown>[] = [{ ...DEFAULT_CAMERA }, { ...DEFAULT_SCREEN }]
  for (const img of Array.isArray(old.images) ? old.images : []) {
    if (!isObj(img) || typeof img.dataUrl !== 'string' || !img.dataUrl.startsWith('data:image/'))
      continue
    const file = saveImage(img.dataUrl)
    if (file)
      sources.push({
        id: img.id,
        kind: 'image',
        name: img.name,
        file,
        width: img.width,
        height: img.height
      })
  }
  const scenes = (Array.isArray(old.scenes) ? old.scenes : []).map((s: unknown) => {
    if (!isObj(s)) return s
    const items = (Array.isArray(s.sources) ? s.sources : []).flatMap((v: unknown) => {
      if (!isObj(v)) return []
      const base = { id: v.id, rect: v.rect, visible: v.hidden !== true }
      switch (v.kind) {
        case 'camera':
          return [{ ...base, sourceId: CAMERA_ID }]
        case 'screen':
          return [{ ...base, sourceId: SCREEN_ID }]
        case 'image':
          return [{ ...base, sourceId: v.imageId }]
        case 'title': {
          // Each title was its own: it becomes a text source of the same id.
          sources.push({ id: `text-${String(v.id)}`, ...readTextSettings(v) })
          return [{ ...base, sourceId: `text-${String(v.id)}` }]
        }
        default:
          return []
      }
    })
    const pip = readPip(s.pip)
    const scene: Scene = {
      id: String(s.id),
      name: String(s.name),
      items: [],
      layout: null,
      pip,
      mix: DEFAULT_MIX
    }
    const typed = items.flatMap((i) => {
      const rect = readRect(i.rect)
      return rect && typeof i.id === 'string' && typeof i.sourceId === 'string'
        ? [{ id: i.id, sourceId: i.sourceId, rect, visible: i.visible }]
        : []
    })
    const { sources: _inline, ...rest } = s
    return { ...rest, items, layout: guessLayout({ ...scene, items: typed }, canvasAspect) }
  })
  return { version: 2, sources, scenes, activeId: old.activeId, transition: DEFAULT_TRANSITION }
}

/** Which ready layout a migrated scene's camera and screen match, if any. */
function guessLayout(scene: Scene, canvasAspect: number): LayoutKind | null {
  const pictures = (s: Scene): Map<string, SceneItem> =>
    new Map(s.items.filter(isPicture).map((i) => [i.sourceId, i]))
  const mine = pictures(scene)
  for (const kind of LAYOUT_KINDS) {
    const shaped = pictures(arrange(scene, kind, canvasAspect))
    const same = [...shaped.values()].every((s) => {
      const m = mine.get(s.sourceId)
      return (
        m &&
        m.visible === s.visible &&
        (!m.visible ||
          (['x', 'y', 'w', 'h'] as const).every((k) => Math.abs(m.rect[k] - s.rect[k]) < 1e-3))
      )
    })
    if (same) return kind
  }
  return null
}

// Scenes: named arrangements of sources on the output canvas, saved in the app's settings. The model
// and its rules live here (pure, no DOM): the renderer composes and edits with it, the settings
// schema validates it, the unit tests check it.
import { FULL, pipRect, sideBySideRects, type Corner, type Rect, CORNERS } from './scene-layout'

export type LayoutKind = 'camera-full' | 'screen-full' | 'pip' | 'side-by-side'

export const LAYOUTS: readonly { kind: LayoutKind; label: string }[] = [
  { kind: 'pip', label: 'Screen + camera corner' },
  { kind: 'camera-full', label: 'Camera full' },
  { kind: 'screen-full', label: 'Screen full' },
  { kind: 'side-by-side', label: 'Side by side' }
]

interface SourceBase {
  id: string
  rect: Rect
  hidden?: boolean
}

export type CameraSource = SourceBase & { kind: 'camera' }
export type ScreenSource = SourceBase & { kind: 'screen' }
export type ImageSource = SourceBase & { kind: 'image'; imageId: string }
export type TitleSource = SourceBase & {
  kind: 'title'
  text: string
  /** Text height in pixels of a 720-line output (scaled with the output). */
  size: number
  /** CSS hex colours. A title without a band is text only. */
  color: string
  band: string | null
}
export type SceneSource = CameraSource | ScreenSource | ImageSource | TitleSource
export type SourceKind = SceneSource['kind']

export interface Scene {
  id: string
  name: string
  /** Sources bottom to top: later ones are drawn over earlier ones. */
  sources: SceneSource[]
  /** The corner and width of the camera picture, for the PiP layout. */
  pip?: { corner: Corner; size: number }
}

/** A picked image, re-encoded as PNG and kept in the app's settings (never uploaded). */
export interface SceneImage {
  id: string
  name: string
  dataUrl: string
  width: number
  height: number
}

export interface ScenesState {
  scenes: Scene[]
  activeId: string
  images: SceneImage[]
}

export const LIMITS = {
  scenes: 20,
  sourcesPerScene: 12,
  images: 6,
  nameLength: 60,
  titleLength: 200,
  /** The re-encoded image as a data URL (characters): about 1.8 MB of PNG or JPEG. */
  imageDataUrl: 2_500_000,
  /** A picked file larger than this is refused before it is read. */
  imageFileBytes: 20 * 1024 * 1024,
  /** Images are scaled down to fit this box before they are kept. */
  imageMaxWidth: 1280,
  imageMaxHeight: 720,
  titleSize: { min: 12, max: 160 }
} as const

export const DEFAULT_TITLE: Omit<TitleSource, 'id' | 'rect'> = {
  kind: 'title',
  text: 'Your title here',
  size: 40,
  color: '#ffffff',
  band: '#c81e3c'
}

/** A lower third: a band across the bottom-left of the picture. */
export const TITLE_RECT: Rect = { x: 0.04, y: 0.78, w: 0.6, h: 0.1 }

export const newId = (prefix: string): string =>
  `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`

/**
 * Arranges the camera and screen of a scene in a ready layout. Images and titles stay where they are,
 * above the pictures; a camera or screen the layout does not use is hidden, not deleted.
 */
export function applyLayout(
  scene: Scene,
  layout: LayoutKind,
  canvasAspect: number,
  pip: { corner: Corner; size: number } = scene.pip ?? { corner: 'bottom-right', size: 0.28 }
): Scene {
  const keep = scene.sources.filter((s) => s.kind !== 'camera' && s.kind !== 'screen')
  const cam = scene.sources.find((s) => s.kind === 'camera')?.id ?? newId('cam')
  const scr = scene.sources.find((s) => s.kind === 'screen')?.id ?? newId('scr')
  const camera = (rect: Rect, hidden = false): CameraSource => ({
    id: cam,
    kind: 'camera',
    rect,
    ...(hidden ? { hidden } : {})
  })
  const screen = (rect: Rect, hidden = false): ScreenSource => ({
    id: scr,
    kind: 'screen',
    rect,
    ...(hidden ? { hidden } : {})
  })
  let pictures: SceneSource[]
  switch (layout) {
    case 'camera-full':
      pictures = [screen(FULL, true), camera(FULL)]
      break
    case 'screen-full':
      pictures = [screen(FULL), camera(pipRect(pip.corner, pip.size, canvasAspect), true)]
      break
    case 'pip':
      pictures = [screen(FULL), camera(pipRect(pip.corner, pip.size, canvasAspect))]
      break
    case 'side-by-side': {
      const [l, r] = sideBySideRects()
      pictures = [screen(l), camera(r)]
      break
    }
  }
  return { ...scene, sources: [...pictures, ...keep], pip }
}

/** Which ready layout a scene's pictures match, if any (for showing the picked layout). */
export function layoutOf(scene: Scene, canvasAspect: number): LayoutKind | null {
  for (const { kind } of LAYOUTS) {
    const shaped = applyLayout(scene, kind, canvasAspect)
    const same = shaped.sources.every((s) => {
      const mine = scene.sources.find((m) => m.id === s.id)
      return (
        mine &&
        !!mine.hidden === !!s.hidden &&
        (mine.hidden || Object.values(mine.rect).every((v, i) => near(v, Object.values(s.rect)[i])))
      )
    })
    if (same) return kind
  }
  return null
}

const near = (a: number, b: number | undefined): boolean =>
  b !== undefined && Math.abs(a - b) < 1e-3

/** The scenes a first-time creator starts with: the everyday ones, ready to go. */
export function defaultScenes(canvasAspect = 16 / 9): ScenesState {
  const blank = (name: string): Scene => ({ id: newId('scene'), name, sources: [] })
  const scenes = [
    applyLayout(blank('Screen + camera'), 'pip', canvasAspect),
    applyLayout(blank('Camera'), 'camera-full', canvasAspect),
    applyLayout(blank('Screen'), 'screen-full', canvasAspect),
    applyLayout(blank('Side by side'), 'side-by-side', canvasAspect)
  ]
  return { scenes, activeId: scenes[0]!.id, images: [] }
}

// ---- reading saved scenes -------------------------------------------------------------------------
// Settings are JSON a newer or older Onair (or a hand edit) may have written: whatever does not fit is
// dropped piece by piece, and the rest kept, rather than losing every scene for one bad field.

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

function readSource(v: unknown, imageIds: Set<string>): SceneSource | null {
  if (!isObj(v)) return null
  const id = str(v.id, 100)
  const rect = readRect(v.rect)
  if (!id || !rect) return null
  const base = { id, rect, ...(v.hidden === true ? { hidden: true } : {}) }
  switch (v.kind) {
    case 'camera':
    case 'screen':
      return { ...base, kind: v.kind }
    case 'image': {
      const imageId = str(v.imageId, 100)
      return imageId && imageIds.has(imageId) ? { ...base, kind: 'image', imageId } : null
    }
    case 'title': {
      const text = typeof v.text === 'string' ? v.text.slice(0, LIMITS.titleLength) : ''
      const size = num(v.size, LIMITS.titleSize.min, LIMITS.titleSize.max) ?? DEFAULT_TITLE.size
      const color = typeof v.color === 'string' && COLOR.test(v.color) ? v.color : '#ffffff'
      const band = typeof v.band === 'string' && COLOR.test(v.band) ? v.band : null
      return { ...base, kind: 'title', text, size, color, band }
    }
    default:
      return null
  }
}

function readImage(v: unknown): SceneImage | null {
  if (!isObj(v)) return null
  const id = str(v.id, 100)
  const name = str(v.name, 300) ?? 'image'
  const dataUrl = str(v.dataUrl, LIMITS.imageDataUrl)
  const width = num(v.width, 1, 10_000)
  const height = num(v.height, 1, 10_000)
  if (!id || !dataUrl || !dataUrl.startsWith('data:image/') || !width || !height) return null
  return { id, name, dataUrl, width, height }
}

/** Saved scenes, cleaned; no saved scenes (or nothing usable) gives the default set. */
export function readScenes(saved: unknown, canvasAspect = 16 / 9): ScenesState {
  if (!isObj(saved) || !Array.isArray(saved.scenes)) return defaultScenes(canvasAspect)
  const images = (Array.isArray(saved.images) ? saved.images : [])
    .map(readImage)
    .filter((i): i is SceneImage => i !== null)
    .slice(0, LIMITS.images)
  const imageIds = new Set(images.map((i) => i.id))
  const seen = new Set<string>()
  const scenes: Scene[] = []
  for (const s of saved.scenes.slice(0, LIMITS.scenes)) {
    if (!isObj(s)) continue
    const id = str(s.id, 100)
    if (!id || seen.has(id)) continue
    seen.add(id)
    const name = (str(s.name, LIMITS.nameLength) ?? 'Scene').trim() || 'Scene'
    const sources = (Array.isArray(s.sources) ? s.sources : [])
      .map((src) => readSource(src, imageIds))
      .filter((src): src is SceneSource => src !== null)
      .slice(0, LIMITS.sourcesPerScene)
    const pip =
      isObj(s.pip) && CORNERS.includes(s.pip.corner as Corner) && num(s.pip.size, 0.05, 1) !== null
        ? { corner: s.pip.corner as Corner, size: s.pip.size as number }
        : undefined
    scenes.push({ id, name, sources, ...(pip ? { pip } : {}) })
  }
  if (scenes.length === 0) return defaultScenes(canvasAspect)
  const activeId =
    typeof saved.activeId === 'string' && scenes.some((s) => s.id === saved.activeId)
      ? saved.activeId
      : scenes[0]!.id
  // Images no scene uses any more are not kept.
  const used = new Set(
    scenes.flatMap((s) => s.sources.flatMap((src) => (src.kind === 'image' ? [src.imageId] : [])))
  )
  return { scenes, activeId, images: images.filter((i) => used.has(i.id)) }
}

/** The scene with the id, or the first (there is always one). */
export const activeScene = (state: ScenesState): Scene =>
  state.scenes.find((s) => s.id === state.activeId) ?? state.scenes[0]!

/** Replaces one scene by id. */
export const withScene = (state: ScenesState, scene: Scene): ScenesState => ({
  ...state,
  scenes: state.scenes.map((s) => (s.id === scene.id ? scene : s))
})

/** Which capture devices the scenes need at all (the camera is not opened for screen-only scenes). */
export function needs(scene: Scene): { camera: boolean; screen: boolean } {
  const shown = scene.sources.filter((s) => !s.hidden)
  return {
    camera: shown.some((s) => s.kind === 'camera'),
    screen: shown.some((s) => s.kind === 'screen')
  }
}

/**
 * The share of the output size the camera needs to be captured at for these scenes: 1, or 1/2 when
 * every visible camera box is at most half the output's width (a picture-in-picture). The camera is
 * then asked for a quarter of the pixels, which its driver scales down once, instead of a full frame
 * being converted on every frame only to be drawn small. Scenes with no camera need nothing (0).
 */
export function cameraCaptureScale(scenes: readonly Scene[]): number {
  let widest = 0
  for (const scene of scenes)
    for (const s of scene.sources)
      // The camera's picture has the output's shape; contained in its box, its width is the box's
      // width or the box's height, whichever is smaller (both as fractions of the output).
      if (s.kind === 'camera' && !s.hidden) widest = Math.max(widest, Math.min(s.rect.w, s.rect.h))
  if (widest === 0) return 0
  return widest <= 0.5 + 1e-9 ? 0.5 : 1
}

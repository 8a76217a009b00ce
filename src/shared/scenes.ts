// Scenes, shaped like OBS's: sources are defined once (each camera with its device, each screen or
// window with its own capture, each image, each text, each video) with their own settings; a scene is a list of items, bottom to top, each pointing at a source with a
// rect, a visibility and its place in the list; the layout a scene was arranged with is stored with
// it; a scene change goes through a transition (a kind and a duration). Every change is a pure
// reducer here (state in, state out): the panels only show the state and call them. Saved scenes are
// read back (and migrated from the format before) in scenes-saved.ts. No DOM, no Node.
import { FULL, pipRect, sideBySideRects, type Corner, type Rect } from './scene-layout'
import { DEFAULT_SOURCE_AUDIO, MAX_GAIN, type ChannelLevel, type SourceAudio } from './audio'

export { MAX_GAIN, type ChannelLevel }

export type SceneSourceKind = 'camera' | 'screen' | 'image' | 'text' | 'video' | 'browser'

/**
 * A camera: a device of its own. Sources showing the same device share one capture (captureKey). The
 * first camera (CAMERA_ID) is the one the ready layouts arrange.
 */
export interface CameraSource {
  id: string
  kind: 'camera'
  name: string
  /** The device (MediaDeviceInfo.deviceId); null: the camera chosen in the device settings. */
  videoDeviceId: string | null
}
/** A screen or window: each screen source is its own capture, shared (getDisplayMedia) on a click. */
export interface ScreenSource {
  id: string
  kind: 'screen'
  name: string
  /**
   * A screen added after the first: its sound's level, mute and chain, a channel of its own in the
   * mixer while a scene on air shows it and its share has sound (none saved: 100 %, unmuted, the
   * default chain). The first screen's are the scene's mix and the audio settings' (shared/audio.ts).
   */
  sound?: SourceSound
}
/** An added screen's sound, kept with its source (as a video file's level, mute and chain are). */
export interface SourceSound extends ChannelLevel {
  audio: SourceAudio
}
export const DEFAULT_SOUND: SourceSound = { gain: 1, muted: false, audio: DEFAULT_SOURCE_AUDIO }
/** A picked image, re-encoded and kept as a content-addressed file in the app's data folder. */
export interface ImageSource {
  id: string
  kind: 'image'
  name: string
  /** `<sha256>.png` or `<sha256>.jpg` (IMAGE_FILE), read back with the readSceneImage call. */
  file: string
  width: number
  height: number
}
export interface TextSource {
  id: string
  kind: 'text'
  text: string
  /** Text height in pixels of a 720-line output (scaled with the output). */
  size: number
  /** CSS hex colours. A text without a band is text only. */
  color: string
  band: string | null
}
/**
 * A picked video file, played muted-by-default and looped. The file's bytes stay in the page (a blob:
 * URL held by the renderer, never saved): after a restart the source is kept and asks for its file again.
 */
export interface VideoSource {
  id: string
  kind: 'video'
  name: string
  width: number
  height: number
  /** Its sound, a source of its own in the mixer: muted until the creator turns it on. */
  muted: boolean
  /** Linear gain, 0..MAX_GAIN. */
  gain: number
  /** Its chain in the mixer (gain in dB, compressor, limiter, sync offset, monitoring), as every source's. */
  audio: SourceAudio
}
/**
 * A web page drawn as a source (OBS's browser source: alerts, chat, overlays), at a page size of its
 * own in CSS pixels with a transparent background. Only the desktop app can render one (an offscreen
 * window in main, browser-sources.ts); the web shell keeps it in the scene and says so.
 */
export interface BrowserSource {
  id: string
  kind: 'browser'
  name: string
  /** An http(s) address (browserUrl). */
  url: string
  width: number
  height: number
  /** Frames a second the page is painted at (1..BROWSER_MAX_FPS). */
  fps: number
}
export type SceneSource =
  | CameraSource
  | ScreenSource
  | ImageSource
  | TextSource
  | VideoSource
  | BrowserSource

/** One source placed in one scene. Items are kept bottom to top: later ones are drawn over earlier ones. */
export interface SceneItem {
  id: string
  sourceId: string
  rect: Rect
  visible: boolean
}

export type LayoutKind = 'camera-full' | 'screen-full' | 'pip' | 'side-by-side'

export interface Pip {
  corner: Corner
  /** The camera's width as a fraction of the output's. */
  size: number
}

/** The audio channels of the mix: the microphone and the screen's sound. */
export const MIX_CHANNELS = ['mic', 'screen'] as const
export type MixChannelId = (typeof MIX_CHANNELS)[number]

/** A scene's mixer settings: each channel's level and mute, applied when the scene goes on air. */
export type SceneMix = Record<MixChannelId, ChannelLevel>

export interface Scene {
  id: string
  name: string
  items: SceneItem[]
  /** The ready layout the camera and the screen were last arranged in; null once moved by hand. */
  layout: LayoutKind | null
  /** The corner and width of the camera picture, for the PiP layout. */
  pip: Pip
  /** The mixer's levels and mutes in this scene. */
  mix: SceneMix
}

export type TransitionKind = 'dissolve' | 'cut'

export interface Transition {
  kind: TransitionKind
  durationMs: number
}

export interface ScenesState {
  version: 2
  /** Every source, once: the scenes' items point at them by id. */
  sources: SceneSource[]
  scenes: Scene[]
  /** The scene the editor shows: in studio mode the preview, else the scene on air too. */
  activeId: string
  transition: Transition
  /** Studio mode: picks and edits act on the preview (activeId); `transitionToProgram` puts it on air. */
  studio: boolean
  /** The scene on air in studio mode (onAirScene); without it the active scene is on air. */
  programId: string
}

export const LAYOUTS: readonly { kind: LayoutKind; label: string }[] = [
  { kind: 'pip', label: 'Screen + camera corner' },
  { kind: 'camera-full', label: 'Camera full' },
  { kind: 'screen-full', label: 'Screen full' },
  { kind: 'side-by-side', label: 'Side by side' }
]
export const LAYOUT_KINDS = ['camera-full', 'screen-full', 'pip', 'side-by-side'] as const
export const TRANSITION_KINDS = ['dissolve', 'cut'] as const

export const TRANSITIONS: readonly { kind: TransitionKind; label: string }[] = [
  { kind: 'dissolve', label: 'Dissolve' },
  { kind: 'cut', label: 'Cut' }
]

/** Today's scene change: a 300 ms dissolve. */
export const DEFAULT_TRANSITION: Transition = { kind: 'dissolve', durationMs: 300 }
export const DEFAULT_PIP: Pip = { corner: 'bottom-right', size: 0.28 }
/** Every channel at its own level, none muted (also what a scene saved before mixes were kept gets). */
export const DEFAULT_MIX: SceneMix = {
  mic: { gain: 1, muted: false },
  screen: { gain: 1, muted: false }
}

/**
 * The first camera and the first screen: every scene can show them, the ready layouts arrange them,
 * and they are never dropped (scenes saved when there was one of each have only these).
 */
export const CAMERA_ID = 'camera'
export const SCREEN_ID = 'screen'
export const DEFAULT_CAMERA: CameraSource = {
  id: CAMERA_ID,
  kind: 'camera',
  name: 'Camera',
  videoDeviceId: null
}
export const DEFAULT_SCREEN: ScreenSource = {
  id: SCREEN_ID,
  kind: 'screen',
  name: 'Screen or window'
}

export const LIMITS = {
  scenes: 20,
  itemsPerScene: 12,
  /** Image and text sources together (cameras and screens come on top): one per item at most. */
  sources: 20 * 12,
  /** Camera sources, the first included (several may show one device). */
  cameras: 4,
  /** Screen or window sources, the first included. */
  screens: 4,
  images: 6,
  videos: 4,
  browsers: 4,
  nameLength: 60,
  /** A browser source's address. */
  urlLength: 2000,
  /** A browser source's page, in CSS pixels (OBS's default is 800x600). */
  browserWidth: { min: 16, max: 1920 },
  browserHeight: { min: 16, max: 1080 },
  textLength: 200,
  /** The re-encoded image file: about what a 2.5 MB data URL held before. */
  imageBytes: 1_875_000,
  /** A picked file larger than this is refused before it is read. */
  imageFileBytes: 20 * 1024 * 1024,
  /** Images are scaled down to fit this box before they are kept. */
  imageMaxWidth: 1280,
  imageMaxHeight: 720,
  textSize: { min: 12, max: 160 },
  transitionMs: 5000
} as const

/** An image file's name: its content's sha256 and its type, nothing else (safe on every OS). */
export const IMAGE_FILE = /^[0-9a-f]{64}\.(png|jpg)$/

export const DEFAULT_TEXT: Omit<TextSource, 'id'> = {
  kind: 'text',
  text: 'Your title here',
  size: 40,
  color: '#ffffff',
  band: '#c81e3c'
}

/** A lower third: a band across the bottom-left of the picture. */
export const TITLE_RECT: Rect = { x: 0.04, y: 0.78, w: 0.6, h: 0.1 }

export const newId = (prefix: string): string =>
  `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`

// ---- reading a scene ------------------------------------------------------------------------------

/** A visible item with its source: what is drawn, bottom to top. */
export interface Layer {
  itemId: string
  rect: Rect
  source: SceneSource
}

export const sourceOf = (state: ScenesState, id: string): SceneSource | undefined =>
  state.sources.find((s) => s.id === id)

/** The scene's items with their sources, bottom to top (hidden ones included, for the editor). */
export function itemsOf(
  state: ScenesState,
  scene: Scene
): { item: SceneItem; source: SceneSource }[] {
  return scene.items.flatMap((item) => {
    const source = sourceOf(state, item.sourceId)
    return source ? [{ item, source }] : []
  })
}

/** What the scene draws: its visible items with their sources, bottom to top. */
export function layersOf(state: ScenesState, scene: Scene): Layer[] {
  return itemsOf(state, scene).flatMap(({ item, source }) =>
    item.visible ? [{ itemId: item.id, rect: item.rect, source }] : []
  )
}

/** Whether a scene (as its layers) shows a kind of source: the one place this is asked. */
export const showsKind = (layers: readonly Layer[], kind: SceneSourceKind): boolean =>
  layers.some((l) => l.source.kind === kind)

/** The scene with the id, or the first (there is always one). */
export const activeScene = (state: ScenesState): Scene =>
  state.scenes.find((s) => s.id === state.activeId) ?? state.scenes[0]!

/** The scene on air (the program): in studio mode programId's, else the active scene. */
export const onAirScene = (state: ScenesState): Scene =>
  (state.studio && state.scenes.find((s) => s.id === state.programId)) || activeScene(state)

/**
 * The device a camera source shows: its own, or else the Devices camera (`devicesCamera`: the one
 * chosen in the device settings, or the device the default camera turned out to be once it opened).
 * undefined: the default camera, before its device is known.
 */
export const cameraDevice = (source: CameraSource, devicesCamera?: string): string | undefined =>
  source.videoDeviceId ?? (devicesCamera || undefined)

/**
 * The capture a camera or screen source is drawn from: a camera's is its device, named by its id
 * (cameraDevice: a source following the Devices camera and one that picked that same device share
 * one capture, as do scenes showing it; '' is the default camera before its device is known), a
 * screen's its own. Other sources have none.
 */
export type CaptureKey = `camera:${string}` | `screen:${string}`
export function captureKey(source: SceneSource, devicesCamera?: string): CaptureKey | null {
  if (source.kind === 'camera') return `camera:${cameraDevice(source, devicesCamera) ?? ''}`
  if (source.kind === 'screen') return `screen:${source.id}`
  return null
}

/**
 * The layers with each camera that follows the Devices camera given that device (when known), so the
 * compositor draws it from the one capture of that device (captureKey without a devicesCamera).
 */
export function withDevicesCamera(layers: Layer[], devicesCamera?: string): Layer[] {
  if (!devicesCamera) return layers
  return layers.map((l) =>
    l.source.kind === 'camera' && l.source.videoDeviceId === null
      ? { ...l, source: { ...l.source, videoDeviceId: devicesCamera } }
      : l
  )
}

/** Which cameras and screens a scene shows (a device is not opened for a scene that does not show it). */
export function needs(
  state: ScenesState,
  scene: Scene
): { cameras: CameraSource[]; screens: ScreenSource[] } {
  const cameras: CameraSource[] = []
  const screens: ScreenSource[] = []
  for (const { source } of layersOf(state, scene)) {
    if (source.kind === 'camera' && !cameras.includes(source)) cameras.push(source)
    if (source.kind === 'screen' && !screens.includes(source)) screens.push(source)
  }
  return { cameras, screens }
}

/**
 * The share of the output size a camera needs to be captured at for the scenes on air (as their
 * layers): 1, or 1/2 when every visible box of that camera (`key`, a captureKey; every camera when
 * not given) is at most half the output's width (a picture-in-picture). The camera is then asked for
 * a quarter of the pixels, which its driver scales down once, instead of a full frame being converted
 * on every frame only to be drawn small. Scenes that do not show it need nothing (0).
 */
export function cameraCaptureScale(onAir: readonly (readonly Layer[])[], key?: string): number {
  let widest = 0
  for (const layers of onAir)
    for (const l of layers)
      // The camera's picture has the output's shape; contained in its box, its width is the box's
      // width or the box's height, whichever is smaller (both as fractions of the output).
      if (l.source.kind === 'camera' && (key === undefined || captureKey(l.source) === key))
        widest = Math.max(widest, Math.min(l.rect.w, l.rect.h))
  if (widest === 0) return 0
  return widest <= 0.5 + 1e-9 ? 0.5 : 1
}

/** How long a change from one scene to another takes (0 for a cut). */
export const transitionMs = (t: Transition): number => (t.kind === 'cut' ? 0 : t.durationMs)

/** Whether another image can be added (the panel says why not before a file is read). */
export const canAddImage = (state: ScenesState): boolean =>
  state.sources.filter((s) => s.kind === 'image').length < LIMITS.images
export const canAddVideo = (state: ScenesState): boolean =>
  state.sources.filter((s) => s.kind === 'video').length < LIMITS.videos
export const canAddBrowser = (state: ScenesState): boolean =>
  state.sources.filter((s) => s.kind === 'browser').length < LIMITS.browsers
export const canAddCamera = (state: ScenesState): boolean =>
  state.sources.filter((s) => s.kind === 'camera').length < LIMITS.cameras
export const canAddScreen = (state: ScenesState): boolean =>
  state.sources.filter((s) => s.kind === 'screen').length < LIMITS.screens

// ---- reducers: state in, state out ---------------------------------------------------------------

const mapScene = (state: ScenesState, id: string, fn: (s: Scene) => Scene): ScenesState => ({
  ...state,
  scenes: state.scenes.map((s) => (s.id === id ? fn(s) : s))
})
const mapActive = (state: ScenesState, fn: (s: Scene) => Scene): ScenesState =>
  mapScene(state, activeScene(state).id, fn)

/** Sources no scene uses any more are dropped; the first camera and the first screen stay. */
export function dropUnused(state: ScenesState): ScenesState {
  const used = new Set(state.scenes.flatMap((s) => s.items.map((i) => i.sourceId)))
  const keep = state.sources.filter(
    (s) => s.id === CAMERA_ID || s.id === SCREEN_ID || used.has(s.id)
  )
  return keep.length === state.sources.length ? state : { ...state, sources: keep }
}

/** An item of the first camera or the first screen: the pictures the ready layouts arrange. */
export const isPicture = (item: SceneItem): boolean =>
  item.sourceId === CAMERA_ID || item.sourceId === SCREEN_ID

/**
 * Arranges the first camera and the first screen of a scene in a ready layout. Other sources (more
 * cameras and screens, images, texts) stay where they are, above them; a camera or screen the layout
 * does not use is hidden, not deleted.
 */
export function arrange(
  scene: Scene,
  layout: LayoutKind,
  canvasAspect: number,
  pip: Pip = scene.pip
): Scene {
  const byId = new Map(scene.items.map((i) => [i.sourceId, i]))
  const keep = scene.items.filter((i) => !isPicture(i))
  const item = (sourceId: string, prefix: string, rect: Rect, visible = true): SceneItem => ({
    id: byId.get(sourceId)?.id ?? newId(prefix),
    sourceId,
    rect,
    visible
  })
  const camera = (rect: Rect, visible = true): SceneItem => item(CAMERA_ID, 'cam', rect, visible)
  const screen = (rect: Rect, visible = true): SceneItem => item(SCREEN_ID, 'scr', rect, visible)
  let pictures: SceneItem[]
  switch (layout) {
    case 'camera-full':
      pictures = [screen(FULL, false), camera(FULL)]
      break
    case 'screen-full':
      pictures = [screen(FULL), camera(pipRect(pip.corner, pip.size, canvasAspect), false)]
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
  return { ...scene, items: [...pictures, ...keep], layout, pip }
}

/** Puts the active scene in a ready layout (with a PiP corner and size, for the PiP). */
export const applyLayout = (
  state: ScenesState,
  layout: LayoutKind,
  canvasAspect: number,
  pip?: Pip
): ScenesState => mapActive(state, (s) => arrange(s, layout, canvasAspect, pip))

/** Picks a scene: on air at once, or in studio mode into the preview (the program stays on air). */
export const switchScene = (state: ScenesState, id: string): ScenesState =>
  state.scenes.some((s) => s.id === id)
    ? { ...state, activeId: id, programId: state.studio ? onAirScene(state).id : id }
    : state

/**
 * Studio mode on: the scene on air stays on air as the program, and the preview starts as it. Off:
 * the program stays on air and becomes the active scene (nothing on the broadcast changes).
 */
export function setStudioMode(state: ScenesState, on: boolean): ScenesState {
  const program = onAirScene(state).id
  return on
    ? { ...state, studio: true, programId: program }
    : { ...state, studio: false, activeId: program, programId: program }
}

/** Studio mode's Transition: the preview goes on air (through the transition); the preview stays. */
export const transitionToProgram = (state: ScenesState): ScenesState =>
  state.studio ? { ...state, programId: activeScene(state).id } : state

/** A new scene (screen with the camera in the corner), made the active one. */
export function addScene(state: ScenesState, canvasAspect: number): ScenesState {
  if (state.scenes.length >= LIMITS.scenes) return state
  const blank: Scene = {
    id: newId('scene'),
    name: `Scene ${state.scenes.length + 1}`,
    items: [],
    layout: null,
    pip: DEFAULT_PIP,
    mix: DEFAULT_MIX
  }
  const fresh = arrange(blank, 'pip', canvasAspect)
  return { ...state, scenes: [...state.scenes, fresh], activeId: fresh.id }
}

/** Deletes the active scene (never the last one); the first scene becomes the active one. */
export function deleteScene(state: ScenesState): ScenesState {
  const rest = state.scenes.filter((s) => s.id !== activeScene(state).id)
  if (!rest.length) return state
  const programId = rest.some((s) => s.id === state.programId) ? state.programId : rest[0]!.id
  return dropUnused({ ...state, scenes: rest, activeId: rest[0]!.id, programId })
}

/** Renames the active scene as typed; `done` (the field left) turns a blank name into "Scene". */
export const renameScene = (state: ScenesState, name: string, done = false): ScenesState =>
  mapActive(state, (s) => ({
    ...s,
    name: done && !name.trim() ? 'Scene' : name.slice(0, LIMITS.nameLength)
  }))

/** A mixer channel's level or mute changed in the active scene (the gain kept within 0..MAX_GAIN). */
export const setChannel = (
  state: ScenesState,
  channel: MixChannelId,
  patch: Partial<ChannelLevel>
): ScenesState =>
  mapActive(state, (s) => {
    const next = { ...s.mix[channel], ...patch }
    const gain = Number.isFinite(next.gain) ? Math.min(MAX_GAIN, Math.max(0, next.gain)) : 1
    return { ...s, mix: { ...s.mix, [channel]: { gain, muted: next.muted } } }
  })

/** A new PiP corner or size: the active scene goes to the PiP layout with it. */
export const setPip = (state: ScenesState, pip: Pip, canvasAspect: number): ScenesState =>
  applyLayout(state, 'pip', canvasAspect, pip)

/** An item moved or resized by hand; moving the camera or the screen leaves the ready layout. */
export const moveItem = (state: ScenesState, itemId: string, rect: Rect): ScenesState =>
  mapActive(state, (s) => {
    const item = s.items.find((i) => i.id === itemId)
    if (!item) return s
    return {
      ...s,
      items: s.items.map((i) => (i.id === itemId ? { ...i, rect } : i)),
      layout: isPicture(item) ? null : s.layout
    }
  })

/** Shows or hides an item; the camera or the screen shown or hidden by hand leaves the ready layout. */
export const setItemVisible = (state: ScenesState, itemId: string, visible: boolean): ScenesState =>
  mapActive(state, (s) => {
    const item = s.items.find((i) => i.id === itemId)
    if (!item || item.visible === visible) return s
    return {
      ...s,
      items: s.items.map((i) => (i.id === itemId ? { ...i, visible } : i)),
      layout: isPicture(item) ? null : s.layout
    }
  })

/** Removes an item from the active scene; its image or text goes too when no scene uses it. */
export const removeItem = (state: ScenesState, itemId: string): ScenesState =>
  dropUnused(mapActive(state, (s) => ({ ...s, items: s.items.filter((i) => i.id !== itemId) })))

const roomFor = (scene: Scene): boolean => scene.items.length < LIMITS.itemsPerScene

function addItem(state: ScenesState, source: SceneSource, rect: Rect): ScenesState {
  if (!roomFor(activeScene(state))) return state
  const item: SceneItem = { id: newId('item'), sourceId: source.id, rect, visible: true }
  return mapActive({ ...state, sources: [...state.sources, source] }, (s) => ({
    ...s,
    items: [...s.items, item]
  }))
}

/**
 * Another camera on top of the active scene, showing a device of its own (null: the one chosen in the
 * settings): the first one added on the right half (as side by side), the next on the left, and so on.
 */
export function addCamera(
  state: ScenesState,
  camera: { name: string; videoDeviceId: string | null },
  id = newId('camera')
): ScenesState {
  if (!canAddCamera(state)) return state
  const name = camera.name.trim().slice(0, LIMITS.nameLength) || 'Camera'
  const source: CameraSource = { id, kind: 'camera', name, videoDeviceId: camera.videoDeviceId }
  const added = state.sources.filter((s) => s.kind === 'camera' && s.id !== CAMERA_ID).length
  return addItem(state, source, sideBySideRects()[added % 2 === 0 ? 1 : 0])
}

/** Another screen or window on top of the active scene, on the left half; it is shared on a click. */
export function addScreen(state: ScenesState, id = newId('screen')): ScenesState {
  if (!canAddScreen(state)) return state
  const n = state.sources.filter((s) => s.kind === 'screen').length + 1
  return addItem(state, { id, kind: 'screen', name: `Screen ${n}` }, sideBySideRects()[0])
}

/** Renames a camera, screen, image or video source as typed; `done` turns a blank name into its kind's. */
export const renameSource = (
  state: ScenesState,
  sourceId: string,
  name: string,
  done = false
): ScenesState => ({
  ...state,
  sources: state.sources.map((s) => {
    if (s.id !== sourceId || s.kind === 'text') return s
    const blank = s.kind === 'camera' ? 'Camera' : s.kind === 'screen' ? 'Screen' : s.kind
    return { ...s, name: done && !name.trim() ? blank : name.slice(0, LIMITS.nameLength) }
  })
})

/** Which device a camera source shows (null: the one chosen in the settings). */
export const setCameraDevice = (
  state: ScenesState,
  sourceId: string,
  videoDeviceId: string | null
): ScenesState => ({
  ...state,
  sources: state.sources.map((s) =>
    s.id === sourceId && s.kind === 'camera' ? { ...s, videoDeviceId } : s
  )
})

/** A new text (a lower third) on top of the active scene. */
export const addText = (state: ScenesState): ScenesState =>
  addItem(state, { id: newId('text'), ...DEFAULT_TEXT }, TITLE_RECT)

/** How far each further image is placed from the one before (down and to the left). */
export const IMAGE_STEP = 0.05

/**
 * A saved image file on top of the active scene, top right, about a fifth of the height. An image
 * already there is not covered: each image the scene has moves the new one a step down and to the
 * left (within the picture).
 */
export function addImage(
  state: ScenesState,
  image: Omit<ImageSource, 'id' | 'kind'>,
  canvasAspect: number
): ScenesState {
  if (!canAddImage(state)) return state
  const w = Math.min(0.25, (0.2 * image.width) / image.height / canvasAspect)
  const h = Math.min(1, (w * canvasAspect * image.height) / image.width)
  const images = itemsOf(state, activeScene(state)).filter((x) => x.source.kind === 'image').length
  const step = IMAGE_STEP * images
  const rect = {
    x: Math.max(0, 1 - w - 0.03 - step),
    y: Math.min(1 - h, 0.05 + step),
    w,
    h
  }
  return addItem(state, { id: newId('image'), kind: 'image', ...image }, rect)
}

/**
 * A picked video on top of the active scene: centred, half the output's width (less if it is tall),
 * its own shape kept. Its sound starts muted at gain 1.
 */
export function addVideo(
  state: ScenesState,
  video: Pick<VideoSource, 'name' | 'width' | 'height'>,
  canvasAspect: number,
  id = newId('video')
): ScenesState {
  if (!canAddVideo(state)) return state
  const shape = video.width / video.height / canvasAspect
  const w = Math.min(0.5, 0.5 * shape)
  const h = w / shape
  const rect = { x: (1 - w) / 2, y: (1 - h) / 2, w, h }
  const source: VideoSource = {
    id,
    kind: 'video',
    ...video,
    muted: true,
    gain: 1,
    audio: DEFAULT_SOURCE_AUDIO
  }
  return addItem(state, source, rect)
}

/** A browser source's page: OBS's default size; painted at 30 frames a second at most. */
export const BROWSER_MAX_FPS = 30
export const DEFAULT_BROWSER = { width: 800, height: 600, fps: BROWSER_MAX_FPS } as const

/**
 * A browser source's address as typed, checked: http or https only (no file:, javascript:, data: or
 * the app's own pages), "example.com/x" taken as https. An error names what is wrong.
 */
export function browserUrl(typed: string): { url: string } | { error: string } {
  const t = typed.trim()
  if (!t) return { error: 'Type the address of the page to show (https://...).' }
  if (t.length > LIMITS.urlLength)
    return { error: `That address is longer than ${LIMITS.urlLength} characters.` }
  // "localhost:3000/x" has a colon but no scheme: only "name:" not followed by a port is one.
  const typedScheme = /^[a-z][a-z0-9+.-]*:/i.test(t) && !/^[^/:]+:\d+(\/|$)/.test(t)
  let u: URL
  try {
    u = new URL(typedScheme ? t : `https://${t}`)
    // A page served on this computer (an overlay tool's) is plain http when no scheme was typed.
    if (!typedScheme && /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/.test(u.hostname))
      u = new URL(`http://${t}`)
  } catch {
    return { error: `"${t}" is not a web address.` }
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    return { error: `A browser source shows web pages (http or https), not ${u.protocol} addresses.` }
  if (u.username || u.password)
    return { error: 'Put no user name or password in the address: sign in on the page instead.' }
  return { url: u.href }
}

const clampInt = (v: number, min: number, max: number): number =>
  Math.min(max, Math.max(min, Math.round(Number.isFinite(v) ? v : min)))

/** A browser source's settings, each clamped to what the app takes. */
export function browserSettings(
  b: Pick<BrowserSource, 'url' | 'width' | 'height' | 'fps'> & { name?: string }
): Omit<BrowserSource, 'id' | 'kind'> {
  const host = ((): string => {
    try {
      return new URL(b.url).hostname
    } catch {
      return ''
    }
  })()
  return {
    name: (b.name ?? '').trim().slice(0, LIMITS.nameLength) || host || 'Browser',
    url: b.url,
    width: clampInt(b.width, LIMITS.browserWidth.min, LIMITS.browserWidth.max),
    height: clampInt(b.height, LIMITS.browserHeight.min, LIMITS.browserHeight.max),
    fps: clampInt(b.fps, 1, BROWSER_MAX_FPS)
  }
}

/**
 * A browser source on top of the active scene, at its page's size against a 1280x720 output (so an
 * 800x600 page is drawn at its own pixels on a 720p output), centred, fitting the picture.
 */
export function addBrowser(
  state: ScenesState,
  browser: Pick<BrowserSource, 'url' | 'width' | 'height' | 'fps'> & { name?: string },
  canvasAspect: number,
  id = newId('browser')
): ScenesState {
  if (!canAddBrowser(state)) return state
  const source: BrowserSource = { id, kind: 'browser', ...browserSettings(browser) }
  const fit = Math.min(1, 1280 / source.width, 720 / source.height)
  let w = (source.width * fit) / 1280
  let h = (source.height * fit) / 720
  // A non-16:9 output: keep the page's shape on it.
  h = Math.min(1, (h * (16 / 9)) / canvasAspect)
  w = Math.min(1, w)
  return addItem(state, source, { x: (1 - w) / 2, y: (1 - h) / 2, w, h })
}

/** A browser source's address, page size or frame rate changed (clamped as when it was added). */
export const setBrowser = (
  state: ScenesState,
  sourceId: string,
  patch: Partial<Pick<BrowserSource, 'url' | 'width' | 'height' | 'fps' | 'name'>>
): ScenesState => ({
  ...state,
  sources: state.sources.map((s) =>
    s.id === sourceId && s.kind === 'browser'
      ? { ...s, ...browserSettings({ ...s, ...patch }) }
      : s
  )
})

/**
 * A video's or an added screen's sound: muted or not, its gain (clamped to 0..MAX_GAIN) and its chain
 * (the first screen's are the scene's mix and the audio settings', not changed here).
 */
export const setSourceSound = (
  state: ScenesState,
  sourceId: string,
  patch: Partial<Pick<VideoSource, 'muted' | 'gain' | 'audio'>>
): ScenesState => ({
  ...state,
  sources: state.sources.map((s) => {
    if (s.id !== sourceId || s.id === SCREEN_ID) return s
    const gain = (g: number): number => Math.min(MAX_GAIN, Math.max(0, patch.gain ?? g))
    if (s.kind === 'video')
      return {
        ...s,
        muted: patch.muted ?? s.muted,
        gain: gain(s.gain),
        audio: patch.audio ?? s.audio
      }
    if (s.kind !== 'screen') return s
    // An added screen's sound, kept with it like a video's.
    const was = s.sound ?? DEFAULT_SOUND
    return {
      ...s,
      sound: {
        muted: patch.muted ?? was.muted,
        gain: gain(was.gain),
        audio: patch.audio ?? was.audio
      }
    }
  })
})

/** Edits a text source's settings (every item showing it changes). */
export const editText = (
  state: ScenesState,
  sourceId: string,
  patch: Partial<Omit<TextSource, 'id' | 'kind'>>
): ScenesState => ({
  ...state,
  sources: state.sources.map((s) => {
    if (s.id !== sourceId || s.kind !== 'text') return s
    const next = { ...s, ...patch, text: (patch.text ?? s.text).slice(0, LIMITS.textLength) }
    const size = next.size
    return size >= LIMITS.textSize.min && size <= LIMITS.textSize.max
      ? next
      : { ...next, size: s.size }
  })
})

export const setTransition = (state: ScenesState, transition: Transition): ScenesState => ({
  ...state,
  transition: {
    kind: transition.kind,
    durationMs: Math.min(LIMITS.transitionMs, Math.max(0, Math.round(transition.durationMs)))
  }
})

/** The scenes a first-time creator starts with: the everyday ones, ready to go. */
export function defaultScenes(canvasAspect = 16 / 9): ScenesState {
  const blank = (name: string): Scene => ({
    id: newId('scene'),
    name,
    items: [],
    layout: null,
    pip: DEFAULT_PIP,
    mix: DEFAULT_MIX
  })
  const scenes = [
    arrange(blank('Screen + camera'), 'pip', canvasAspect),
    arrange(blank('Camera'), 'camera-full', canvasAspect),
    arrange(blank('Screen'), 'screen-full', canvasAspect),
    arrange(blank('Side by side'), 'side-by-side', canvasAspect)
  ]
  return {
    version: 2,
    sources: [DEFAULT_CAMERA, DEFAULT_SCREEN],
    scenes,
    activeId: scenes[0]!.id,
    transition: DEFAULT_TRANSITION,
    studio: false,
    programId: scenes[0]!.id
  }
}

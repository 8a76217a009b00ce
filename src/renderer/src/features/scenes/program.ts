// The program: what a scene broadcast sends. It owns the captures (each camera device once, however
// many sources and scenes show it; each screen source's own share; the microphone), the compositor
// (video) and the mix (audio), and gives one MediaStream whose two tracks never change while it lives:
// switching scenes, editing a title, sharing another screen or muting the microphone all happen inside
// it, so the recorder, the ffmpeg behind it and the RTMP connection never notice.
import type { OutputSettings } from '../../../../shared/contract'
import {
  DEFAULT_SOUND,
  SCREEN_ID,
  cameraCaptureScale,
  layersOf,
  onAirScene,
  withDevicesCamera,
  type CaptureKey,
  type Layer,
  type Scene,
  type ScenesState
} from '../../../../shared/scenes'

/** A change to the scenes: a reducer of shared/scenes.ts. */
export type ScenesUpdate = (state: ScenesState) => ScenesState
import { cameraConstraints } from '../../lib/capture'
import { Compositor } from './compositor'
import { frameSource } from './frames'
import { AudioMix } from './mixer'
import { Changes } from './changes'
import { onVideosChange, videoSoundOf } from './video-files'
import { BrowserFrames, pageOf, type BrowserCalls } from './browser-frames'

/**
 * Where a capture goes: 'mic' (audio), or a camera device's or a screen source's captureKey
 * (`camera:<deviceId>`, `screen:<sourceId>`): a camera gives video, a screen share video and its audio
 * where the OS gives it.
 */
export type Slot = 'mic' | CaptureKey

const isCamera = (slot: Slot): slot is `camera:${string}` => slot.startsWith('camera:')
/** The first screen's capture: its sound is the mix's screen channel while it is shared. */
export const FIRST_SCREEN: Slot = `screen:${SCREEN_ID}`

/** Reads a kept picture's bytes by its file name (the readSceneImage call). */
export type ImageLoader = (file: string) => Promise<Uint8Array | null>

export class SceneProgram {
  readonly compositor: Compositor
  readonly mix: AudioMix
  /** The broadcast: the canvas track and the mixed audio track. */
  readonly stream: MediaStream
  private captures = new Map<Slot, MediaStream>()
  private changes = new Changes()
  /** Tells when to read it again (a capture put or emptied; the scene on air or its name). */
  readonly onChange = this.changes.on
  /** Pictures asked for or decoded, by file name: each is read and decoded once. */
  private images = new Set<string>()
  private scene: { id: string; name: string } | null = null
  /** The scenes as last given (by the keeper), before the pending changes. */
  private given: ScenesState | null = null
  /** Who keeps (and saves) the scenes, while the scene editor is open. */
  private keeper: ((update: ScenesUpdate) => void) | null = null
  /** Changes made on the program while no keeper was there, in order: handed to the next one. */
  private pending: ScenesUpdate[] = []
  private output: OutputSettings
  /** The size each camera was last asked for ("1280x720@30"), by its slot. */
  private cameraSize = new Map<Slot, string>()
  private rescale: ReturnType<typeof setTimeout> | undefined
  private readonly loadImage: ImageLoader
  /** The Devices camera's device id (chosen, or the default's once opened): cameras following it show it. */
  private devicesCameraId: string | undefined
  private readonly unwatchVideos: () => void
  /** Main's offscreen pages (browser sources): null where the shell has none, undefined: not drawn. */
  private readonly browserCalls: BrowserCalls | null | undefined

  constructor(output: OutputSettings, loadImage: ImageLoader, browserCalls?: BrowserCalls | null) {
    this.output = output
    this.loadImage = loadImage
    this.browserCalls = browserCalls
    this.compositor = new Compositor(output.width, output.height, output.fps)
    this.mix = new AudioMix()
    this.stream = new MediaStream([this.compositor.track, this.mix.track])
    this.compositor.start()
    // A video picked (or picked again after a restart) brings its sound into the mix.
    this.unwatchVideos = onVideosChange(() => {
      const state = this.scenes
      if (state) this.mixVideos(state)
    })
  }

  /**
   * The sound of each video file and each added screen the scene on air shows (visible), as its own
   * channel of the mix with its source's level, mute and chain (a screen's while its share has sound).
   * A scene that does not show one does not play its sound. The first screen's sound is the mix's
   * screen channel instead (setCapture), with the scene's level.
   */
  private mixVideos(state: ScenesState): void {
    const seen = new Set<string>()
    const videos = layersOf(state, onAirScene(state)).flatMap(({ source: s }) => {
      if (seen.has(s.id)) return []
      seen.add(s.id)
      if (s.kind === 'video') {
        const { id, name: label, gain, muted, audio } = s
        return [{ id, label, gain, muted, audio, stream: videoSoundOf(s.id) }]
      }
      const share =
        s.kind === 'screen' && s.id !== SCREEN_ID ? this.capture(`screen:${s.id}`) : null
      if (s.kind !== 'screen' || !share?.getAudioTracks().length) return []
      const sound = s.sound ?? DEFAULT_SOUND
      return [{ id: s.id, label: s.name, ...sound, kind: 'screen' as const, stream: share }]
    })
    this.mix.setVideos(videos)
  }

  setOutput(output: OutputSettings): void {
    this.output = output
    this.compositor.resize(output.width, output.height, output.fps)
    this.fitCamera()
  }

  private cameraOutput(scale: number): OutputSettings {
    const even = (n: number): number => Math.max(2, 2 * Math.round((n * scale) / 2))
    return { ...this.output, width: even(this.output.width), height: even(this.output.height) }
  }

  /**
   * Shows the state's active scene (through the state's transition from the previous one; `transition`
   * false shows it at once) and loads the pictures its sources name.
   */
  setScenes(state: ScenesState, transition = true): void {
    this.given = state
    // Changes made here that no keeper has had yet stay applied (a mute is never undone).
    this.show(
      this.pending.reduce((s, update) => update(s), state),
      transition
    )
  }

  private show(state: ScenesState, transition: boolean): void {
    const files = new Set(state.sources.flatMap((s) => (s.kind === 'image' ? [s.file] : [])))
    for (const file of files) if (!this.images.has(file)) this.decode(file)
    for (const file of [...this.images])
      if (!files.has(file)) {
        this.images.delete(file)
        this.compositor.images.delete(file)
      }
    this.keepBrowsers(state.sources)
    const before = this.scene
    // The program: in studio mode the scene sent by Transition, never the preview.
    const scene = onAirScene(state)
    this.scene = { id: scene.id, name: scene.name }
    this.compositor.setScene(
      { id: scene.id, layers: this.layersOf(state, scene) },
      transition ? state.transition : null
    )
    this.mix.setLevels(scene.mix)
    this.mixVideos(state)
    this.fitCamera()
    if (before?.id !== scene.id || before.name !== scene.name) this.emit()
  }

  /**
   * Each browser source has its frames in the compositor (framesKey), kept with its page's address,
   * size and rate; a removed source's page is closed. Whether its page is open follows the scenes on
   * screen: the compositor's updateActive opens it while the scene on air, the one dissolving out or
   * the studio-mode preview shows it, and closes it when none does.
   */
  private keepBrowsers(sources: ScenesState['sources']): void {
    const calls = this.browserCalls
    if (!calls) return
    const { frames } = this.compositor
    const kept = new Set<string>()
    for (const s of sources) {
      if (s.kind !== 'browser') continue
      const key = `browser:${s.id}`
      kept.add(key)
      const f = frames.get(key)
      if (f instanceof BrowserFrames) f.setPage(pageOf(s))
      else frames.set(key, new BrowserFrames(calls, s.id, pageOf(s)))
    }
    for (const [key, f] of frames)
      if (key.startsWith('browser:') && !kept.has(key)) {
        f.close()
        frames.delete(key)
      }
  }

  /**
   * What a scene draws, each camera named by its device: a camera following the Devices camera and
   * one that picked that device are drawn from the same capture.
   */
  layersOf(state: ScenesState, scene: Scene): Layer[] {
    return withDevicesCamera(layersOf(state, scene), this.devicesCameraId)
  }

  /** The Devices camera's device (undefined: the default camera, before it opened). */
  get devicesCamera(): string | undefined {
    return this.devicesCameraId
  }

  /** The Devices camera changed (or the default camera's device became known): its followers move. */
  setDevicesCamera(deviceId: string | undefined): void {
    if (deviceId === this.devicesCameraId) return
    this.devicesCameraId = deviceId
    const state = this.scenes
    if (state) this.show(state, false)
    this.emit()
  }

  /**
   * Moves an open camera to another slot without closing it: the default camera's capture, once its
   * device is known, becomes that device's (one device, one capture, never reopened for it).
   */
  moveCapture(from: Slot, to: Slot): void {
    const stream = this.capture(from)
    if (!stream || from === to || !isCamera(from) || !isCamera(to)) return
    // Already open there: the one capture stays, this one closes.
    if (this.capture(to)) return this.setCapture(from, null)
    this.captures.delete(from)
    this.captures.set(to, stream)
    // The same frames go on (the track is read by one reader, never restarted).
    const frames = this.compositor.frames.get(from)
    this.compositor.frames.delete(from)
    if (frames) {
      frames.onFrame = () => this.compositor.cameraFrame(to)
      this.compositor.frames.set(to, frames)
    }
    const size = this.cameraSize.get(from)
    this.cameraSize.delete(from)
    if (size) this.cameraSize.set(to, size)
    this.compositor.updateActive()
    this.fitCamera()
    this.emit()
  }

  /**
   * A change made on the program itself (the mixer, the live bar's mute, on any screen): heard at
   * once, and handed to the keeper of the scenes so it is saved with the scene; with no keeper (the
   * Go live screen closed) it waits for the next one.
   */
  edit(update: ScenesUpdate): void {
    if (!this.given) return
    if (this.keeper) {
      this.keeper(update)
      this.setScenes(update(this.given))
    } else {
      this.pending.push(update)
      this.setScenes(this.given)
    }
  }

  /** The scenes' keeper (the Go live screen's settings): gets the changes waiting for it. */
  keepScenesWith(keeper: (update: ScenesUpdate) => void): () => void {
    this.keeper = keeper
    const waiting = this.pending
    this.pending = []
    for (const update of waiting) keeper(update)
    return () => {
      if (this.keeper === keeper) this.keeper = null
    }
  }

  /** Reads and decodes a picture; it is drawn once decoded (never half-decoded), until then nothing. */
  private decode(file: string): void {
    this.images.add(file)
    void this.loadImage(file)
      .then(async (bytes) => {
        if (!bytes || !this.images.has(file)) return
        const url = URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>]))
        const el = new Image()
        el.src = url
        try {
          await el.decode()
          if (this.images.has(file)) this.compositor.images.set(file, el)
        } finally {
          URL.revokeObjectURL(url)
        }
      })
      .catch(() => this.compositor.images.delete(file))
  }

  /** The scenes as shown now (the kept ones with the changes still waiting for a keeper). */
  get scenes(): ScenesState | null {
    return this.given && this.pending.reduce((s, update) => update(s), this.given)
  }

  /** The scene on the output now. */
  get sceneName(): string | null {
    return this.scene?.name ?? null
  }

  capture(slot: Slot): MediaStream | null {
    return this.captures.get(slot) ?? null
  }

  /** The camera and screen captures open now (their slots). */
  videoSlots(): Slot[] {
    return [...this.captures.keys()].filter((s) => s !== 'mic')
  }

  /**
   * Puts a capture in its slot (replacing and stopping the old one; null closes it). A track that
   * ends (the screen share stopped from the OS bar, a camera unplugged) empties the slot; the
   * broadcast goes on.
   */
  setCapture(slot: Slot, stream: MediaStream | null): void {
    const old = this.capture(slot)
    if (old === stream) return
    old?.getTracks().forEach((t) => t.stop())
    if (stream) this.captures.set(slot, stream)
    else this.captures.delete(slot)
    // Found by its stream: a camera may have moved to another slot since (moveCapture).
    const ended = (): void => {
      const at = [...this.captures].find(([, s]) => s === stream)?.[0]
      if (at) this.setCapture(at, null)
    }
    if (slot !== 'mic') {
      this.compositor.frames.get(slot)?.close()
      const video = stream?.getVideoTracks()[0]
      const frames = video ? frameSource(video, ended) : null
      if (frames && isCamera(slot)) frames.onFrame = () => this.compositor.cameraFrame(slot)
      if (frames) this.compositor.frames.set(slot, frames)
      else this.compositor.frames.delete(slot)
      this.compositor.updateActive()
      if (isCamera(slot)) {
        // A new camera opens at the output's size.
        const o = this.cameraOutput(1)
        if (stream) this.cameraSize.set(slot, `${o.width}x${o.height}@${o.fps}`)
        else this.cameraSize.delete(slot)
        this.fitCamera()
      }
    }
    if (slot === 'mic') {
      this.mix.setInput('mic', stream)
      // A microphone unplugged mid-show: the channel empties, the mix goes on without it.
      stream?.getAudioTracks()[0]?.addEventListener('ended', ended)
    }
    // The first screen's sound is the mix's screen channel; another screen's is its own channel while
    // a scene on air shows it (mixVideos).
    if (slot === FIRST_SCREEN) this.mix.setInput('screen', stream)
    else if (slot.startsWith('screen:') && this.scenes) this.mixVideos(this.scenes)
    this.emit()
  }

  private emit(): void {
    this.changes.emit()
  }

  /**
   * Asks each camera for the size the scene on air (and a scene dissolving out) shows it at: the
   * output's, or half of it for a picture-in-picture. The driver scales it down once, instead of each
   * full frame being converted only to be drawn small. A scene that shows a camera bigger gets it at
   * once; one that shows it smaller once the dissolve is over. A camera that refuses keeps its size.
   */
  private fitCamera(): void {
    clearTimeout(this.rescale)
    if (!this.scene) return
    // During a transition the scene going out still shows: look again once it is over.
    const left = this.compositor.transitionLeft()
    if (left > 0) this.rescale = setTimeout(() => this.fitCamera(), left)
    const onAir = this.compositor.onAir().map((s) => s.layers)
    for (const slot of this.videoSlots()) {
      const track = this.capture(slot)?.getVideoTracks()[0]
      if (!isCamera(slot) || !track) continue
      const want = cameraCaptureScale(onAir, slot)
      // Not on screen: it keeps its size (it is not converted), ready for the next scene.
      if (want === 0) continue
      const o = this.cameraOutput(want)
      const size = `${o.width}x${o.height}@${o.fps}`
      const previous = this.cameraSize.get(slot) ?? ''
      if (size === previous) continue
      this.cameraSize.set(slot, size)
      track.applyConstraints(cameraConstraints(o)).catch(() => {
        if (this.cameraSize.get(slot) === size) this.cameraSize.set(slot, previous)
      })
    }
  }

  dispose(): void {
    clearTimeout(this.rescale)
    this.unwatchVideos()
    for (const slot of ['mic' as const, ...this.videoSlots()]) this.setCapture(slot, null)
    this.keepBrowsers([])
    this.compositor.dispose()
    this.mix.dispose()
    this.changes.clear()
  }
}

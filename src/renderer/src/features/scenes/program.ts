// The program: what a scene broadcast sends. It owns the camera and screen captures, the compositor
// (video) and the mix (audio), and gives one MediaStream whose two tracks never change while it lives:
// switching scenes, editing a title, sharing another screen or muting the microphone all happen inside
// it, so the recorder, the ffmpeg behind it and the RTMP connection never notice.
import type { OutputSettings } from '../../../../shared/contract'
import {
  activeScene,
  cameraCaptureScale,
  needs,
  type Scene,
  type ScenesState
} from '../../../../shared/scenes'
import { cameraConstraints } from '../live/capture'
import { Compositor, FADE_MS } from './compositor'
import { frameSource } from './frames'
import { AudioMix } from './mixer'
import { Changes } from './changes'

/** The camera gives video, the microphone audio, a screen share both (its audio where the OS gives it). */
export type Slot = 'camera' | 'mic' | 'screen'

export class SceneProgram {
  readonly compositor: Compositor
  readonly mix: AudioMix
  /** The broadcast: the canvas track and the mixed audio track. */
  readonly stream: MediaStream
  private captures: Record<Slot, MediaStream | null> = { camera: null, mic: null, screen: null }
  private changes = new Changes()
  /** Tells when to read it again (a channel's gain, mute or input; a capture; the scene on air). */
  readonly onChange = this.changes.on
  private imageSrc = new Map<string, string>()
  private scene: Scene | null = null
  private output: OutputSettings
  /** The size the camera was last asked for ("1280x720@30"). */
  private cameraSize = ''
  private rescale: ReturnType<typeof setTimeout> | undefined
  /** The scene dissolving out, while it still shows. */
  private fadingOut: { scene: Scene; until: number } | null = null

  constructor(output: OutputSettings) {
    this.output = output
    this.compositor = new Compositor(output.width, output.height, output.fps)
    this.mix = new AudioMix()
    this.stream = new MediaStream([this.compositor.track, this.mix.track])
    this.compositor.start()
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

  /** Shows the state's active scene (dissolving from the previous one) and loads its images. */
  setScenes(state: ScenesState, fade = true): void {
    for (const img of state.images) {
      if (this.imageSrc.get(img.id) === img.dataUrl) continue
      const el = new Image()
      el.src = img.dataUrl
      this.imageSrc.set(img.id, img.dataUrl)
      // Drawn once decoded; until then the slot is empty (never a half-decoded picture).
      void el.decode().then(
        () => this.compositor.images.set(img.id, el),
        () => this.compositor.images.delete(img.id)
      )
    }
    for (const id of [...this.imageSrc.keys()])
      if (!state.images.some((i) => i.id === id)) {
        this.imageSrc.delete(id)
        this.compositor.images.delete(id)
      }
    const before = this.scene
    this.scene = activeScene(state)
    this.compositor.setScene(this.scene, fade)
    if (fade && before && before.id !== this.scene.id)
      this.fadingOut = { scene: before, until: performance.now() + FADE_MS }
    this.fitCamera()
    if (before?.id !== this.scene.id || before.name !== this.scene.name) this.emit()
  }

  /** The scene on the output now. */
  get sceneName(): string | null {
    return this.scene?.name ?? null
  }

  /** What the active scene shows that is not captured now (to offer opening it). */
  missing(): ('camera' | 'screen')[] {
    if (!this.scene) return []
    const need = needs(this.scene)
    return (['camera', 'screen'] as const).filter((s) => need[s] && !this.captures[s])
  }

  capture(slot: Slot): MediaStream | null {
    return this.captures[slot]
  }

  /**
   * Puts a capture in its slot (replacing and stopping the old one). A track that ends (the screen
   * share stopped from the OS bar, a camera unplugged) empties the slot; the broadcast goes on.
   */
  setCapture(slot: Slot, stream: MediaStream | null): void {
    const old = this.captures[slot]
    if (old === stream) return
    old?.getTracks().forEach((t) => t.stop())
    this.captures[slot] = stream
    const ended = (): void => {
      if (this.captures[slot] === stream) this.setCapture(slot, null)
    }
    if (slot !== 'mic') {
      this.compositor[slot]?.close()
      const video = stream?.getVideoTracks()[0]
      const frames = video ? frameSource(video, ended) : null
      if (frames && slot === 'camera') frames.onFrame = () => this.compositor.cameraFrame()
      this.compositor[slot] = frames
      this.compositor.updateActive()
      if (slot === 'camera') {
        // A new camera opens at the output's size.
        const o = this.cameraOutput(1)
        this.cameraSize = `${o.width}x${o.height}@${o.fps}`
        this.fitCamera()
      }
    }
    if (slot !== 'camera') {
      this.mix.setInput(slot, stream)
      // A microphone unplugged mid-show: the channel empties, the mix goes on without it.
      if (slot === 'mic') stream?.getAudioTracks()[0]?.addEventListener('ended', ended)
    }
    this.emit()
  }

  private emit(): void {
    this.changes.emit()
  }

  /**
   * Asks the camera for the size the scene on air (and a scene dissolving out) shows it at: the
   * output's, or half of it for a picture-in-picture. The driver scales it down once, instead of each
   * full frame being converted only to be drawn small. A scene that shows the camera bigger gets it at
   * once; one that shows it smaller once the dissolve is over. A camera that refuses keeps its size.
   */
  private fitCamera(): void {
    clearTimeout(this.rescale)
    const track = this.captures.camera?.getVideoTracks()[0]
    if (!track || !this.scene) return
    const left = this.fadingOut ? this.fadingOut.until - performance.now() : 0
    if (left <= 0) this.fadingOut = null
    else this.rescale = setTimeout(() => this.fitCamera(), left)
    const want = cameraCaptureScale(
      this.fadingOut ? [this.scene, this.fadingOut.scene] : [this.scene]
    )
    // No camera on screen: it keeps its size (it is not converted), ready for the next scene.
    if (want === 0) return
    const o = this.cameraOutput(want)
    const size = `${o.width}x${o.height}@${o.fps}`
    if (size === this.cameraSize) return
    const previous = this.cameraSize
    this.cameraSize = size
    track.applyConstraints(cameraConstraints(o)).catch(() => {
      if (this.cameraSize === size) this.cameraSize = previous
    })
  }

  dispose(): void {
    clearTimeout(this.rescale)
    for (const slot of ['camera', 'mic', 'screen'] as const) this.setCapture(slot, null)
    this.compositor.dispose()
    this.mix.dispose()
    this.changes.clear()
  }
}

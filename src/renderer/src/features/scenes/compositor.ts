// Draws the active scene onto one canvas at the output's size and frame rate, on its own clock: each
// tick draws every visible source's newest frame (a late source repeats its last one, nothing waits)
// and hands the canvas track exactly one frame. Each camera and screen source is drawn from its
// capture's frames (`frames`, by captureKey: one per camera device, one per screen source). The canvas track is what MediaRecorder encodes, so the
// preview (this canvas, on screen) is the output exactly as it is sent.
import { fitContain, toPixels, type Rect } from '../../../../shared/scene-layout'
import {
  DEFAULT_TRANSITION,
  captureKey,
  transitionMs,
  type Layer,
  type SceneSource,
  type TextSource,
  type Transition
} from '../../../../shared/scenes'
import type { FrameSource } from './frames'
import { videoOf } from './video-files'

/**
 * Where a source's frames are kept in `frames`: a capture's captureKey, or a browser source's page
 * (`browser:<sourceId>`, its frames read from main: browser-frames.ts).
 */
export const framesKey = (source: SceneSource): string | null =>
  captureKey(source) ?? (source.kind === 'browser' ? `browser:${source.id}` : null)

/** A scene as the compositor draws it: its id and its visible layers, bottom to top. */
export interface ShownScene {
  id: string
  layers: Layer[]
}

const COST_SAMPLES = 900 // 30 s at 30 fps
/** Two draws are at least this share of a frame interval apart (the canvas track takes one frame per paint). */
const MIN_GAP = 0.6

export interface CompositorStats {
  /** Frames handed to the output. */
  ticks: number
  /** Frames drawn with a camera frame that had not been drawn before (the camera the clock follows). */
  cameraDistinct: number
  cameraSerial: number
  screenDistinct: number
  /** Draw time per frame over the last 30 s (ms). */
  costP50: number
  costP95: number
  /** Ticks that came more than one frame interval late (the page was busy or throttled). */
  late: number
}

type CanvasTrack = MediaStreamTrack & { requestFrame?: () => void }

export class Compositor {
  readonly canvas: HTMLCanvasElement
  readonly track: CanvasTrack
  private ctx: CanvasRenderingContext2D
  private scene: ShownScene | null = null
  /** The scene going out, while the transition still shows it: kept here only. */
  private previous: { scene: ShownScene; since: number; ms: number } | null = null
  private timer: ReturnType<typeof setTimeout> | undefined
  private nextAt = 0
  private lastDraw = -Infinity
  /** The serial of each capture's frame drawn last (by captureKey). */
  private drawnSerial = new Map<string, number>()
  private costs: number[] = []
  private counters = { ticks: 0, cameraDistinct: 0, screenDistinct: 0, late: 0 }
  private interval: number

  /** Each capture's frames, by captureKey (a camera device's, a screen source's), and each browser page's (framesKey). */
  frames = new Map<string, FrameSource>()
  /** Decoded pictures by file name (ImageSource.file). */
  images = new Map<string, HTMLImageElement>()
  /** A capture another canvas shows from this one's (studio mode's preview): kept converted. */
  alsoShows: (key: string) => boolean = () => false

  constructor(width: number, height: number, fps: number) {
    this.canvas = document.createElement('canvas')
    this.canvas.width = width
    this.canvas.height = height
    const ctx = this.canvas.getContext('2d', { alpha: false, desynchronized: true })
    if (!ctx) throw new Error('This system cannot draw the scene (no 2D canvas).')
    this.ctx = ctx
    this.interval = 1000 / fps
    // Frame rate 0: the track emits a frame only when asked (requestFrame), once per tick.
    const track = this.canvas.captureStream(0).getVideoTracks()[0]
    if (!track) throw new Error('This system cannot capture the scene canvas.')
    this.track = track as CanvasTrack
  }

  get width(): number {
    return this.canvas.width
  }
  get height(): number {
    return this.canvas.height
  }

  resize(width: number, height: number, fps: number): void {
    if (width !== this.canvas.width) this.canvas.width = width
    if (height !== this.canvas.height) this.canvas.height = height
    this.interval = 1000 / fps
  }

  /**
   * Shows a scene. Another scene than the one shown goes through the transition (a dissolve of its
   * duration; a cut, or `transition` null, shows the new one at once); the same scene edited changes
   * at once.
   */
  setScene(scene: ShownScene, transition: Transition | null = DEFAULT_TRANSITION): void {
    const before = this.scene
    this.scene = scene
    const ms = transition ? transitionMs(transition) : 0
    const changed = !!before && before.id !== scene.id
    if (changed) this.previous = ms > 0 ? { scene: before, since: performance.now(), ms } : null
    this.updateActive()
    // Another scene goes out at once, not at the next tick (up to a frame later; later still when the
    // clock waits for the camera): the draw moves the grid on, so the rate holds on average.
    if (changed && this.timer !== undefined) this.drawOnGrid(performance.now())
  }

  /** The scenes on the output now: the one shown and, during a transition, the one going out. */
  onAir(now = performance.now()): ShownScene[] {
    const out =
      this.previous && now - this.previous.since < this.previous.ms ? [this.previous.scene] : []
    return this.scene ? [this.scene, ...out] : out
  }

  /** How long the transition still runs (ms; 0 when none does). */
  transitionLeft(now = performance.now()): number {
    return this.previous ? Math.max(0, this.previous.since + this.previous.ms - now) : 0
  }

  start(): void {
    if (this.timer !== undefined) return
    this.nextAt = performance.now()
    this.tick()
  }

  stop(): void {
    clearTimeout(this.timer)
    this.timer = undefined
  }

  dispose(): void {
    this.stop()
    this.track.stop()
  }

  /** The first capture of a kind the scene shows (with frames): the camera the clock follows. */
  private firstShown(kind: 'camera' | 'screen'): string | null {
    for (const l of this.scene?.layers ?? []) {
      const key = l.source.kind === kind ? captureKey(l.source) : null
      if (key && this.frames.has(key)) return key
    }
    return null
  }

  /** The frames of the first camera the scene shows: the clock follows it. */
  get camera(): FrameSource | null {
    const key = this.firstShown('camera')
    return key ? this.frames.get(key)! : null
  }

  /** The frames of the first screen the scene shows. */
  get screen(): FrameSource | null {
    const key = this.firstShown('screen')
    return key ? this.frames.get(key)! : null
  }

  stats(): CompositorStats {
    const sorted = [...this.costs].sort((a, b) => a - b)
    const pick = (q: number): number =>
      sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : 0
    return {
      ...this.counters,
      cameraSerial: this.camera?.serial ?? 0,
      costP50: pick(0.5),
      costP95: pick(0.95)
    }
  }

  // The clock. While the camera is on screen it follows the camera: each new camera frame is drawn when
  // it arrives or, if it comes early (a busy machine hands frames over in bursts), as soon as the frame
  // rate allows. The allowance runs on a grid (start + n * interval), so a frame that came late does not
  // push the next one out, and on average the output never runs faster than its frame rate. A timer
  // repeats the last picture when the camera is late. Without the camera on screen the grid alone is the
  // clock. After a long stall the grid restarts instead of bursting.
  private tick = (): void => {
    this.drawOnGrid(performance.now())
  }

  private drawOnGrid(now: number): void {
    if (now - this.nextAt > this.interval) {
      this.counters.late++
      this.nextAt = now
    }
    this.draw(now)
    this.nextAt += this.interval
    this.schedule()
  }

  private schedule(): void {
    clearTimeout(this.timer)
    let at = this.nextAt
    if (this.followsCamera())
      at = this.cameraWaiting() ? this.cameraDue() : this.lastDraw + this.interval * 1.5
    this.timer = setTimeout(this.tick, Math.max(0, at - performance.now()))
  }

  private followsCamera(): boolean {
    const cam = this.camera
    return !!cam && !cam.ended && cam.serial > 0
  }

  private cameraWaiting(): boolean {
    const key = this.firstShown('camera')
    return !!key && this.frames.get(key)!.serial !== this.drawnSerial.get(key)
  }

  /** The soonest the next camera frame may be drawn: on the grid, and never closer than MIN_GAP to the last draw. */
  private cameraDue(): number {
    return Math.max(this.nextAt, this.lastDraw + this.interval * MIN_GAP)
  }

  /**
   * A new frame of a camera (its captureKey): the one the clock follows is drawn now if the frame rate
   * allows, else as soon as it does; another camera's is drawn at the next tick.
   */
  cameraFrame(key: string): void {
    if (this.timer === undefined || this.firstShown('camera') !== key) return
    const now = performance.now()
    if (now >= this.cameraDue()) this.drawOnGrid(now)
    else this.schedule()
  }

  /** Draws one frame now and hands it to the output track. */
  draw(now = performance.now()): void {
    const t0 = performance.now()
    this.lastDraw = now
    const { ctx } = this
    ctx.globalAlpha = 1
    ctx.fillStyle = '#000'
    ctx.fillRect(0, 0, this.width, this.height)
    const fade = this.previous
    if (fade) {
      const p = (now - fade.since) / fade.ms
      if (p >= 1) {
        this.previous = null
        this.updateActive()
      } else {
        this.drawScene(fade.scene)
        ctx.globalAlpha = Math.max(0, p)
      }
    }
    if (this.scene) this.drawScene(this.scene)
    ctx.globalAlpha = 1
    this.track.requestFrame?.()
    this.counters.ticks++
    for (const kind of ['camera', 'screen'] as const) {
      const key = this.firstShown(kind)
      const serial = key ? this.frames.get(key)!.serial : -1
      if (key && serial !== this.drawnSerial.get(key)) {
        this.counters[kind === 'camera' ? 'cameraDistinct' : 'screenDistinct']++
        this.drawnSerial.set(key, serial)
      }
    }
    this.costs.push(performance.now() - t0)
    if (this.costs.length > COST_SAMPLES) this.costs.shift()
  }

  /**
   * Converting a frame costs milliseconds without a GPU: only sources the scene (or the one dissolving
   * out) shows are converted. Called on each scene change and when a source is plugged in.
   */
  updateActive(): void {
    const shown = new Set<string | null>(
      [this.scene, this.previous?.scene].flatMap((sc) =>
        (sc?.layers ?? []).map((l) => framesKey(l.source))
      )
    )
    for (const [key, frames] of this.frames)
      frames.setActive?.(shown.has(key) || this.alsoShows(key))
  }

  private drawScene(scene: ShownScene): void {
    for (const layer of scene.layers) this.drawLayer(layer)
  }

  private drawLayer({ source, rect }: Layer): void {
    switch (source.kind) {
      case 'camera':
      case 'screen':
      case 'browser': {
        const frames = this.frames.get(framesKey(source)!)
        const picture = frames?.current()
        // No picture (not shared yet, the share ended, a page not painted or not shown in this
        // shell): an empty slot, nothing drawn.
        if (!frames || !picture || !frames.width || !frames.height) return
        this.drawPicture(picture, frames.width / frames.height, rect)
        return
      }
      case 'image': {
        const img = this.images.get(source.file)
        if (img && img.naturalWidth)
          this.drawPicture(img, img.naturalWidth / img.naturalHeight, rect)
        return
      }
      case 'video': {
        const v = videoOf(source.id)
        // HAVE_CURRENT_DATA: a frame to draw; before it (or with no file picked) an empty slot.
        if (v && v.readyState >= 2 && v.videoWidth)
          this.drawPicture(v, v.videoWidth / v.videoHeight, rect)
        return
      }
      case 'text':
        this.drawText(source, rect)
    }
  }

  private drawPicture(picture: CanvasImageSource, aspect: number, rect: Rect): void {
    const box = fitContain(rect, aspect, this.width / this.height)
    const px = toPixels(box, this.width, this.height)
    if (px.w > 0 && px.h > 0) this.ctx.drawImage(picture, px.x, px.y, px.w, px.h)
  }

  private drawText(t: TextSource, rect: Rect): void {
    const { ctx } = this
    const px = toPixels(rect, this.width, this.height)
    const size = Math.round((t.size * this.height) / 720)
    ctx.save()
    ctx.beginPath()
    ctx.rect(px.x, px.y, px.w, px.h)
    ctx.clip()
    if (t.band) {
      ctx.fillStyle = t.band
      ctx.fillRect(px.x, px.y, px.w, px.h)
    }
    ctx.fillStyle = t.color
    ctx.font = `600 ${size}px system-ui, "Segoe UI", "Helvetica Neue", Arial, sans-serif`
    ctx.textBaseline = 'middle'
    ctx.fillText(t.text, px.x + Math.round(size * 0.5), px.y + px.h / 2)
    ctx.restore()
  }
}

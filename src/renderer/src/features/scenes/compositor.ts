// Draws the active scene onto one canvas at the output's size and frame rate, on its own clock: each
// tick draws every visible source's newest frame (a late source repeats its last one, nothing waits)
// and hands the canvas track exactly one frame. The canvas track is what MediaRecorder encodes, so the
// preview (this canvas, on screen) is the output exactly as it is sent.
import { fitContain, toPixels, type Rect } from '../../../../shared/scene-layout'
import type { Scene, SceneSource, TitleSource } from '../../../../shared/scenes'
import type { FrameSource } from './frames'

/** How long a scene change dissolves into the next (ms). A cut would be 0. */
export const FADE_MS = 300
const COST_SAMPLES = 900 // 30 s at 30 fps
/** Two draws are at least this share of a frame interval apart (the canvas track takes one frame per paint). */
const MIN_GAP = 0.6

export interface CompositorStats {
  /** Frames handed to the output. */
  ticks: number
  /** Frames drawn with a camera frame that had not been drawn before. */
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
  private scene: Scene | null = null
  private previous: { scene: Scene; since: number } | null = null
  private timer: ReturnType<typeof setTimeout> | undefined
  private nextAt = 0
  private lastDraw = -Infinity
  private drawnSerial = { camera: -1, screen: -1 }
  private costs: number[] = []
  private counters = { ticks: 0, cameraDistinct: 0, screenDistinct: 0, late: 0 }
  private interval: number

  camera: FrameSource | null = null
  screen: FrameSource | null = null
  images = new Map<string, HTMLImageElement>()

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

  /** Shows a scene; with `fade` the previous one dissolves into it. */
  setScene(scene: Scene, fade = true): void {
    const before = this.scene
    this.scene = scene
    if (fade && before && before.id !== scene.id)
      this.previous = { scene: before, since: performance.now() }
    else if (before?.id !== scene.id) this.previous = null
    this.updateActive()
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

  resetStats(): void {
    this.costs = []
    this.counters = { ticks: 0, cameraDistinct: 0, screenDistinct: 0, late: 0 }
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
    return !!this.camera && !this.camera.ended && this.camera.serial > 0 && this.shows('camera')
  }

  private cameraWaiting(): boolean {
    return !!this.camera && this.camera.serial !== this.drawnSerial.camera
  }

  /** The soonest the next camera frame may be drawn: on the grid, and never closer than MIN_GAP to the last draw. */
  private cameraDue(): number {
    return Math.max(this.nextAt, this.lastDraw + this.interval * MIN_GAP)
  }

  /** A new camera frame: drawn now if the frame rate allows, else as soon as it does. */
  cameraFrame(): void {
    if (this.timer === undefined || !this.shows('camera')) return
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
      const p = (now - fade.since) / FADE_MS
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
    const cam = this.camera?.serial ?? -1
    if (this.camera && this.shows('camera') && cam !== this.drawnSerial.camera) {
      this.counters.cameraDistinct++
      this.drawnSerial.camera = cam
    }
    const scr = this.screen?.serial ?? -1
    if (this.screen && this.shows('screen') && scr !== this.drawnSerial.screen) {
      this.counters.screenDistinct++
      this.drawnSerial.screen = scr
    }
    this.costs.push(performance.now() - t0)
    if (this.costs.length > COST_SAMPLES) this.costs.shift()
  }

  /**
   * Converting a frame costs milliseconds without a GPU: only sources the scene (or the one dissolving
   * out) shows are converted. Called on each scene change and when a source is plugged in.
   */
  updateActive(): void {
    for (const kind of ['camera', 'screen'] as const) {
      const shown = [this.scene, this.previous?.scene].some((sc) =>
        sc?.sources.some((s) => s.kind === kind && !s.hidden)
      )
      this[kind]?.setActive?.(shown)
    }
  }

  private shows(kind: 'camera' | 'screen'): boolean {
    return !!this.scene?.sources.some((s) => s.kind === kind && !s.hidden)
  }

  private drawScene(scene: Scene): void {
    for (const source of scene.sources) if (!source.hidden) this.drawSource(source)
  }

  private drawSource(source: SceneSource): void {
    switch (source.kind) {
      case 'camera':
      case 'screen': {
        const frames = source.kind === 'camera' ? this.camera : this.screen
        const picture = frames?.current()
        // No picture (not shared yet, or the share ended): an empty slot, nothing drawn.
        if (!frames || !picture || !frames.width || !frames.height) return
        this.drawPicture(picture, frames.width / frames.height, source.rect)
        return
      }
      case 'image': {
        const img = this.images.get(source.imageId)
        if (img && img.naturalWidth)
          this.drawPicture(img, img.naturalWidth / img.naturalHeight, source.rect)
        return
      }
      case 'title':
        this.drawTitle(source)
    }
  }

  private drawPicture(picture: CanvasImageSource, aspect: number, rect: Rect): void {
    const box = fitContain(rect, aspect, this.width / this.height)
    const px = toPixels(box, this.width, this.height)
    if (px.w > 0 && px.h > 0) this.ctx.drawImage(picture, px.x, px.y, px.w, px.h)
  }

  private drawTitle(t: TitleSource): void {
    const { ctx } = this
    const px = toPixels(t.rect, this.width, this.height)
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

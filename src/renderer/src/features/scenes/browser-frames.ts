// A browser source's frames (#34 §4): main renders its page offscreen and keeps the newest painted
// frame; while a scene on screen shows the source (setActive), this reads them one after another with
// readBrowserFrame, whose long poll paces the loop (no timer), and keeps only the newest as a bitmap
// for the compositor to draw like a camera's. Not shown: the page is closed (closeBrowserSource).
//
// The conversion: the frame comes as premultiplied BGRA; it is turned into straight-alpha RGBA in an
// ImageData and then into an ImageBitmap once per frame, so each of the compositor's draws is a blit.
// Measured in Chromium (software, 800x600 page): 14 ms to make the bitmap, then 0.2 ms a draw at its
// own size (4-5 ms scaled to 1280x720), against a VideoFrame made from the bytes (format 'BGRA'), 3-5
// ms to make but 3.5-4 ms a draw at its own size (7-9 ms scaled), paid on every tick of the output
// while an overlay mostly sits still. A VideoFrame also takes BGRA as straight alpha: premultiplied
// bytes drawn through it darken a half-transparent edge to half its colour.
// The bitmap is made in a worker (browser-worker.ts; Converter below): this thread, which also
// composes the output and feeds the encoder, moves the bytes there without a copy and takes the
// bitmap back. Where the worker cannot start it is made here with the same code (browser-pixels.ts);
// the scenes panel's row says which (data-frames-in). Measured 28 Nov in the web shell (an 800x600
// half-transparent page at 30 fps over the camera scene, performance.now() around this thread's
// handling of each frame, a temporary build, one run): 14.7 ms a frame made here (12.6 opaque;
// 14.3 here with the word-wise conversion, since making the ImageBitmap is most of it), 1.3 ms a
// frame with the worker (handing over, closing the old bitmap). A CPU profile of this thread (6 s)
// agreed: 94 ms/s in the conversion and 55 in createImageBitmap before, 8 in postMessage and 6 in
// close after. About 290 ms/s of native work outside the scripts came with the page, before and
// after alike (the fetch of its 1.9 MB frames among it; not broken down).
//
// How each page stands (its BrowserSourceState, or the call's failure) is kept here by source id for
// the scenes panel, which has no program (as video-files.ts keeps the videos).
import {
  BROWSER_FRAME_HEADER_BYTES,
  BROWSER_FRAME_PREMULTIPLIED,
  type BrowserPage,
  type BrowserSourceState,
  type OnairApi
} from '../../../../shared/contract'
import type { AppError } from '../../../../shared/result'
import type { BrowserSource } from '../../../../shared/scenes'
import { bitmapOf } from './browser-pixels'
import type { BrowserWorkerAnswer, BrowserWorkerFrame } from './browser-worker'
import { Changes } from './changes'
import type { FrameSource } from './frames'

/** The calls a browser source's frames need (window.onair's: main's offscreen pages). */
export type BrowserCalls = Pick<
  OnairApi,
  'openBrowserSource' | 'closeBrowserSource' | 'readBrowserFrame' | 'on'
>

/** How a browser source's page stands: main's state, or why the call failed. */
export interface BrowserShown {
  state?: BrowserSourceState
  error?: AppError
  /** Where its frames are made into bitmaps, once known (the row says it as data-frames-in). */
  framesIn?: FramesIn
}

const shown = new Map<string, BrowserShown>()
const live = new Map<string, BrowserFrames>()
const changes = new Changes()

/** Tells when a browser source's page changed state. */
export const onBrowserStates = changes.on

/** How a browser source's page stands now (undefined: no page was asked for). */
export const browserShownOf = (sourceId: string): BrowserShown | undefined => shown.get(sourceId)

/** Opens a browser source's page again (its Reload), if a scene on screen shows it. */
export const reloadBrowser = (sourceId: string): void => live.get(sourceId)?.reload()

const setShown = (sourceId: string, s: BrowserShown | null): void => {
  if (s) shown.set(sourceId, s)
  else shown.delete(sourceId)
  changes.emit()
}

/** A page that paints: frames are worth asking for. */
const painting = (s: BrowserSourceState | undefined): boolean =>
  s?.kind === 'loading' || s?.kind === 'showing'

/** The page a source asks main for. */
export const pageOf = (s: BrowserSource): BrowserPage => ({
  url: s.url,
  width: s.width,
  height: s.height,
  fps: s.fps
})

const samePage = (a: BrowserPage, b: BrowserPage): boolean =>
  a.url === b.url && a.width === b.width && a.height === b.height && a.fps === b.fps

/** Where a source's frames are turned into bitmaps: its worker, or this thread where that cannot start. */
export type FramesIn = 'worker' | 'page'

/**
 * Turns one source's frames into bitmaps in a worker of its own (browser-worker.ts), or on this thread
 * (the same bitmapOf) where the worker cannot start or stops. A worker per source rather than one for
 * all: a page has one or a few overlays, each worker ends with its page (its memory with it), and the
 * frames of one page never wait behind another's; with two cores one more thread buys no more CPU, so
 * several do not cost more than one would in conversions, only a small heap each.
 * One frame at a time: the page's loop waits for each answer before it reads the next frame.
 */
class Converter {
  private worker: Worker | null = null
  /** Where frames are made: null until the worker said it loaded, or failed to. */
  private where: FramesIn | null = null
  private ready!: () => void
  private readonly decided = new Promise<void>((resolve) => (this.ready = resolve))
  private answer: ((bitmap: ImageBitmap | null) => void) | null = null

  constructor(private readonly onWhere: (where: FramesIn) => void) {
    try {
      const worker = new Worker(new URL('./browser-worker.ts', import.meta.url), { type: 'module' })
      worker.onmessage = (e: MessageEvent<BrowserWorkerAnswer>) => {
        if ('ready' in e.data) return this.settle('worker')
        const bitmap = 'bitmap' in e.data ? e.data.bitmap : null
        const answer = this.answer
        this.answer = null
        if (answer) answer(bitmap)
        else bitmap?.close()
      }
      // A worker that cannot load (a packaging or policy problem), or that fails: this thread converts.
      worker.onerror = () => {
        this.stopWorker()
        this.settle('page')
      }
      this.worker = worker
    } catch {
      // No module workers here.
      this.settle('page')
    }
  }

  private settle(where: FramesIn): void {
    if (this.where === where) return
    this.where = where
    this.ready()
    this.onWhere(where)
  }

  /** The frame's bitmap, or null when it could not be made (or the converter was ended meanwhile). */
  async bitmap(
    bytes: Uint8Array,
    width: number,
    height: number,
    premultiplied: boolean
  ): Promise<ImageBitmap | null> {
    const pixels = bytes.subarray(BROWSER_FRAME_HEADER_BYTES)
    if (!this.where) await this.decided
    if (this.where === 'worker' && this.worker) {
      const worker = this.worker
      const frame: BrowserWorkerFrame = {
        buffer: pixels.buffer as ArrayBuffer,
        offset: pixels.byteOffset,
        width,
        height,
        premultiplied
      }
      const answered = new Promise<ImageBitmap | null>((resolve) => (this.answer = resolve))
      try {
        // The bytes move to the worker (no copy); this side keeps none of them.
        worker.postMessage(frame, [frame.buffer])
        return await answered
      } catch {
        // Bytes that cannot be handed over (a buffer that cannot move): made here.
        this.answer = null
      }
    }
    return bitmapOf(pixels, width, height, premultiplied).catch(() => null)
  }

  private stopWorker(): void {
    this.worker?.terminate()
    this.worker = null
    // A frame out in a worker that is gone is not coming back.
    this.answer?.(null)
    this.answer = null
  }

  end(): void {
    this.stopWorker()
  }
}

export class BrowserFrames implements FrameSource {
  onFrame?: () => void
  width = 0
  height = 0
  serial = 0
  ended = false
  private bitmap: ImageBitmap | null = null
  /** Turns the frames into bitmaps while the page is open (made at its first frame). */
  private converter: Converter | null = null
  private framesIn: FramesIn | undefined
  private active = false
  /** Counts the page's openings: a loop or an answer of an earlier one is dropped. */
  private run = 0
  private looping = false
  /** The serial of the last frame read (readBrowserFrame's `after`). */
  private read = 0
  private state: BrowserSourceState | undefined
  /** An event came since the page was last opened: the open's answer is older. */
  private heard = false
  private readonly off: () => void

  constructor(
    private readonly api: BrowserCalls,
    readonly sourceId: string,
    private page: BrowserPage
  ) {
    live.set(sourceId, this)
    // Main's events are newer than the open's answer they may overtake (a page painting within the
    // call's turn says 'showing' before the answer's 'loading' arrives). A 'closed' is one this side
    // asked for, maybe overtaking the next opening: the state is set here when it closes.
    this.off = api.on('browser:state', (e) => {
      if (e.sourceId !== sourceId || !this.active || e.state.kind === 'closed') return
      this.heard = true
      this.setState(e.state)
      if (painting(e.state)) this.loop(this.run)
    })
  }

  private setState(state: BrowserSourceState): void {
    this.state = state
    setShown(this.sourceId, { state, framesIn: this.framesIn })
  }

  setActive(active: boolean): void {
    if (this.ended || active === this.active) return
    this.active = active
    if (active) this.open()
    else this.shut()
  }

  /** The source's address, size or rate changed: an open page is opened again with it. */
  setPage(page: BrowserPage): void {
    if (samePage(page, this.page)) return
    this.page = page
    if (this.active) this.open()
  }

  reload(): void {
    if (this.active && !this.ended) this.open()
  }

  private open(): void {
    const run = ++this.run
    this.read = 0
    this.heard = false
    void this.api.openBrowserSource(this.sourceId, this.page).then((r) => {
      if (run !== this.run) return
      if (!r.ok) return setShown(this.sourceId, { error: r.error, framesIn: this.framesIn })
      if (!this.heard) this.setState(r.value)
      if (painting(this.state)) this.loop(run)
    })
  }

  /** Reads frames while this opening lasts and its page paints; one loop at a time. */
  private loop(run: number): void {
    if (this.looping) return
    this.looping = true
    void (async () => {
      try {
        while (run === this.run && painting(this.state)) {
          const r = await this.api.readBrowserFrame(this.sourceId, this.read)
          // A failed read (main closed the page): its state says why; the next opening reads again.
          if (!r.ok || run !== this.run) break
          await this.take(r.value, run)
        }
      } finally {
        this.looping = false
      }
      // Opened again while the last read was out: the new opening reads on.
      if (this.run !== run && this.active && painting(this.state)) this.loop(this.run)
    })()
  }

  private async take(bytes: Uint8Array, run: number): Promise<void> {
    if (bytes.byteLength < BROWSER_FRAME_HEADER_BYTES) return
    const head = new DataView(bytes.buffer, bytes.byteOffset, BROWSER_FRAME_HEADER_BYTES)
    const serial = head.getUint32(0, true)
    const width = head.getUint32(4, true)
    const height = head.getUint32(8, true)
    const flags = head.getUint32(12, true)
    // No newer frame in time (a header alone), or a short answer: ask again.
    if (!width || !height || bytes.byteLength < BROWSER_FRAME_HEADER_BYTES + width * height * 4)
      return
    this.read = serial
    this.converter ??= new Converter((where) => {
      this.framesIn = where
      const now = shown.get(this.sourceId)
      if (now && !this.ended) setShown(this.sourceId, { ...now, framesIn: where })
    })
    const bitmap = await this.converter.bitmap(
      bytes,
      width,
      height,
      (flags & BROWSER_FRAME_PREMULTIPLIED) !== 0
    )
    if (!bitmap) return
    if (run !== this.run || this.ended) return bitmap.close()
    this.bitmap?.close()
    this.bitmap = bitmap
    this.width = width
    this.height = height
    this.serial++
    this.onFrame?.()
  }

  private shut(): void {
    this.run++
    // Its worker ends with the page (a frame out in it is dropped).
    this.converter?.end()
    this.converter = null
    this.bitmap?.close()
    this.bitmap = null
    this.state = { kind: 'closed' }
    setShown(this.sourceId, { state: this.state, framesIn: this.framesIn })
    void this.api.closeBrowserSource(this.sourceId)
  }

  current(): CanvasImageSource | null {
    return this.bitmap
  }

  /** The source is gone (removed, or the program ended): its page is closed. */
  close(): void {
    if (this.ended) return
    if (this.active) this.shut()
    this.ended = true
    this.off()
    if (live.get(this.sourceId) === this) live.delete(this.sourceId)
    setShown(this.sourceId, null)
  }
}

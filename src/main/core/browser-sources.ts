// Browser sources (#34 §4), main's side: one offscreen page per open source id, its state and its newest
// painted frame, which the page on air reads with readBrowserFrame's long poll. Plain Node: the pages
// come from a BrowserPageFactory the shell passes in (Electron's offscreen windows, main/electron/
// browser-pages.ts; tests a Node painter). Without one (the web shell) a page cannot be rendered for
// another page to draw: openBrowserSource answers 'needs-desktop' and keeps nothing.
//
// An address may carry a token (an alert box's "do not share this URL"): only its origin is ever
// logged, and a failure's detail has any address in it cut to its origin.
import {
  BROWSER_FRAME_HEADER_BYTES,
  BROWSER_FRAME_PREMULTIPLIED,
  type BrowserPage,
  type BrowserSourceState,
  type BrowserStateEvent,
  type OnairCalls
} from '../../shared/contract'
import { LIMITS } from '../../shared/scenes'
import { AppFailure } from '../../shared/result'
import { redactSecrets } from '../../shared/redact'

/** What a page tells about itself: a painted frame (B G R A, rows top to bottom), a load, a failure. */
export interface BrowserPageCallbacks {
  paint(bytes: Uint8Array, width: number, height: number, premultiplied: boolean): void
  /** The main frame finished loading. */
  loaded(): void
  /** The main frame did not load: the engine's error code and words (e.g. -105, ERR_NAME_NOT_RESOLVED). */
  loadFailed(code: number, detail: string): void
  /** The page's process is gone (the engine's reason: crashed, killed, oom...). */
  crashed(reason: string): void
}

/** One open page. */
export interface BrowserPageHandle {
  /** Loads another address in the same page (also a reload after a failure or a crash). */
  navigate(url: string): void
  resize(width: number, height: number): void
  setFrameRate(fps: number): void
  close(): void
}

/** Opens offscreen pages: passed to the core by the shell that can render them (CoreOptions.browserPages). */
export interface BrowserPageFactory {
  open(page: BrowserPage, callbacks: BrowserPageCallbacks): BrowserPageHandle
}

/** How long readBrowserFrame waits for a newer frame before it answers a header alone. */
export const BROWSER_FRAME_WAIT_MS = 1000

interface Waiter {
  resolve(bytes: Uint8Array): void
  reject(e: unknown): void
  timer: ReturnType<typeof setTimeout>
}

interface OpenPage {
  page: BrowserPage
  handle: BrowserPageHandle
  state: BrowserSourceState
  /** The newest frame as readBrowserFrame answers it (header + pixels), or null before the first paint. */
  frame: Uint8Array | null
  serial: number
  waiters: Set<Waiter>
}

/** An address as it may be logged or shown in a failure: its origin only (the path and query may hold a token). */
export function browserOrigin(url: string): string {
  try {
    const u = new URL(url)
    return u.origin === 'null' ? `${u.protocol}` : u.origin
  } catch {
    return '(not an address)'
  }
}

/** An engine's failure words with any address in them cut to its origin. */
export const safeDetail = (detail: string): string =>
  redactSecrets(
    detail.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>]+/gi, (u) => browserOrigin(u))
  ).slice(0, 300)

const header = (serial: number, width: number, height: number, flags: number): Uint8Array => {
  const out = new Uint8Array(BROWSER_FRAME_HEADER_BYTES + width * height * 4)
  const v = new DataView(out.buffer)
  v.setUint32(0, serial, true)
  v.setUint32(4, width, true)
  v.setUint32(8, height, true)
  v.setUint32(12, flags, true)
  return out
}

const notOpen = (): AppFailure =>
  new AppFailure({
    code: 'not-found',
    message: 'That browser source is not open.',
    hint: 'Open it again (show a scene that has it).'
  })

export class BrowserSources {
  private pages = new Map<string, OpenPage>()
  private shut = false

  constructor(
    private opts: {
      factory?: BrowserPageFactory
      emit: (e: BrowserStateEvent) => void
      log?: (line: string) => void
    }
  ) {}

  /** Opens the page, or changes its address (navigates), size or rate (keeps it); answers its state. */
  async open(sourceId: string, page: BrowserPage): Promise<BrowserSourceState> {
    const { factory } = this.opts
    if (!factory) return { kind: 'needs-desktop' }
    if (this.shut) throw new AppFailure({ code: 'busy', message: 'Onair is shutting down.' })
    const was = this.pages.get(sourceId)
    if (was) return this.change(sourceId, was, page)
    if (this.pages.size >= LIMITS.browsers)
      throw new AppFailure({
        code: 'bad-request',
        message: `At most ${LIMITS.browsers} browser sources can show pages at once.`,
        hint: 'Take a browser source out of the scenes on screen, then try again.'
      })
    const entry: OpenPage = {
      page: { ...page },
      handle: undefined as unknown as BrowserPageHandle,
      state: { kind: 'loading' },
      frame: null,
      serial: 0,
      waiters: new Set()
    }
    this.pages.set(sourceId, entry)
    this.log(`browser source ${sourceId}: opening ${browserOrigin(page.url)}`)
    try {
      entry.handle = factory.open({ ...page }, this.callbacks(sourceId, entry))
    } catch (e) {
      this.pages.delete(sourceId)
      this.log(`browser source ${sourceId}: could not open a page (${safeDetail(String(e))})`)
      throw new AppFailure({
        code: 'internal',
        message: 'The page could not be opened.',
        hint: 'Try again; if it keeps failing, restart Onair.'
      })
    }
    return entry.state
  }

  private change(sourceId: string, entry: OpenPage, page: BrowserPage): BrowserSourceState {
    const old = entry.page
    entry.page = { ...page }
    const stuck = entry.state.kind === 'load-failed' || entry.state.kind === 'crashed'
    if (page.url !== old.url || stuck) {
      this.log(`browser source ${sourceId}: loading ${browserOrigin(page.url)}`)
      this.setState(sourceId, entry, { kind: 'loading' })
      entry.handle.navigate(page.url)
    }
    if (page.width !== old.width || page.height !== old.height)
      entry.handle.resize(page.width, page.height)
    if (page.fps !== old.fps) entry.handle.setFrameRate(page.fps)
    return entry.state
  }

  private callbacks(sourceId: string, entry: OpenPage): BrowserPageCallbacks {
    const live = (): boolean => this.pages.get(sourceId) === entry
    return {
      paint: (bytes, width, height, premultiplied) => {
        if (!live() || width <= 0 || height <= 0 || bytes.byteLength < width * height * 4) return
        // After a failure what paints is Chromium's error page (or nothing): not a frame for the scene.
        if (entry.state.kind === 'load-failed' || entry.state.kind === 'crashed') return
        const frame = header(
          ++entry.serial,
          width,
          height,
          premultiplied ? BROWSER_FRAME_PREMULTIPLIED : 0
        )
        frame.set(bytes.subarray(0, width * height * 4), BROWSER_FRAME_HEADER_BYTES)
        entry.frame = frame
        if (entry.state.kind === 'loading') this.setState(sourceId, entry, { kind: 'showing' })
        for (const w of entry.waiters) {
          clearTimeout(w.timer)
          w.resolve(frame)
        }
        entry.waiters.clear()
      },
      loaded: () => {
        if (!live()) return
        this.log(`browser source ${sourceId}: loaded ${browserOrigin(entry.page.url)}`)
      },
      loadFailed: (code, detail) => {
        if (!live()) return
        const words = safeDetail(detail)
        this.log(
          `browser source ${sourceId}: ${browserOrigin(entry.page.url)} did not load (${code} ${words})`
        )
        entry.frame = null
        this.setState(sourceId, entry, { kind: 'load-failed', code, detail: words })
      },
      crashed: (reason) => {
        if (!live()) return
        const words = safeDetail(reason)
        this.log(`browser source ${sourceId}: its page's process is gone (${words})`)
        entry.frame = null
        this.setState(sourceId, entry, { kind: 'crashed', reason: words })
      }
    }
  }

  private setState(sourceId: string, entry: OpenPage, state: BrowserSourceState): void {
    entry.state = state
    this.opts.emit({ sourceId, state })
  }

  /**
   * The newest frame once its serial is not `after` (newer, or from an earlier opening when `after`
   * is ahead of it); else waits up to BROWSER_FRAME_WAIT_MS for a paint and answers a header alone
   * (width and height 0). A source that is not open (never opened, closed, the web shell) is a
   * not-found failure, so a reader's loop stops instead of asking again at once.
   */
  async readFrame(sourceId: string, after: number): Promise<Uint8Array> {
    const entry = this.pages.get(sourceId)
    if (!entry) throw notOpen()
    if (entry.frame && entry.serial !== after) return entry.frame
    return new Promise<Uint8Array>((resolve, reject) => {
      const w: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          entry.waiters.delete(w)
          resolve(header(entry.serial, 0, 0, 0))
        }, BROWSER_FRAME_WAIT_MS)
      }
      entry.waiters.add(w)
    })
  }

  /** Closes the page (nothing when it is not open); a read waiting on it fails as not open. */
  async close(sourceId: string): Promise<void> {
    const entry = this.pages.get(sourceId)
    if (!entry) return
    this.pages.delete(sourceId)
    for (const w of entry.waiters) {
      clearTimeout(w.timer)
      w.reject(notOpen())
    }
    entry.waiters.clear()
    try {
      entry.handle.close()
    } catch (e) {
      this.log(`browser source ${sourceId}: closing its page failed (${safeDetail(String(e))})`)
    }
    this.log(`browser source ${sourceId}: closed`)
    this.opts.emit({ sourceId, state: { kind: 'closed' } })
  }

  /** How many pages are open (the stats and the tests read it). */
  get openCount(): number {
    return this.pages.size
  }

  /** Closes every page (core shutdown); later opens are refused. */
  async closeAll(): Promise<void> {
    this.shut = true
    for (const id of [...this.pages.keys()]) await this.close(id)
  }

  private log(line: string): void {
    this.opts.log?.(line)
  }

  /** The calls of the contract this module answers, for createCore's table. */
  get calls(): Pick<OnairCalls, 'openBrowserSource' | 'closeBrowserSource' | 'readBrowserFrame'> {
    return {
      openBrowserSource: (id, page) => this.open(id, page),
      closeBrowserSource: (id) => this.close(id),
      readBrowserFrame: (id, after) => this.readFrame(id, after)
    }
  }
}

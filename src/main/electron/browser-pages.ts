// Browser sources' pages in the desktop app (#34 §4): the core's BrowserPageFactory over Electron's
// offscreen windows. Each page is a hidden, transparent BrowserWindow with offscreen rendering; its
// 'paint' event hands the whole frame as a NativeImage, whose toBitmap() is B G R A (premultiplied, as
// Chromium paints) at getSize() (device pixels), passed to the core as it comes.
//
// The page is someone else's web page (an alert box, a chat): it gets nothing of Onair's. No preload,
// sandboxed, context isolation on, no Node; a session of its own (PARTITION, kept on disk so a chat's
// sign-in stays, as in OBS) where every permission is denied and no download starts; no popups; only
// http(s) navigations. Its sound is muted: a browser source's audio is not in the mixer yet.
//
// Written against the few members of BrowserWindow it uses (BrowserWindowLike), with the constructor
// passed in, so the unit test drives it with a fake: Electron's runtime cannot run where the tests run,
// so this file is checked by that test and the type check, never by a real offscreen window here.
import type { BrowserPage } from '../../shared/contract'
import type {
  BrowserPageCallbacks,
  BrowserPageFactory,
  BrowserPageHandle
} from '../core/browser-sources'

/** The browser sources' session: on disk, apart from the app's own (defaultSession). */
export const BROWSER_PARTITION = 'persist:onair-browser-sources'

/** Chromium's "the load was aborted" (a navigation replaced by another): not a failure to show. */
const ERR_ABORTED = -3

type Listener = (...args: never[]) => void

/** What is kept of a session: permissions and downloads. */
export interface SessionLike {
  setPermissionRequestHandler(
    handler:
      ((wc: unknown, permission: string, callback: (granted: boolean) => void) => void) | null
  ): void
  setPermissionCheckHandler(handler: ((wc: unknown, permission: string) => boolean) | null): void
  on(event: 'will-download', listener: (event: { preventDefault(): void }) => void): unknown
}

/** The NativeImage a paint hands over. */
export interface PaintImageLike {
  toBitmap(): Uint8Array
  getSize(): { width: number; height: number }
}

export interface WebContentsLike {
  session: SessionLike
  on(event: string, listener: Listener): unknown
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void
  setAudioMuted(muted: boolean): void
  setFrameRate(fps: number): void
  loadURL(url: string): Promise<void>
}

export interface BrowserWindowLike {
  webContents: WebContentsLike
  setContentSize(width: number, height: number): void
  isDestroyed(): boolean
  destroy(): void
}

/** The options this file gives a window (a subset of Electron's BrowserWindowConstructorOptions). */
export interface OffscreenWindowOptions {
  show: false
  width: number
  height: number
  useContentSize: true
  frame: false
  transparent: true
  backgroundColor: string
  webPreferences: {
    offscreen: true
    sandbox: true
    contextIsolation: true
    nodeIntegration: false
    nodeIntegrationInWorker: false
    webviewTag: false
    partition: string
    backgroundThrottling: false
    spellcheck: false
  }
}

export type BrowserWindowConstructor = new (options: OffscreenWindowOptions) => BrowserWindowLike

/** Only web pages: the core checks addresses too (browserUrl), this holds for the page's own moves. */
export const isWebAddress = (url: string): boolean => {
  try {
    const p = new URL(url).protocol
    return p === 'http:' || p === 'https:'
  } catch {
    return false
  }
}

export function offscreenWindowOptions(page: BrowserPage): OffscreenWindowOptions {
  return {
    show: false,
    width: page.width,
    height: page.height,
    useContentSize: true,
    frame: false,
    transparent: true,
    // Fully transparent: what the page does not paint shows the scene under it.
    backgroundColor: '#00000000',
    webPreferences: {
      offscreen: true,
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webviewTag: false,
      partition: BROWSER_PARTITION,
      // Painted at its rate though never shown.
      backgroundThrottling: false,
      spellcheck: false
    }
  }
}

/** Every permission denied and every download refused in a page's session (once per session). */
const guarded = new WeakSet<SessionLike>()
function guardSession(ses: SessionLike): void {
  if (guarded.has(ses)) return
  guarded.add(ses)
  ses.setPermissionRequestHandler((_wc, _permission, callback) => callback(false))
  ses.setPermissionCheckHandler(() => false)
  ses.on('will-download', (event) => event.preventDefault())
}

/** The core's BrowserPageFactory over offscreen windows made with `Window` (Electron's BrowserWindow). */
export function offscreenPages(Window: BrowserWindowConstructor): BrowserPageFactory {
  return {
    open(page: BrowserPage, cb: BrowserPageCallbacks): BrowserPageHandle {
      const win = new Window(offscreenWindowOptions(page))
      const wc = win.webContents
      guardSession(wc.session)
      wc.setAudioMuted(true)
      wc.setWindowOpenHandler(() => ({ action: 'deny' }))
      // The address is on the event (details.url); the second argument is its deprecated copy.
      const stayOnTheWeb = (event: { preventDefault(): void; url?: string }, url: string): void => {
        if (!isWebAddress(event.url ?? url)) event.preventDefault()
      }
      wc.on('will-navigate', stayOnTheWeb as Listener)
      wc.on('will-redirect', stayOnTheWeb as Listener)
      wc.on('will-attach-webview', ((event: { preventDefault(): void }) =>
        event.preventDefault()) as Listener)
      wc.on('paint', ((_event: unknown, _dirty: unknown, image: PaintImageLike) => {
        const { width, height } = image.getSize()
        cb.paint(image.toBitmap(), width, height, true)
      }) as Listener)
      wc.on('did-finish-load', (() => cb.loaded()) as Listener)
      wc.on('did-fail-load', ((
        _event: unknown,
        code: number,
        description: string,
        _url: string,
        isMainFrame: boolean
      ) => {
        // A frame inside the page (an ad, a widget) failing is the page's business; an abort is a
        // navigation replaced by another. The address is not passed on: it may carry a token.
        if (!isMainFrame || code === ERR_ABORTED) return
        cb.loadFailed(code, description)
      }) as Listener)
      wc.on('render-process-gone', ((_event: unknown, details: { reason: string }) =>
        cb.crashed(details.reason)) as Listener)
      wc.setFrameRate(page.fps)
      const load = (url: string): void => {
        if (!isWebAddress(url)) return cb.loadFailed(-300, 'ERR_INVALID_URL')
        // A failed load rejects here and is told by did-fail-load above.
        wc.loadURL(url).catch(() => undefined)
      }
      load(page.url)
      const alive = (): boolean => !win.isDestroyed()
      return {
        navigate: (url) => {
          if (alive()) load(url)
        },
        resize: (width, height) => {
          if (alive()) win.setContentSize(width, height)
        },
        setFrameRate: (fps) => {
          if (alive()) wc.setFrameRate(fps)
        },
        // destroy, not close: a page's beforeunload cannot keep it open.
        close: () => {
          if (alive()) win.destroy()
        }
      }
    }
  }
}

// Browser sources' offscreen windows (main/electron/browser-pages.ts) driven with a fake BrowserWindow:
// Electron's runtime cannot run here, so this checks what the adapter asks of Electron (the window's
// isolation, the deny handlers) and how it turns Electron's events into the core's callbacks. That a
// real offscreen window paints is not proven here.
import { EventEmitter } from 'node:events'
import { describe, expect, it } from 'vitest'
import {
  BROWSER_PARTITION,
  offscreenPages,
  type BrowserWindowConstructor,
  type BrowserWindowLike,
  type OffscreenWindowOptions,
  type PaintImageLike,
  type SessionLike
} from '../../../src/main/electron/browser-pages'
import type { BrowserPageCallbacks } from '../../../src/main/core/browser-sources'

type Handler = (...args: unknown[]) => unknown

type RequestHandler = Parameters<SessionLike['setPermissionRequestHandler']>[0]
type CheckHandler = Parameters<SessionLike['setPermissionCheckHandler']>[0]

class FakeSession extends EventEmitter implements SessionLike {
  request: RequestHandler = null
  check: CheckHandler = null
  setPermissionRequestHandler(h: RequestHandler): void {
    this.request = h
  }
  setPermissionCheckHandler(h: CheckHandler): void {
    this.check = h
  }
}

const session = new FakeSession()

class FakeContents extends EventEmitter {
  session = session
  muted = false
  fps = 0
  loaded: string[] = []
  openHandler: Handler | null = null
  setWindowOpenHandler(h: Handler): void {
    this.openHandler = h
  }
  setAudioMuted(m: boolean): void {
    this.muted = m
  }
  setFrameRate(fps: number): void {
    this.fps = fps
  }
  async loadURL(url: string): Promise<void> {
    this.loaded.push(url)
    // As Electron does for a failed load: the promise rejects (did-fail-load says why).
    if (url.includes('fail')) throw new Error(`ERR_NAME_NOT_RESOLVED (-105) loading '${url}'`)
  }
}

const windows: FakeWindow[] = []
class FakeWindow implements Omit<BrowserWindowLike, 'webContents'> {
  webContents = new FakeContents()
  destroyed = false
  size: [number, number]
  constructor(public options: OffscreenWindowOptions) {
    this.size = [options.width, options.height]
    windows.push(this)
  }
  setContentSize(w: number, h: number): void {
    this.size = [w, h]
  }
  isDestroyed(): boolean {
    return this.destroyed
  }
  destroy(): void {
    this.destroyed = true
  }
}

function open(url = 'https://alerts.example/box?token=SECRET') {
  const calls: Array<[string, ...unknown[]]> = []
  const cb: BrowserPageCallbacks = {
    paint: (bytes, w, h, pre) => calls.push(['paint', bytes, w, h, pre]),
    loaded: () => calls.push(['loaded']),
    loadFailed: (code, detail) => calls.push(['loadFailed', code, detail]),
    crashed: (reason) => calls.push(['crashed', reason])
  }
  const handle = offscreenPages(FakeWindow as unknown as BrowserWindowConstructor).open(
    { url, width: 640, height: 360, fps: 24 },
    cb
  )
  const win = windows.at(-1)!
  return { handle, win, wc: win.webContents, calls }
}

const navEvent = (url: string) => {
  let prevented = false
  return { url, preventDefault: () => (prevented = true), prevented: () => prevented }
}

describe('browser sources: offscreen windows', () => {
  it('opens an isolated, hidden, transparent offscreen window at the page size and rate', () => {
    const { win, wc } = open()
    expect(win.options).toMatchObject({
      show: false,
      width: 640,
      height: 360,
      useContentSize: true,
      transparent: true,
      backgroundColor: '#00000000'
    })
    expect(win.options.webPreferences).toEqual({
      offscreen: true,
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webviewTag: false,
      partition: BROWSER_PARTITION,
      backgroundThrottling: false,
      spellcheck: false
    })
    expect(win.options.webPreferences).not.toHaveProperty('preload')
    expect(BROWSER_PARTITION).toBe('persist:onair-browser-sources')
    expect(wc.muted).toBe(true)
    expect(wc.fps).toBe(24)
    expect(wc.loaded).toEqual(['https://alerts.example/box?token=SECRET'])
  })

  it('denies every permission, download, popup and non-web navigation', () => {
    const { wc } = open()
    let granted: boolean | undefined
    session.request?.(wc, 'media', (g: boolean) => (granted = g))
    expect(granted).toBe(false)
    session.request?.(wc, 'notifications', (g: boolean) => (granted = g))
    expect(granted).toBe(false)
    expect(session.check?.(wc, 'clipboard-read')).toBe(false)
    const download = navEvent('')
    session.emit('will-download', download)
    expect(download.prevented()).toBe(true)
    expect(wc.openHandler?.({ url: 'https://popup.example/' })).toEqual({ action: 'deny' })
    for (const [url, allowed] of [
      ['https://alerts.example/next', true],
      ['http://127.0.0.1:8080/overlay', true],
      ['file:///etc/passwd', false],
      ['javascript:alert(1)', false],
      ['onair-app://x', false]
    ] as const) {
      for (const event of ['will-navigate', 'will-redirect']) {
        const e = navEvent(url)
        wc.emit(event, e, url)
        expect(e.prevented(), `${event} ${url}`).toBe(!allowed)
      }
    }
    const webview = navEvent('')
    wc.emit('will-attach-webview', webview)
    expect(webview.prevented()).toBe(true)
  })

  it("passes a paint's whole frame as premultiplied BGRA at the image's size", () => {
    const { wc, calls } = open()
    const bitmap = new Uint8Array(2 * 3 * 4).fill(7)
    const image: PaintImageLike = {
      toBitmap: () => bitmap,
      getSize: () => ({ width: 2, height: 3 })
    }
    wc.emit('paint', {}, { x: 0, y: 0, width: 1, height: 1 }, image)
    expect(calls).toEqual([['paint', bitmap, 2, 3, true]])
  })

  it('tells a main-frame failure (not an abort or a subframe) without the address, and a crash', () => {
    const { wc, calls } = open()
    wc.emit('did-fail-load', {}, -3, 'ERR_ABORTED', 'https://alerts.example/box?token=SECRET', true)
    wc.emit('did-fail-load', {}, -105, 'ERR_NAME_NOT_RESOLVED', 'https://ads.example/x', false)
    expect(calls).toEqual([])
    wc.emit(
      'did-fail-load',
      {},
      -105,
      'ERR_NAME_NOT_RESOLVED',
      'https://alerts.example/box?token=SECRET',
      true
    )
    wc.emit('did-finish-load')
    wc.emit('render-process-gone', {}, { reason: 'oom', exitCode: 1 })
    expect(calls).toEqual([
      ['loadFailed', -105, 'ERR_NAME_NOT_RESOLVED'],
      ['loaded'],
      ['crashed', 'oom']
    ])
    expect(JSON.stringify(calls)).not.toContain('SECRET')
  })

  it('navigates, resizes and sets the rate in the same window, and destroys it on close', async () => {
    const before = windows.length
    const { handle, win, wc, calls } = open('https://fail.example/')
    // A failed load's rejected promise is caught (told by did-fail-load): nothing unhandled.
    await new Promise((r) => setImmediate(r))
    handle.navigate('https://other.example/#00ff00')
    handle.resize(320, 200)
    handle.setFrameRate(5)
    expect(windows.length).toBe(before + 1)
    expect(wc.loaded).toEqual(['https://fail.example/', 'https://other.example/#00ff00'])
    expect(win.size).toEqual([320, 200])
    expect(wc.fps).toBe(5)
    handle.navigate('file:///etc/passwd')
    expect(wc.loaded).toHaveLength(2)
    expect(calls).toEqual([['loadFailed', -300, 'ERR_INVALID_URL']])
    handle.close()
    expect(win.destroyed).toBe(true)
    // A closed window is left alone.
    handle.navigate('https://again.example/')
    handle.close()
    expect(wc.loaded).toHaveLength(2)
  })
})

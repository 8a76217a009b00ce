// Electron hardening, checked on the BUILT main bundle (out/main/index.js) rather than on the sources:
// the Electron runtime cannot run here, so `electron` is replaced by a recorder of what the bundle asks of
// it (the one mock: the runtime itself). Everything else in the bundle is real, including the core.
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import Module, { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { waitUntil } from '../../helpers/wait-until'

const BUNDLE = resolve(__dirname, '../../../out/main/index.js')

type Fn = (...args: unknown[]) => unknown
const rec = {
  appHandlers: new Map<string, Fn[]>(),
  windows: [] as {
    options: Record<string, unknown>
    wc: Map<string, Fn>
    openHandler?: Fn
    loaded?: string
    muted?: boolean
    destroyed?: boolean
  }[],
  /** Sessions other than the default one (a window's webPreferences.partition), by partition. */
  partitions: new Map<string, { request?: Fn; check?: Fn; events: Map<string, Fn> }>(),
  ipc: new Map<string, Fn>(),
  permissionRequest: undefined as Fn | undefined,
  permissionCheck: undefined as Fn | undefined,
  headers: undefined as Fn | undefined,
  schemes: [] as { scheme: string; privileges: Record<string, boolean> }[],
  displayMedia: undefined as { handler: Fn; options: unknown } | undefined,
  sent: [] as { channel: string; payload: unknown }[],
  protocols: new Map<string, (req: { url: string }) => Promise<Response>>(),
  sessionEvents: new Map<string, Fn>(),
  opened: [] as string[],
  exited: false
}
let readyResolve: () => void = () => {}
const ready = new Promise<void>((r) => (readyResolve = r))
let dataDir = ''

function fakeElectron(): Record<string, unknown> {
  // One session, as in Electron: session.defaultSession is every window's webContents.session.
  const defaultSession = {
    setPermissionRequestHandler: (fn: Fn) => (rec.permissionRequest = fn),
    setPermissionCheckHandler: (fn: Fn) => (rec.permissionCheck = fn),
    setDisplayMediaRequestHandler: (handler: Fn, options: unknown) =>
      (rec.displayMedia = { handler, options }),
    on: (ev: string, fn: Fn) => rec.sessionEvents.set(ev, fn),
    removeListener: (ev: string, fn: Fn) => {
      if (rec.sessionEvents.get(ev) === fn) rec.sessionEvents.delete(ev)
    },
    webRequest: { onHeadersReceived: (fn: Fn) => (rec.headers = fn) }
  }
  // A partition's session, as session.fromPartition gives it: its own handlers and events.
  const sessionOf = (partition: unknown): unknown => {
    if (typeof partition !== 'string') return defaultSession
    const ses = rec.partitions.get(partition) ?? { events: new Map<string, Fn>() }
    rec.partitions.set(partition, ses)
    return {
      setPermissionRequestHandler: (fn: Fn) => (ses.request = fn),
      setPermissionCheckHandler: (fn: Fn) => (ses.check = fn),
      on: (ev: string, fn: Fn) => ses.events.set(ev, fn)
    }
  }
  class BrowserWindow {
    static getAllWindows = (): unknown[] => rec.windows
    webContents: Record<string, unknown>
    constructor(options: Record<string, unknown>) {
      const entry: (typeof rec.windows)[number] = { options, wc: new Map() }
      rec.windows.push(entry)
      const load = (u: string) => {
        entry.loaded = u
        return Promise.resolve()
      }
      this.webContents = {
        on: (ev: string, fn: Fn) => entry.wc.set(ev, fn),
        setWindowOpenHandler: (fn: Fn) => (entry.openHandler = fn),
        send: (channel: string, payload: unknown) => rec.sent.push({ channel, payload }),
        getURL: () => 'app://onair/index.html',
        setAudioMuted: (m: boolean) => (entry.muted = m),
        setFrameRate: () => {},
        loadURL: load,
        session: sessionOf((options.webPreferences as Record<string, unknown>)?.partition)
      }
      this.loadURL = load
      this.isDestroyed = () => entry.destroyed === true
      this.destroy = () => (entry.destroyed = true)
    }
    loadURL: (u: string) => Promise<void>
    isDestroyed: () => boolean
    destroy: () => void
    once = (): void => {}
    on = (): void => {}
    show = (): void => {}
    setContentSize = (): void => {}
    getMediaSourceId = (): string => 'window:7:1'
  }
  // What desktopCapturer lists: a screen, another app's window, and Onair's own window.
  const image = (url: string) => ({ isEmpty: () => false, toDataURL: () => url })
  const sources = [
    {
      id: 'screen:1:0',
      name: 'Entire screen',
      display_id: '1',
      thumbnail: image('data:image/png;base64,U0NS'),
      appIcon: null
    },
    {
      id: 'window:42:0',
      name: 'Slides',
      display_id: '',
      thumbnail: image('data:image/png;base64,V0lO'),
      appIcon: image('data:image/png;base64,SUNP')
    },
    {
      id: 'window:7:0',
      name: 'Onair',
      display_id: '',
      thumbnail: image('data:image/png;base64,T04='),
      appIcon: null
    }
  ]
  return {
    app: {
      requestSingleInstanceLock: () => true,
      quit: () => {},
      exit: () => (rec.exited = true),
      on: (ev: string, fn: Fn) => rec.appHandlers.set(ev, [...(rec.appHandlers.get(ev) ?? []), fn]),
      whenReady: () => ready,
      getPath: (which: string) => (which === 'downloads' ? join(dataDir, 'Downloads') : dataDir),
      setPath: () => {},
      getVersion: () => '0.0.0-test'
    },
    BrowserWindow,
    ipcMain: {
      handle: (ch: string, fn: Fn) => rec.ipc.set(ch, fn),
      removeHandler: (ch: string) => rec.ipc.delete(ch)
    },
    session: {
      defaultSession
    },
    protocol: {
      registerSchemesAsPrivileged: (list: typeof rec.schemes) => rec.schemes.push(...list),
      handle: (scheme: string, fn: (req: { url: string }) => Promise<Response>) =>
        rec.protocols.set(scheme, fn)
    },
    shell: { openExternal: async (url: string) => void rec.opened.push(url) },
    desktopCapturer: { getSources: async () => sources }
  }
}

beforeAll(async () => {
  if (!existsSync(BUNDLE))
    throw new Error('out/main/index.js is missing: run `npm run build` first (npm test does).')
  dataDir = mkdtempSync(join(tmpdir(), 'onair-hardening-'))
  // The app warms up the local studio at launch: keep its key out of the default keychain service.
  process.env.ONAIR_KEYCHAIN_SERVICE = `onair-hardening-${process.pid}`
  const electron = fakeElectron()
  const mod = Module as unknown as { _load: (req: string, ...rest: unknown[]) => unknown }
  const original = mod._load
  mod._load = function (request: string, ...rest: unknown[]) {
    return request === 'electron' ? electron : original.call(this, request, ...rest)
  }
  try {
    createRequire(__filename)(BUNDLE)
  } finally {
    mod._load = original
  }
  readyResolve()
  await waitUntil(() => rec.windows.length === 1, 'the main window')
})

afterAll(async () => {
  // Quit the way Electron would: before-quit runs the core's shutdown, then exits.
  const ev = { preventDefault: () => {} }
  for (const fn of rec.appHandlers.get('before-quit') ?? []) fn(ev)
  await waitUntil(() => rec.exited, 'the app to exit after shutdown')
  rmSync(dataDir, { recursive: true, force: true })
})

describe('Electron hardening (built code)', () => {
  it('creates the window with contextIsolation, sandbox, no Node integration, no webview', () => {
    const prefs = rec.windows[0]!.options.webPreferences as Record<string, unknown>
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      // A minimised window keeps composing and encoding a scene at full rate.
      backgroundThrottling: false
    })
    expect(String(prefs.preload)).toMatch(/out[/\\]preload[/\\]index\.js$/)
    // The renderer has the same origin on every OS and install path: app://onair.
    expect(rec.windows[0]!.loaded).toBe('app://onair/index.html')
    expect(rec.schemes).toEqual([
      {
        scheme: 'app',
        privileges: expect.objectContaining({ standard: true, secure: true })
      }
    ])
  })

  it('serves the built renderer on app://onair and nothing outside it', async () => {
    const handle = rec.protocols.get('app')!
    const page = await handle({ url: 'app://onair/index.html' })
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toContain('text/html')
    expect(await page.text()).toContain('<div id="root">')
    // A client-side route falls back to the page; traversal and other hosts do not get out.
    expect((await handle({ url: 'app://onair/streams' })).status).toBe(200)
    // Encoded slashes and dot segments resolve inside the root: the page answers, never the
    // project's package.json two folders up.
    for (const url of [
      'app://onair/..%2f..%2fpackage.json',
      'app://onair/%2e%2e/%2e%2e/package.json'
    ]) {
      const r = await handle({ url })
      expect(r.headers.get('content-type'), url).toContain('text/html')
      expect(await r.text(), url).not.toContain('"name": "onair"')
    }
    expect((await handle({ url: 'app://evil/index.html' })).status).toBe(404)
  })

  it('blocks navigation away from the renderer and every new window', () => {
    const win = rec.windows[0]!
    let prevented = false
    win.wc.get('will-navigate')!(
      { preventDefault: () => (prevented = true) },
      'https://evil.example/'
    )
    expect(prevented).toBe(true)
    prevented = false
    win.wc.get('will-navigate')!(
      { preventDefault: () => (prevented = true) },
      `${win.loaded}#/streams`
    )
    expect(prevented).toBe(false)
    // A look-alike host is someone else.
    win.wc.get('will-navigate')!(
      { preventDefault: () => (prevented = true) },
      'app://onair.evil.example/index.html'
    )
    expect(prevented).toBe(true)
    expect(win.openHandler!({ url: 'https://evil.example/' })).toEqual({ action: 'deny' })
    expect(win.openHandler!({ url: 'javascript:alert(1)' })).toEqual({ action: 'deny' })
    // https links go to the system browser, anything else nowhere.
    expect(rec.opened).toEqual(['https://evil.example/'])
  })

  it('denies webviews and new windows in any web contents', () => {
    const handlers = rec.appHandlers.get('web-contents-created') ?? []
    expect(handlers.length).toBe(1)
    const events = new Map<string, Fn>()
    let openHandler: Fn | undefined
    handlers[0]!(
      {},
      {
        on: (ev: string, fn: Fn) => events.set(ev, fn),
        setWindowOpenHandler: (fn: Fn) => (openHandler = fn)
      }
    )
    let prevented = false
    events.get('will-attach-webview')!({ preventDefault: () => (prevented = true) })
    expect(prevented).toBe(true)
    expect(openHandler!({ url: 'https://x.example' })).toEqual({ action: 'deny' })
  })

  it('allows camera and microphone for our renderer only, nothing else', () => {
    const ours = { getURL: () => rec.windows[0]!.loaded }
    const foreign = { getURL: () => 'https://evil.example/' }
    const ask = (wc: unknown, permission: string): boolean => {
      let granted = false
      rec.permissionRequest!(wc, permission, (g: boolean) => (granted = g))
      return granted
    }
    expect(ask(ours, 'media')).toBe(true)
    expect(ask(foreign, 'media')).toBe(false)
    expect(ask(ours, 'geolocation')).toBe(false)
    expect(ask(ours, 'openExternal')).toBe(false)
    expect(rec.permissionCheck!(foreign, 'media')).toBe(false)
  })

  it('serves the page with the strict CSP, on app:// and on a dev server alike', async () => {
    const page = await rec.protocols.get('app')!({ url: 'app://onair/index.html' })
    const csp = page.headers.get('content-security-policy')!
    let out: { responseHeaders: Record<string, string[]> } | undefined
    await new Promise<void>((done) =>
      rec.headers!({ resourceType: 'mainFrame', responseHeaders: {} }, (r: typeof out) => {
        out = r
        done()
      })
    )
    expect(out!.responseHeaders['Content-Security-Policy']![0]).toBe(csp)
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("object-src 'none'")
    expect(csp).not.toContain('unsafe-eval')
  })

  it('registers one handler per contract call and refuses IPC from a foreign frame', async () => {
    const { CALL_NAMES } = await import('../../../src/shared/contract')
    expect([...rec.ipc.keys()].sort()).toEqual(CALL_NAMES.map((n) => `onair:${n}`).sort())
    const handler = rec.ipc.get('onair:appInfo')!
    const foreign = await handler({ senderFrame: { url: 'https://evil.example/', parent: null } })
    expect(foreign).toMatchObject({ ok: false, error: { code: 'forbidden-sender' } })
    const iframe = await handler({
      senderFrame: { url: rec.windows[0]!.loaded, parent: {} }
    })
    expect(iframe).toMatchObject({ ok: false, error: { code: 'forbidden-sender' } })
    const ours = await handler({
      senderFrame: { url: rec.windows[0]!.loaded, parent: null }
    })
    expect(ours).toMatchObject({ ok: true, value: { name: 'Onair', shell: 'electron' } })
  })

  it('saves recordings and clips through a download with a save dialog, never by navigating', async () => {
    expect(rec.sessionEvents.has('will-download')).toBe(true)
    const downloads: string[] = []
    const sender = { downloadURL: (u: string) => downloads.push(u) }
    const ours = rec.windows[0]!.loaded!
    for (const call of ['downloadRecording', 'downloadClip']) {
      const handler = rec.ipc.get(`onair:${call}`)!
      // A session or clip that does not exist: the error comes back and nothing is downloaded.
      const missing = await handler({ senderFrame: { url: ours, parent: null }, sender }, 'nope')
      expect(missing).toMatchObject({ ok: false })
      const foreign = await handler(
        { senderFrame: { url: 'https://evil.example/', parent: null }, sender },
        'nope'
      )
      expect(foreign).toMatchObject({ ok: false, error: { code: 'forbidden-sender' } })
    }
    expect(downloads).toEqual([])
    // A download nobody asked for keeps Electron's default behaviour.
    let options: unknown
    rec.sessionEvents.get('will-download')!(
      {},
      {
        getURL: () => 'https://x.example/a.mp4',
        setSaveDialogOptions: (o: unknown) => (options = o)
      }
    )
    expect(options).toBeUndefined()
  })
  it('getDisplayMedia: the renderer is asked with thumbnails (own window left out), its pick is granted, a cancel is null', async () => {
    expect(rec.displayMedia?.options).toEqual({ useSystemPicker: false })
    const ours = { senderFrame: { url: rec.windows[0]!.loaded, parent: null } }
    const answer = rec.ipc.get('onair:chooseDisplaySource')!
    const ask = async (): Promise<{ requestId: string; sources: { id: string }[] }> => {
      const before = rec.sent.length
      await waitUntil(
        () => rec.sent.slice(before).some((m) => m.channel === 'onair:display:choose'),
        'the display:choose event'
      )
      return rec.sent.slice(before).find((m) => m.channel === 'onair:display:choose')!.payload as {
        requestId: string
        sources: { id: string }[]
      }
    }
    let granted: unknown = 'not yet'
    const asked = ask()
    rec.displayMedia!.handler({}, (streams: unknown) => (granted = streams))
    const q = await asked
    expect(q.sources.map((s) => s.id)).toEqual(['screen:1:0', 'window:42:0'])
    // Not a source that was offered: refused, and the question stays open.
    const wrong = (await answer(ours, q.requestId, 'window:7:0')) as { ok: boolean }
    expect(wrong.ok).toBe(false)
    expect((await answer(ours, q.requestId, 'window:42:0')) as { ok: boolean }).toMatchObject({
      ok: true
    })
    await waitUntil(() => granted !== 'not yet', 'the grant')
    // Loopback system audio only where Electron has it (Windows).
    expect(granted).toEqual({
      video: expect.objectContaining({ id: 'window:42:0', name: 'Slides' }),
      ...(process.platform === 'win32' ? { audio: 'loopback' } : {})
    })

    granted = 'not yet'
    const again = ask()
    rec.displayMedia!.handler({}, (streams: unknown) => (granted = streams))
    const q2 = await again
    await answer(ours, q2.requestId, null)
    await waitUntil(() => granted !== 'not yet', 'the cancel')
    expect(granted).toBeNull()
  })

  it("renders a browser source's page in an offscreen window of its own: isolated, denied, muted", async () => {
    const ours = { senderFrame: { url: rec.windows[0]!.loaded, parent: null } }
    const call = (name: string, ...args: unknown[]) => rec.ipc.get(`onair:${name}`)!(ours, ...args)
    const before = rec.windows.length
    const url = 'https://alerts.example/box?token=abc123'
    expect(await call('openBrowserSource', 'b1', { url, width: 40, height: 30, fps: 10 })).toEqual({
      ok: true,
      value: { kind: 'loading' }
    })
    const page = rec.windows[before]!
    expect(page.options).toMatchObject({ show: false, transparent: true, width: 40, height: 30 })
    expect(page.options.webPreferences).toMatchObject({
      offscreen: true,
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      webviewTag: false,
      partition: 'persist:onair-browser-sources'
    })
    expect(page.options.webPreferences).not.toHaveProperty('preload')
    expect(page.loaded).toBe(url)
    expect(page.muted).toBe(true)
    expect(page.openHandler?.({ url: 'https://popup.example/' })).toEqual({ action: 'deny' })
    const ses = rec.partitions.get('persist:onair-browser-sources')!
    let granted: unknown
    ses.request?.(null, 'media', (g: boolean) => (granted = g))
    expect(granted).toBe(false)
    expect(ses.check?.(null, 'media')).toBe(false)
    // A paint is the frame readBrowserFrame answers: the header, then the bitmap.
    const bitmap = Buffer.alloc(40 * 30 * 4, 9)
    page.wc.get('paint')!(
      {},
      {},
      { toBitmap: () => bitmap, getSize: () => ({ width: 40, height: 30 }) }
    )
    const frame = (await call('readBrowserFrame', 'b1', 0)) as { ok: true; value: Uint8Array }
    expect(frame.ok).toBe(true)
    expect(frame.value.byteLength).toBe(16 + bitmap.byteLength)
    expect(Buffer.from(frame.value.subarray(16)).equals(bitmap)).toBe(true)
    expect(await call('closeBrowserSource', 'b1')).toEqual({ ok: true })
    expect(page.destroyed).toBe(true)
  })
})

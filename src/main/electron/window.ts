// The BrowserWindow with Electron's secure defaults, and the session-wide guards.
import { join } from 'node:path'
import { BrowserWindow, desktopCapturer, session, shell, type Streams } from 'electron'
import { answerDisplayMedia, type DisplayChooser } from '../core/display-chooser'
import { isAllowedNavigation, isExternalLinkAllowed, isPermissionAllowed } from './window-policy'
import { rendererTarget } from './renderer-target'

/** csp: the policy of the moment (core/csp.ts); app:// pages get it from the protocol handler. */
export function hardenSession(origins: readonly string[], csp: () => Promise<string>): void {
  const ses = session.defaultSession
  ses.setPermissionRequestHandler((wc, permission, callback) =>
    callback(isPermissionAllowed(permission, wc.getURL(), origins))
  )
  ses.setPermissionCheckHandler((wc, permission) =>
    isPermissionAllowed(permission, wc?.getURL() ?? '', origins)
  )
  // Dev mode: the page comes from electron-vite's HTTP server, so the CSP goes on as a header here.
  ses.webRequest.onHeadersReceived((details, callback) => {
    if (details.resourceType !== 'mainFrame') return callback({})
    void csp().then(
      (policy) =>
        callback({
          responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [policy] }
        }),
      () => callback({ cancel: true })
    )
  })
}

/**
 * getDisplayMedia in Electron: Onair's own chooser of screens and windows (core/display-chooser.ts).
 * System audio comes along on Windows only (loopback); macOS and Linux have none from this path.
 */
export function handleDisplayMedia(
  chooser: DisplayChooser,
  getWindow: () => BrowserWindow | null,
  log: (line: string) => void
): void {
  // null is Electron's "deny": callback({}) would throw in main ("Video was requested, but no video
  // stream was provided"), see DisplayMediaDeviceChosen in shell/browser/electron_browser_context.cc.
  const cancel = null as unknown as Streams
  session.defaultSession.setDisplayMediaRequestHandler(
    (_request, callback) => {
      const win = getWindow()
      answerDisplayMedia({
        chooser,
        getSources: () =>
          desktopCapturer.getSources({
            types: ['screen', 'window'],
            thumbnailSize: { width: 320, height: 180 },
            fetchWindowIcons: true
          }),
        ownMediaSourceId: win && !win.isDestroyed() ? win.getMediaSourceId() : undefined,
        platform: process.platform
      }).then(
        (streams) => callback(streams ?? cancel),
        (e: unknown) => {
          // macOS without the Screen Recording permission, for one, can fail to list sources.
          log(`screen chooser failed: ${String(e)}`)
          callback(cancel)
        }
      )
    },
    // Our chooser everywhere; macOS 15's system picker would skip it (and the own-window exclusion).
    { useSystemPicker: false }
  )
}

export function createMainWindow(chooser: DisplayChooser): BrowserWindow {
  const target = rendererTarget()
  const win = new BrowserWindow({
    width: 1200,
    height: 800,
    minWidth: 800,
    minHeight: 560,
    show: false,
    title: 'Onair',
    autoHideMenuBar: true,
    // Electron's security checklist, written out here so that static scanners (electronegativity) see it.
    webPreferences: {
      preload: join(__dirname, '../preload/index.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
      // Middle-click would otherwise open links in new windows, around setWindowOpenHandler.
      disableBlinkFeatures: 'Auxclick',
      // A minimized or hidden window keeps composing and encoding the broadcast at full frame rate.
      backgroundThrottling: false
    }
  })
  win.once('ready-to-show', () => win.show())
  // Nobody is left to answer an open screen choice: getDisplayMedia is told "cancelled" at once.
  win.on('closed', () => chooser.cancel())
  win.webContents.on('render-process-gone', () => chooser.cancel())
  win.webContents.on('will-navigate', (event, url) => {
    if (!isAllowedNavigation(url, target.origins)) event.preventDefault()
  })
  win.webContents.on('will-redirect', (event, url) => {
    if (!isAllowedNavigation(url, target.origins)) event.preventDefault()
  })
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (isExternalLinkAllowed(url)) void shell.openExternal(url)
    return { action: 'deny' }
  })
  void win.loadURL(target.url)
  return win
}

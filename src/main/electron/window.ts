// The BrowserWindow with Electron's secure defaults, and the session-wide guards.
import { join } from 'node:path'
import { BrowserWindow, desktopCapturer, session, shell } from 'electron'
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
  // getDisplayMedia needs a chooser in Electron: offer the primary screen.
  ses.setDisplayMediaRequestHandler((_request, callback) => {
    void desktopCapturer.getSources({ types: ['screen'] }).then((sources) => {
      const first = sources[0]
      if (first) callback({ video: first })
      else callback({})
    })
  })
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

export function createMainWindow(): BrowserWindow {
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
      disableBlinkFeatures: 'Auxclick'
    }
  })
  win.once('ready-to-show', () => win.show())
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

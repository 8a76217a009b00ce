// The BrowserWindow with Electron's secure defaults, and the session-wide guards.
import { join } from 'node:path'
import { BrowserWindow, desktopCapturer, session, shell } from 'electron'
import {
  contentSecurityPolicy,
  isAllowedNavigation,
  isExternalLinkAllowed,
  isPermissionAllowed
} from './window-policy'

export function rendererTarget(): { url?: string; file?: string; origins: string[] } {
  const dev = process.env.ELECTRON_RENDERER_URL
  if (dev) return { url: dev, origins: [new URL(dev).origin] }
  const file = join(__dirname, '../renderer/index.html')
  return { file, origins: [`file://${join(__dirname, '../renderer/')}`.replace(/\\/g, '/')] }
}

export function hardenSession(origins: readonly string[]): void {
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
  ses.webRequest.onHeadersReceived((details, callback) => {
    callback({
      responseHeaders: {
        ...details.responseHeaders,
        'Content-Security-Policy': [contentSecurityPolicy()]
      }
    })
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
  if (target.url) void win.loadURL(target.url)
  else void win.loadFile(target.file as string)
  return win
}

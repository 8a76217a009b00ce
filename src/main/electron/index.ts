// Electron's entry: one instance, one window, the core behind the contract, everything stopped on quit.
import { join } from 'node:path'
import { app, BrowserWindow, dialog, globalShortcut, MessageChannelMain, shell } from 'electron'
import { createAppLog, type Log } from '../core/app-log'
import { createCore, type Core } from '../core/core'
import { recordingDownloads } from './downloads'
import { offscreenPages } from './browser-pages'
import { registerIpc } from './ipc'
import { serveFramePort } from './frame-port'
import { isOwnOrigin } from '../../shared/origin'
import { FRAMES_PORT_CHANNEL } from '../../shared/raw-media'
import { contentSecurityPolicy } from '../core/csp'
import { handleAppProtocol, registerAppScheme } from './app-protocol'
import { rendererTarget } from './renderer-target'
import { createMainWindow, handleDisplayMedia, hardenSession } from './window'
import { redactSecrets } from '../../shared/redact'
import { AppFailure } from '../../shared/result'

// The console until the app is ready, then the log file in the OS's logs folder as well.
let log: Log = (line) => console.log(`[onair] ${redactSecrets(line)}`)

// Tests and portable runs point the app at their own data folder.
if (process.env.ONAIR_APP_DATA) app.setPath('userData', process.env.ONAIR_APP_DATA)

if (!app.requestSingleInstanceLock()) app.quit()

// Before ready: app:// must be a privileged standard scheme for the renderer to have a real origin.
registerAppScheme()

let core: Core | null = null
let win: BrowserWindow | null = null
let quitting = false

app.on('web-contents-created', (_e, contents) => {
  // No <webview> and no new windows anywhere, whatever a page tries.
  contents.on('will-attach-webview', (event) => event.preventDefault())
  contents.setWindowOpenHandler(() => ({ action: 'deny' }))
})

app.on('second-instance', () => {
  if (win) {
    if (win.isMinimized()) win.restore()
    win.focus()
  }
})

void app.whenReady().then(async () => {
  log = createAppLog(app.getPath('logs'), (l) => console.log(l))
  const target = rendererTarget()
  const csp = async (): Promise<string> =>
    contentSecurityPolicy(core ? await core.connectHosts() : [])
  hardenSession(target.origins, csp)
  handleAppProtocol(join(__dirname, '../renderer'), csp)
  core = await createCore({
    appDataDir: app.getPath('userData'),
    shell: 'electron',
    warmLocalStudio: true,
    // The renderer's origins may use the local studio's tus endpoint from a page (its CORS).
    studioArgs: target.origins.flatMap((o) => ['--app-origin', o]),
    appVersion: app.getVersion(),
    log: (line) => log(line),
    appMetrics: () => app.getAppMetrics(),
    // Browser sources' pages, each an offscreen window (browser-pages.ts).
    browserPages: offscreenPages(BrowserWindow),
    openOnDesktop: async (path, action) => {
      if (action === 'folder') return shell.showItemInFolder(path)
      // openPath answers an error message, or '' when the OS opened the file.
      const failed = await shell.openPath(path)
      if (failed)
        throw new AppFailure({
          code: 'not-found',
          message: `The file could not be opened: ${failed}`,
          hint: 'Open it from its folder instead.'
        })
    },
    electronVersion: process.versions.electron,
    // The creator's keys, while Onair is in the background too (core/global-hotkeys.ts).
    globalShortcut,
    // The packaged app runs the local studio with Electron's own Node (no separate node install needed).
    studioCommand: {
      command: process.execPath,
      args: [join(__dirname, 'studio.js')],
      env: { ELECTRON_RUN_AS_NODE: '1' }
    }
  })
  const downloads = recordingDownloads(
    () => app.getPath('downloads'),
    (options) => (win ? dialog.showSaveDialog(win, options) : dialog.showSaveDialog(options))
  )
  registerIpc(
    core,
    () => win,
    target.origins,
    downloads,
    (line) => log(line)
  )
  const chooser = core.displayChooser
  handleDisplayMedia(
    chooser,
    () => win,
    (line) => log(line)
  )
  // The window, and with it the download naming for its session; both go when it closes.
  const openWindow = (): void => {
    const opened = createMainWindow(chooser)
    downloads.attach(opened)
    // pushFrames' bytes over a port of their own (frame-port.ts), handed to our own page at each load.
    opened.webContents.on('did-finish-load', () => {
      if (!core || !isOwnOrigin(opened.webContents.getURL(), target.origins)) return
      const { port1, port2 } = new MessageChannelMain()
      serveFramePort(port1, core, (line) => log(line))
      opened.webContents.postMessage(FRAMES_PORT_CHANNEL, null, [port2])
    })
    opened.on('closed', () => {
      if (win === opened) win = null
    })
    win = opened
  }
  openWindow()
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) openWindow()
  })
})

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit()
})

// Keys taken for the background are given back to the OS however the app ends (core.shutdown lets go
// of them too; this is Electron's own advice for globalShortcut).
app.on('will-quit', () => globalShortcut.unregisterAll())

// Stop live runs (orderly unpublish), ffmpeg children and the local studio before the process ends.
app.on('before-quit', (event) => {
  if (quitting || !core) return
  event.preventDefault()
  quitting = true
  const done = (): void => app.exit(0)
  core.shutdown().then(done, (e: unknown) => {
    log(`shutdown failed: ${String(e)}`)
    done()
  })
})

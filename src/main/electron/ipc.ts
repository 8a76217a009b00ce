// Registers one typed handler per contract entry and forwards core events to the window.
import { app, ipcMain, session, type BrowserWindow, type IpcMainInvokeEvent } from 'electron'
import { join } from 'node:path'
import { CALL_NAMES, EVENT_NAMES, channelOf, type RecordingDownload } from '../../shared/contract'
import type { Result } from '../../shared/result'
import type { Core } from '../core/core'
import { makeIpcHandler } from './ipc-handler'

/** Downloads asked for by downloadRecording, by URL: the name their save dialog offers. */
const pendingNames = new Map<string, string>()

export function registerIpc(
  core: Core,
  getWindow: () => BrowserWindow | null,
  rendererOrigins: readonly string[],
  log: (line: string) => void
): () => void {
  for (const name of CALL_NAMES) {
    const handler = makeIpcHandler(core, name, rendererOrigins, log)
    if (name !== 'downloadRecording') {
      ipcMain.handle(channelOf(name), handler)
      continue
    }
    // Saving a recording: the core says where it is and what to call it; the download itself is
    // Electron's, with a save dialog (will-download below), never a navigation of the window.
    ipcMain.handle(channelOf(name), async (event: IpcMainInvokeEvent, ...args: unknown[]) => {
      const r = (await handler(event, ...args)) as Result<RecordingDownload>
      if (r.ok) {
        pendingNames.set(r.value.url, r.value.filename)
        event.sender.downloadURL(r.value.url)
      }
      return r
    })
  }
  session.defaultSession.on('will-download', (_event, item) => {
    const name = pendingNames.get(item.getURL())
    if (name === undefined) return
    pendingNames.delete(item.getURL())
    item.setSaveDialogOptions({
      title: 'Save recording',
      defaultPath: join(app.getPath('downloads'), name),
      filters: [{ name: 'MP4 video', extensions: ['mp4'] }]
    })
  })
  const unsubscribe = EVENT_NAMES.map((event) =>
    core.events.on(event, (payload) => {
      const win = getWindow()
      if (win && !win.isDestroyed()) win.webContents.send(channelOf(event), payload)
    })
  )
  return () => {
    for (const name of CALL_NAMES) ipcMain.removeHandler(channelOf(name))
    for (const off of unsubscribe) off()
  }
}

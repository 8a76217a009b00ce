// Registers one typed handler per contract entry and forwards core events to the window.
import { ipcMain, type BrowserWindow, type IpcMainInvokeEvent } from 'electron'
import {
  CALL_NAMES,
  EVENT_NAMES,
  channelOf,
  isDownloadCall,
  type RecordingDownload
} from '../../shared/contract'
import type { Result } from '../../shared/result'
import type { Core } from '../core/core'
import type { RecordingDownloads } from './downloads'
import { makeIpcHandler } from './ipc-handler'
import { saveFailure } from '../core/rendition-downloads'

export function registerIpc(
  core: Core,
  getWindow: () => BrowserWindow | null,
  rendererOrigins: readonly string[],
  downloads: RecordingDownloads,
  log: (line: string) => void
): () => void {
  for (const name of CALL_NAMES) {
    const handler = makeIpcHandler(core, name, rendererOrigins, log)
    if (!isDownloadCall(name)) {
      ipcMain.handle(channelOf(name), handler)
      continue
    }
    // Saving a recording or a clip: the core says where it is and what to call it; the download itself is
    // Electron's, with a save dialog (downloads.ts), never a navigation of the window. A rendition
    // is asked a place first, then remuxed there by the core.
    ipcMain.handle(channelOf(name), async (event: IpcMainInvokeEvent, ...args: unknown[]) => {
      const r = (await handler(event, ...args)) as Result<RecordingDownload>
      if (!r.ok) return r
      if (r.value.format === 'hls') {
        const { url } = r.value
        try {
          await downloads.saveRendition(r.value, (file) => core.saveRendition(url, file))
        } catch (e) {
          return { ok: false, error: saveFailure(e) }
        }
        return r
      }
      downloads.expect(r.value.url, r.value.filename)
      event.sender.downloadURL(r.value.url)
      return r
    })
  }
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

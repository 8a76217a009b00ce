// Registers one typed handler per contract entry and forwards core events to the window.
import { ipcMain, type BrowserWindow } from 'electron'
import { CALL_NAMES, EVENT_NAMES, channelOf } from '../../shared/contract'
import type { Core } from '../core/core'
import { makeIpcHandler } from './ipc-handler'

export function registerIpc(
  core: Core,
  getWindow: () => BrowserWindow | null,
  rendererOrigins: readonly string[],
  log: (line: string) => void
): () => void {
  for (const name of CALL_NAMES) {
    ipcMain.handle(channelOf(name), makeIpcHandler(core, name, rendererOrigins, log))
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

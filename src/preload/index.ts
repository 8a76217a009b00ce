// The preload: the renderer's only door to main. It exposes exactly the contract as window.onair;
// ipcRenderer itself never reaches the page.
import { contextBridge, ipcRenderer } from 'electron'
import { buildApi } from './api'
import type { Result } from '../shared/result'

const api = buildApi(
  (channel, ...args) => ipcRenderer.invoke(channel, ...args) as Promise<Result<unknown>>,
  (channel, fn) => {
    const listener = (_event: unknown, payload: unknown): void => fn(payload)
    ipcRenderer.on(channel, listener)
    return () => {
      ipcRenderer.removeListener(channel, listener)
    }
  }
)

contextBridge.exposeInMainWorld('onair', api)

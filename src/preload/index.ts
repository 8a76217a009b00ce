// The preload: the renderer's only door to main. It exposes exactly the contract as window.onair;
// ipcRenderer itself never reaches the page.
import { contextBridge, ipcRenderer } from 'electron'
import { buildApi } from './api'
import { FramePortPusher, type FramePortLike } from './frame-port'
import { channelOf } from '../shared/contract'
import { FRAMES_PORT_CHANNEL } from '../shared/raw-media'
import type { Result } from '../shared/result'

const invoke = (channel: string, ...args: unknown[]): Promise<Result<unknown>> =>
  ipcRenderer.invoke(channel, ...args) as Promise<Result<unknown>>

// Raw frames go over the port main sends at each load (frame-port.ts), by invoke until it comes.
const frames = new FramePortPusher((...args) => invoke(channelOf('pushFrames'), ...args))
ipcRenderer.on(FRAMES_PORT_CHANNEL, (event) => {
  const port = event.ports[0]
  if (port) frames.use(port as unknown as FramePortLike)
})

const api = buildApi(
  invoke,
  (channel, fn) => {
    const listener = (_event: unknown, payload: unknown): void => fn(payload)
    ipcRenderer.on(channel, listener)
    return () => {
      ipcRenderer.removeListener(channel, listener)
    }
  },
  { pushFrames: frames.push }
)

contextBridge.exposeInMainWorld('onair', api)

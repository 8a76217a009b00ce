// The renderer's one way to main: the Electron preload's window.onair when present, else the web bridge.
import type { OnairApi } from '../../../shared/contract'
import { createWebBridge } from './web-bridge'

export async function ensureOnair(): Promise<OnairApi> {
  if (!('onair' in window) || !window.onair) {
    Object.defineProperty(window, 'onair', { value: createWebBridge(), writable: false })
  }
  return window.onair
}

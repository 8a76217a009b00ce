// pushFrames in Electron (#33) over a MessagePort main hands the preload once the window has loaded
// (main's electron/frame-port.ts), instead of ipcRenderer.invoke: each call's bytes are transferred
// (the preload's copy is moved, not cloned again), and main answers each call by its id. Where no port
// came, or posting fails (an Electron that does not move ArrayBuffers this way), pushFrames goes by
// invoke as before. A plain module: Electron cannot run on the machines this was written on; the
// tests drive it with Node's MessageChannel.
import type { Result } from '../shared/result'

/** The part of a MessagePort used here (the DOM's in the preload, Node's in tests). */
export interface FramePortLike {
  postMessage(message: unknown, transfer: ArrayBuffer[]): void
  onmessage: ((ev: { data: unknown }) => void) | null
  close(): void
}

/** A call as it goes to main: the bytes are the whole transferred buffer's [offset, offset+length). */
export interface FrameCall {
  id: number
  runId: string
  buffer: ArrayBuffer
  offset: number
  length: number
}

export interface FrameAnswer {
  id: number
  result: Result<unknown>
}

type Push = (runId: string, chunk: Uint8Array) => Promise<Result<unknown>>

export class FramePortPusher {
  private port: FramePortLike | undefined
  private nextId = 1
  private readonly waiting = new Map<number, (r: Result<unknown>) => void>()

  /** fallback: pushFrames by invoke, for before the port comes or after it fails. */
  constructor(private readonly fallback: Push) {}

  /** The port main sent; a later one replaces it (a reload), and calls still waiting are answered. */
  use(port: FramePortLike): void {
    this.drop('the frames port was replaced')
    this.port = port
    port.onmessage = (ev) => {
      const a = ev.data as Partial<FrameAnswer> | null
      const answer = typeof a?.id === 'number' ? this.waiting.get(a.id) : undefined
      if (!answer || !a?.result) return
      this.waiting.delete(a.id!)
      answer(a.result)
    }
  }

  readonly push: Push = (...args) => {
    const [runId, chunk] = args
    const port = this.port
    // As the caller gave them (invoke passes on exactly the arguments it got).
    if (!port) return this.fallback(...args)
    const id = this.nextId++
    // Moved, not cloned: the contextBridge has given the preload its own copy of the page's bytes
    // (and where it has not, the page's buffer is detached, which its pool drops: byte-pool.ts).
    const buffer = chunk.buffer as ArrayBuffer
    const call: FrameCall = {
      id,
      runId,
      buffer,
      offset: chunk.byteOffset,
      length: chunk.byteLength
    }
    return new Promise((resolve) => {
      this.waiting.set(id, resolve)
      try {
        port.postMessage(call, [buffer])
      } catch {
        this.waiting.delete(id)
        this.drop('the frames port cannot move bytes')
        resolve(this.fallback(runId, chunk))
      }
    })
  }

  private drop(why: string): void {
    const port = this.port
    this.port = undefined
    if (port) {
      port.onmessage = null
      port.close()
    }
    for (const answer of this.waiting.values())
      answer({
        ok: false,
        error: { code: 'network', message: `Onair's frames port closed: ${why}.` }
      })
    this.waiting.clear()
  }
}

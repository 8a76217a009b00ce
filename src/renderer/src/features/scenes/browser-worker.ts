// Runs in a worker, one per browser source on screen (browser-frames.ts): turns each frame of its page
// (premultiplied BGRA, handed over without a copy) into an ImageBitmap (browser-pixels.ts) and hands
// it back, so the page's thread, which also composes the output and feeds the encoder, does not convert.
// The page sends one frame at a time and waits for its answer: nothing queues here.
import { bitmapOf } from './browser-pixels'

/** A frame: its pixels start at `offset` in `buffer`. */
export interface BrowserWorkerFrame {
  buffer: ArrayBuffer
  offset: number
  width: number
  height: number
  premultiplied: boolean
}
/** The worker's answers: loaded, then per frame its bitmap or that it could not be made. */
export type BrowserWorkerAnswer = { ready: true } | { bitmap: ImageBitmap } | { failed: true }

interface WorkerScope {
  onmessage: ((e: MessageEvent<BrowserWorkerFrame>) => void) | null
  postMessage(message: BrowserWorkerAnswer, transfer?: Transferable[]): void
}
const scope = self as unknown as WorkerScope

scope.onmessage = (e) => {
  const { buffer, offset, width, height, premultiplied } = e.data
  bitmapOf(new Uint8Array(buffer, offset, width * height * 4), width, height, premultiplied).then(
    (bitmap) => scope.postMessage({ bitmap }, [bitmap]),
    () => scope.postMessage({ failed: true })
  )
}
// Loaded: the page hands frames over only now (one that cannot load gets none).
scope.postMessage({ ready: true })

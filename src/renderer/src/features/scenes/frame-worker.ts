// Runs in a worker: turns each video frame of one track into an ImageBitmap and hands it to the
// compositor. Without a GPU (software rendering) converting a 720p frame costs about 11 ms here
// (Chromium 156, measured alone on 28 Nov; drawing the VideoFrame itself onto the page's canvas, 7-8 ms);
// done here it runs beside the compositor instead of inside its frame budget, and drawing the bitmap
// then costs ~0.1 ms.
// Every frame read is closed here, converted or not; `stop` cancels the reading (the track processor
// then closes what it still holds) before the worker ends itself.
type Message = { readable: ReadableStream<VideoFrame> } | { active: boolean } | { stop: true }
interface WorkerScope {
  onmessage: ((e: MessageEvent<Message>) => void) | null
  postMessage(message: unknown, transfer?: Transferable[]): void
  close(): void
}
const scope = self as unknown as WorkerScope
/** Off while no scene on screen shows this source: frames are then dropped unconverted. */
let active = true
let reader: ReadableStreamDefaultReader<VideoFrame> | null = null

scope.onmessage = (e) => {
  if ('readable' in e.data) void pump((reader = e.data.readable.getReader()))
  else if ('stop' in e.data) void stop()
  else active = e.data.active
}
// Loaded: the page hands over the track's frames only now (a worker that cannot load gets none).
scope.postMessage({ ready: true })

async function stop(): Promise<void> {
  await reader?.cancel().catch(() => undefined)
  scope.close()
}

async function pump(r: ReadableStreamDefaultReader<VideoFrame>): Promise<void> {
  try {
    for (;;) {
      const { value, done } = await r.read()
      if (done || !value) break
      try {
        if (!active) continue
        const bitmap = await createImageBitmap(value)
        scope.postMessage({ bitmap }, [bitmap])
      } catch {
        // A frame that cannot be converted is skipped; the compositor keeps the previous one.
      } finally {
        value.close()
      }
    }
  } catch {
    // The track stopped under us: same as its end.
  }
  scope.postMessage({ ended: true })
}

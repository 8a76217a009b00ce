// Runs in a worker: turns each video frame of one track into an ImageBitmap and hands it to the
// compositor. Without a GPU (software rendering) converting a 720p frame costs 4-7 ms; done here it
// runs beside the compositor instead of inside its frame budget, and drawing the bitmap costs ~0.1 ms.
type Message = { readable: ReadableStream<VideoFrame> } | { active: boolean }
interface WorkerScope {
  onmessage: ((e: MessageEvent<Message>) => void) | null
  postMessage(message: unknown, transfer?: Transferable[]): void
}
const scope = self as unknown as WorkerScope
/** Off while no scene on screen shows this source: frames are then dropped unconverted. */
let active = true

scope.onmessage = (e) => {
  if ('readable' in e.data) void pump(e.data.readable.getReader())
  else active = e.data.active
}

async function pump(reader: ReadableStreamDefaultReader<VideoFrame>): Promise<void> {
  try {
    for (;;) {
      const { value, done } = await reader.read()
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

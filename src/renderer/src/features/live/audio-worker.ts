// Runs in a worker: reads the capture's sound (a track processor's stream the page hands over) and
// encodes it to Opus, posting each packet to the page. On the page's thread the sound was read late
// whenever that thread was busy (measured in the uplink bench: 0.4-0.96 s behind the picture on a
// starved page), and the page's muxer, which interleaves by time, held every picture back until the
// sound caught up. Here the reading keeps the capture's pace. Every buffer read is closed here.
import { CaptureOpus, postedChunk, type AudioWorkerIn, type AudioWorkerOut } from './audio-encode'

interface WorkerScope {
  onmessage: ((e: MessageEvent<AudioWorkerIn>) => void) | null
  postMessage(message: AudioWorkerOut, transfer?: Transferable[]): void
  close(): void
}
const scope = self as unknown as WorkerScope
let reader: ReadableStreamDefaultReader<AudioData> | null = null
let done = false

scope.onmessage = (e) => {
  if ('readable' in e.data) {
    reader = e.data.readable.getReader()
    void pump(reader, e.data.bitrateKbps)
  } else void stop()
}
scope.postMessage({ ready: true })

function end(): void {
  if (done) return
  done = true
  scope.postMessage({ ended: true })
  scope.close()
}

async function stop(): Promise<void> {
  // Cancelled, the track processor closes what it still holds.
  await reader?.cancel().catch(() => undefined)
  end()
}

async function pump(r: ReadableStreamDefaultReader<AudioData>, bitrateKbps: number): Promise<void> {
  let failed = false
  const enc = new AudioEncoder({
    output: (chunk, meta) => {
      const posted = postedChunk(chunk)
      scope.postMessage({ chunk: posted, meta, filledUs: opus.filledUs }, [posted.data])
    },
    error: (e) => {
      failed = true
      scope.postMessage({ error: e.message })
    }
  })
  const opus = new CaptureOpus(enc, bitrateKbps)
  try {
    for (;;) {
      const { value, done } = await r.read()
      if (done || !value) break
      try {
        if (!failed) opus.take(value)
      } catch (e) {
        failed = true
        scope.postMessage({ error: String(e) })
      } finally {
        value.close()
      }
    }
  } catch {
    // The track stopped under us: same as its end.
  }
  // What the encoder still holds goes out before the page hears of the end.
  if (enc.state === 'configured') await enc.flush().catch(() => undefined)
  if (enc.state !== 'closed') enc.close()
  end()
}

// Runs in a worker: reads the capture's sound (a track processor's stream the page hands over) and
// encodes it to Opus, posting each packet to the page. On the page's thread the sound was read late
// whenever that thread was busy (measured in the uplink bench: 0.4-0.96 s behind the picture on a
// starved page), and the page's muxer, which interleaves by time, held every picture back until the
// sound caught up. Here the reading keeps the capture's pace. Every buffer read is closed here.
// For Onair's encoder it posts the sound unencoded (raw-media messages, rawSoundOf) instead of Opus.
import {
  CaptureOpus,
  postedChunk,
  rawSoundOf,
  type AudioWorkerIn,
  type AudioWorkerOut
} from './audio-encode'
import { SoundToRaw } from './raw-sound'

// The worker's scope is read by its fixed names only (self.postMessage, self.onmessage, self.close).
const post = (message: AudioWorkerOut, transfer: Transferable[] = []): void =>
  self.postMessage(message, { transfer })
let done = false

// One message starts the reading; the page ends it by stopping the track (or terminating the worker).
self.onmessage = (e: MessageEvent<AudioWorkerIn>) => {
  const reader = e.data.readable.getReader()
  if ('raw' in e.data) void pumpRaw(reader)
  else void pump(reader, e.data.bitrateKbps)
}
post({ ready: true })

function end(): void {
  if (done) return
  done = true
  post({ ended: true })
  self.close()
}

/** Reads every buffer into `each` until one fails (said to the page once); closes each buffer. */
async function readAll(
  r: ReadableStreamDefaultReader<AudioData>,
  each: (d: AudioData) => void
): Promise<void> {
  let failed = false
  try {
    for (;;) {
      const { value, done } = await r.read()
      if (done || !value) break
      try {
        if (!failed) each(value)
      } catch (e) {
        failed = true
        post({ error: String(e) })
      } finally {
        value.close()
      }
    }
  } catch {
    // The track stopped under us: same as its end.
  }
}

async function pump(r: ReadableStreamDefaultReader<AudioData>, bitrateKbps: number): Promise<void> {
  const enc = new AudioEncoder({
    output: (chunk, meta) => {
      const posted = postedChunk(chunk)
      post({ chunk: posted, meta, filledUs: opus.filledUs }, [posted.data])
    },
    error: (e) => post({ error: e.message })
  })
  const opus = new CaptureOpus(enc, bitrateKbps)
  await readAll(r, (d) => opus.take(d))
  // What the encoder still holds goes out before the page hears of the end.
  if (enc.state === 'configured') await enc.flush().catch(() => undefined)
  if (enc.state !== 'closed') enc.close()
  end()
}

/** Onair's encoder: the sound as raw-media messages (rawSoundOf), moved to the page, not copied. */
async function pumpRaw(r: ReadableStreamDefaultReader<AudioData>): Promise<void> {
  const sound = new SoundToRaw()
  await readAll(r, (d) => {
    for (const { bytes, timestampUs } of rawSoundOf(d, sound)) {
      const raw = bytes.buffer as ArrayBuffer
      post({ raw, timestampUs, filledUs: sound.filledUs }, [raw])
    }
  })
  end()
}

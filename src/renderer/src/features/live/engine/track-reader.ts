// Reading a capture track's frames or sound buffers, for the page's encoders (webcodecs-pusher.ts, the
// browser's; raw-pusher.ts, which hands them to Onair's): one at a time on this thread, or the sound in
// the audio worker (audio-worker.ts), so a busy page does not read it late.
import type { AudioWorkerIn, AudioWorkerOut } from './audio-encode'

// Chromium has these on the page (lib.dom does not yet): frames of a live track as a stream.
declare class MediaStreamTrackProcessor<T> {
  constructor(init: { track: MediaStreamTrack; maxBufferSize?: number })
  readonly readable: ReadableStream<T>
}

/**
 * Sound buffers (10 ms each) the capture keeps for a reader that comes late: a second. Chromium's own
 * queue is a few buffers, and a busy page lost a fifth of its sound through it when it read the sound
 * on its own thread (see audioGapFrames); the worker reads on time, but a starved machine can still
 * hold it up. Video keeps Chromium's: a late frame is better dropped.
 */
export const AUDIO_QUEUE = 100

/** The most a stop waits for the capture streams to close after their tracks were stopped. */
const READ_END_MS = 1000

/**
 * Stops the tracks and waits (at most READ_END_MS) for their reading loops to end. The streams are
 * never cancelled: a cancel drops the frames still queued without closing them (Chromium warns of
 * each one garbage-collected), while the stopped tracks end the streams after those frames, which a
 * loop still running reads and closes.
 */
export async function endReading(
  tracks: readonly MediaStreamTrack[],
  loops: readonly Promise<void>[]
): Promise<void> {
  for (const t of tracks) t.stop()
  let guard: ReturnType<typeof setTimeout> | undefined
  await Promise.race([
    Promise.all(loops),
    new Promise<void>((resolve) => (guard = setTimeout(resolve, READ_END_MS)))
  ])
  clearTimeout(guard)
}

/**
 * Reads the track until it ends, one item at a time (`each` is awaited: a frame is closed only once
 * it has been copied). Every frame and sound buffer is closed here, used or not: they hold capture
 * memory. An error of `each` goes to `onError`, and the reading goes on (closing what comes).
 */
export async function readTrack<T extends VideoFrame | AudioData>(
  track: MediaStreamTrack,
  each: (item: T) => void | Promise<void>,
  onError: (e: unknown) => void,
  maxBufferSize?: number
): Promise<void> {
  const init = maxBufferSize === undefined ? { track } : { track, maxBufferSize }
  const reader = new MediaStreamTrackProcessor<T>(init).readable.getReader()
  for (;;) {
    const r = await reader.read().catch(() => ({ done: true as const, value: undefined }))
    if (r.done) return
    try {
      await each(r.value)
    } catch (e) {
      onError(e)
    } finally {
      r.value.close()
    }
  }
}

export interface SoundReading {
  /** The track (a clone the caller stops to end the reading). */
  track: MediaStreamTrack
  /** What the worker is asked to do with the sound: Opus at a bitrate, or raw copies. */
  mode: { bitrateKbps: number } | { raw: true }
  /** Each message the worker posts back (packets, raw sound). */
  onMessage: (
    m: Exclude<AudioWorkerOut, { ready: true } | { ended: true } | { error: string }>
  ) => void
  onError: (message: string) => void
  /** The run has stopped or failed: nothing more is handed over. */
  gone: () => boolean
  /** Reads the sound on this thread instead: where no worker can load. */
  here: () => Promise<void>
  /** The worker (to terminate on a release), or undefined once there is none. */
  onWorker: (worker: Worker | undefined) => void
  /** Where the sound is read, once it is. */
  onWhere: (where: 'worker' | 'page') => void
}

/**
 * The sound, read in the audio worker. The track's sound is handed over only once the worker says it
 * runs, so a worker that cannot load (a packaging or policy problem) leaves nothing behind: the sound
 * is then read on this thread (`here`). Resolves once the sound has ended and every message came back.
 */
export function readSoundInWorker(o: SoundReading): Promise<void> {
  let worker: Worker
  try {
    worker = new Worker(new URL('./audio-worker.ts', import.meta.url), { type: 'module' })
  } catch {
    o.onWhere('page')
    return o.here()
  }
  o.onWorker(worker)
  return new Promise<void>((resolve) => {
    let handedOver = false
    worker.onmessage = (e: MessageEvent<AudioWorkerOut>) => {
      const m = e.data
      if ('ready' in m) {
        if (o.gone()) return resolve()
        const readable = new MediaStreamTrackProcessor<AudioData>({
          track: o.track,
          maxBufferSize: AUDIO_QUEUE
        }).readable
        const start: AudioWorkerIn = { readable, ...o.mode }
        worker.postMessage(start, [readable as unknown as Transferable])
        handedOver = true
        o.onWhere('worker')
      } else if ('error' in m) o.onError(m.error)
      else if ('ended' in m) {
        worker.terminate()
        resolve()
      } else o.onMessage(m)
    }
    worker.onerror = (e) => {
      e.preventDefault()
      worker.terminate()
      o.onWorker(undefined)
      if (!handedOver && !o.gone()) {
        o.onWhere('page')
        resolve(o.here())
      } else {
        o.onError('its worker failed.')
        resolve()
      }
    }
  })
}

// The newest frame of a camera or screen track, for the compositor to draw whenever its clock ticks.
// A source that is late simply keeps its last frame (the output never waits for it); `serial` counts
// the frames that arrived, so the compositor can tell a new frame from a repeated one.
//
// Chromium (and so Electron) reads a track frame by frame with MediaStreamTrackProcessor, and converts
// each frame to a bitmap in a worker; elsewhere a muted <video> element and requestVideoFrameCallback
// do the same job on this thread.
//
// A source is closed right after its track was stopped (the program stops a capture's tracks, then
// closes its frames). Closing does not cancel the reading at once: a cancelled stream drops the frames
// still queued in it without closing them (Chromium then warns of each one garbage-collected), while
// a stopped track closes its stream after them and the reader closes each as it reads it. Cancelling
// is the fallback for a stream that has not ended STOP_GRACE_MS later.

interface VideoFrameLike {
  readonly displayWidth: number
  readonly displayHeight: number
  close(): void
}
interface TrackProcessor {
  readable: ReadableStream<VideoFrameLike>
}
type TrackProcessorCtor = new (init: {
  track: MediaStreamTrack
  maxBufferSize?: number
}) => TrackProcessor

export interface FrameSource {
  /** The picture to draw now, or null before the first frame and after the track ended. */
  current(): CanvasImageSource | null
  width: number
  height: number
  /** How many frames have arrived so far. */
  serial: number
  ended: boolean
  /** Called on each new frame (the compositor's clock follows the camera). */
  onFrame?: () => void
  /** Whether the frames are needed now: a source no scene on screen shows is not converted. */
  setActive?(active: boolean): void
  close(): void
}

/** How long a closed source's stream may take to end (its track stopped) before it is cut. */
const STOP_GRACE_MS = 1000

class ProcessorFrames implements FrameSource {
  onFrame?: () => void
  width = 0
  height = 0
  serial = 0
  ended = false
  private frame: VideoFrameLike | null = null
  private reader: ReadableStreamDefaultReader<VideoFrameLike>
  private done = false

  constructor(Processor: TrackProcessorCtor, track: MediaStreamTrack, onEnded: () => void) {
    // A buffer of one: when drawing falls behind, old frames are dropped at the source.
    this.reader = new Processor({ track, maxBufferSize: 1 }).readable.getReader()
    void this.pump(onEnded)
  }

  private async pump(onEnded: () => void): Promise<void> {
    try {
      for (;;) {
        const { value, done } = await this.reader.read()
        if (done || !value) break
        this.frame?.close()
        if (this.ended) {
          // Closed: what the stream still held is read only to be closed.
          value.close()
          this.frame = null
          continue
        }
        this.frame = value
        this.width = value.displayWidth
        this.height = value.displayHeight
        this.serial++
        this.onFrame?.()
      }
    } catch {
      // The track stopped under us: same as its end.
    }
    this.done = true
    this.frame?.close()
    this.frame = null
    if (!this.ended) {
      this.ended = true
      onEnded()
    }
  }

  current(): CanvasImageSource | null {
    return this.frame as unknown as CanvasImageSource | null
  }

  close(): void {
    if (this.ended) return
    this.ended = true
    this.frame?.close()
    this.frame = null
    setTimeout(() => {
      if (!this.done) void this.reader.cancel().catch(() => undefined)
    }, STOP_GRACE_MS)
  }
}

class VideoElementFrames implements FrameSource {
  onFrame?: () => void
  serial = 0
  ended = false
  private video = document.createElement('video')
  private handle = 0

  constructor(track: MediaStreamTrack, onEnded: () => void) {
    this.video.muted = true
    this.video.playsInline = true
    this.video.srcObject = new MediaStream([track])
    void this.video.play().catch(() => undefined)
    const count = (): void => {
      this.serial++
      this.onFrame?.()
      this.handle = this.video.requestVideoFrameCallback(count)
    }
    this.handle = this.video.requestVideoFrameCallback(count)
    track.addEventListener('ended', () => {
      this.ended = true
      onEnded()
    })
  }

  get width(): number {
    return this.video.videoWidth
  }
  get height(): number {
    return this.video.videoHeight
  }

  current(): CanvasImageSource | null {
    return !this.ended && this.video.videoWidth > 0 ? this.video : null
  }

  close(): void {
    this.ended = true
    this.video.cancelVideoFrameCallback(this.handle)
    this.video.srcObject = null
  }
}

/**
 * Frames converted to bitmaps in a worker (frame-worker.ts); the draw is then a cheap blit. The track's
 * frames are handed over only once the worker says it runs, so a worker that cannot load leaves no
 * reader behind: the frames are then read on this thread instead.
 */
class WorkerFrames implements FrameSource {
  onFrame?: () => void
  width = 0
  height = 0
  serial = 0
  ended = false
  private bitmap: ImageBitmap | null = null
  private worker: Worker
  private inner: ProcessorFrames | null = null
  private active = true
  /** The worker runs and reads the track. */
  private reading = false

  constructor(Processor: TrackProcessorCtor, track: MediaStreamTrack, onEnded: () => void) {
    this.worker = new Worker(new URL('./frame-worker.ts', import.meta.url), { type: 'module' })
    this.worker.onmessage = (
      e: MessageEvent<{ ready?: boolean; bitmap?: ImageBitmap; ended?: boolean }>
    ) => {
      const { ready, bitmap, ended } = e.data
      if (ready) {
        if (this.ended) return
        const readable = new Processor({ track, maxBufferSize: 1 }).readable
        this.worker.postMessage({ readable }, [readable as unknown as Transferable])
        if (!this.active) this.worker.postMessage({ active: false })
        this.reading = true
      } else if (bitmap) {
        if (this.ended) return bitmap.close()
        this.bitmap?.close()
        this.bitmap = bitmap
        this.width = bitmap.width
        this.height = bitmap.height
        this.serial++
        this.onFrame?.()
      } else if (ended && !this.ended) {
        this.close()
        onEnded()
      } else if (ended) {
        // Closed: the worker has read and closed what the stream held (its track was stopped).
        this.worker.terminate()
      }
    }
    // A worker that cannot load (a packaging or policy problem) must not leave the slot empty: the
    // frames are then converted on this thread.
    this.worker.onerror = () => {
      if (this.ended || this.reading) return
      this.worker.terminate()
      this.inner = new ProcessorFrames(Processor, track, onEnded)
      this.inner.onFrame = () => {
        this.width = this.inner!.width
        this.height = this.inner!.height
        this.serial = this.inner!.serial
        this.onFrame?.()
      }
    }
  }

  setActive(active: boolean): void {
    if (active === this.active) return
    this.active = active
    // Before the handover the worker is told with it; after the fallback (or the close) the worker
    // is gone: the frames are read on this thread.
    if (this.reading && !this.inner && !this.ended) this.worker.postMessage({ active })
  }

  current(): CanvasImageSource | null {
    return this.inner ? this.inner.current() : this.bitmap
  }

  close(): void {
    if (this.ended) return
    this.ended = true
    // The track was stopped: the worker reads and closes what its stream still holds, says it ended,
    // and is ended. One whose stream has not ended in time cancels its reader and ends itself (and is
    // ended if it does not answer); one that never got the frames, or fell back, is simply ended.
    if (this.reading && !this.inner) {
      const worker = this.worker
      worker.postMessage({ active: false }) // what is left is closed unconverted
      setTimeout(() => {
        worker.postMessage({ stop: true })
        setTimeout(() => worker.terminate(), STOP_GRACE_MS)
      }, STOP_GRACE_MS)
    } else this.worker.terminate()
    this.inner?.close()
    this.bitmap?.close()
    this.bitmap = null
  }
}

export function frameSource(track: MediaStreamTrack, onEnded: () => void): FrameSource {
  const Processor = (globalThis as { MediaStreamTrackProcessor?: TrackProcessorCtor })
    .MediaStreamTrackProcessor
  if (!Processor) return new VideoElementFrames(track, onEnded)
  try {
    return new WorkerFrames(Processor, track, onEnded)
  } catch {
    // No module workers, or a stream that cannot be transferred: convert on this thread.
    return new ProcessorFrames(Processor, track, onEnded)
  }
}

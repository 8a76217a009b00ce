// The newest frame of a camera or screen track, for the compositor to draw whenever its clock ticks.
// A source that is late simply keeps its last frame (the output never waits for it); `serial` counts
// the frames that arrived, so the compositor can tell a new frame from a repeated one.
//
// Chromium (and so Electron) reads a track frame by frame with MediaStreamTrackProcessor; elsewhere a
// muted <video> element and requestVideoFrameCallback do the same job.

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
  close(): void
}

class ProcessorFrames implements FrameSource {
  width = 0
  height = 0
  serial = 0
  ended = false
  private frame: VideoFrameLike | null = null
  private reader: ReadableStreamDefaultReader<VideoFrameLike>

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
        this.frame = value
        this.width = value.displayWidth
        this.height = value.displayHeight
        this.serial++
      }
    } catch {
      // The track stopped under us: same as its end.
    }
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
    this.ended = true
    void this.reader.cancel().catch(() => undefined)
    this.frame?.close()
    this.frame = null
  }
}

class VideoElementFrames implements FrameSource {
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

export function frameSource(track: MediaStreamTrack, onEnded: () => void): FrameSource {
  const Processor = (globalThis as { MediaStreamTrackProcessor?: TrackProcessorCtor })
    .MediaStreamTrackProcessor
  return Processor
    ? new ProcessorFrames(Processor, track, onEnded)
    : new VideoElementFrames(track, onEnded)
}

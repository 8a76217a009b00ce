// MediaRecorder -> pushMedia, one chunk at a time and in order. Each push is awaited before the next
// starts (main applies backpressure by resolving late); the chain keeps the order MediaRecorder gave.
// It is the fallback where WebCodecs cannot encode H.264 (webcodecs-pusher.ts is the default).
import type { OnairApi, OutputSettings } from '../../../../../shared/contract'
import type { AppError } from '../../../../../shared/result'
import type { EncoderStats, Pusher } from './pusher'

/** Small slices keep latency low and let main start ffmpeg on the first bytes. */
const TIMESLICE_MS = 250

export class MediaPusher implements Pusher {
  private recorder: MediaRecorder
  private chain: Promise<void> = Promise.resolve()
  private failed = false

  constructor(
    private readonly api: OnairApi,
    private readonly runId: string,
    stream: MediaStream,
    private readonly mimeType: string,
    private readonly output: OutputSettings,
    private readonly onError: (e: AppError) => void
  ) {
    const options = {
      mimeType,
      videoBitsPerSecond: output.videoBitrateKbps * 1000,
      audioBitsPerSecond: output.audioBitrateKbps * 1000,
      // Chromium-only option (not in lib.dom yet): a keyframe every interval, so the ingest can cut
      // segments on time. Other engines ignore unknown keys.
      videoKeyFrameIntervalDuration: output.keyframeIntervalSec * 1000
    } as MediaRecorderOptions
    this.recorder = new MediaRecorder(stream, options)
    this.recorder.ondataavailable = (ev) => {
      if (ev.data.size > 0) this.enqueue(ev.data)
    }
    this.recorder.onerror = (ev) => {
      const err = (ev as Event & { error?: DOMException }).error
      this.fail({
        code: 'media',
        message: `The encoder stopped: ${err?.message ?? 'unknown error'}`
      })
    }
  }

  start(): void {
    this.recorder.start(TIMESLICE_MS)
  }

  // MediaRecorder can neither change its bitrate nor make a keyframe on demand: main's uplink
  // controller is not followed on this path (it still drops media up to the next scheduled keyframe).
  setVideoBitrate(): void {}
  requestKeyframe(): void {}

  get stats(): EncoderStats {
    const { width, height, fps, videoBitrateKbps } = this.output
    return {
      path: 'mediarecorder',
      codec: this.mimeType,
      width,
      height,
      fps,
      targetKbps: videoBitrateKbps,
      measuredKbps: null
    }
  }

  private enqueue(blob: Blob): void {
    this.chain = this.chain.then(async () => {
      if (this.failed) return
      const r = await this.api.pushMedia(this.runId, new Uint8Array(await blob.arrayBuffer()))
      if (!r.ok) this.fail(r.error)
    })
  }

  private fail(e: AppError): void {
    if (this.failed) return
    this.failed = true
    if (this.recorder.state !== 'inactive') this.recorder.stop()
    this.onError(e)
  }

  /** Stops recording and resolves once the last chunk has been handed to main. */
  async stop(): Promise<void> {
    if (this.recorder.state !== 'inactive') {
      const last = new Promise<void>((resolve) =>
        this.recorder.addEventListener('stop', () => resolve(), { once: true })
      )
      this.recorder.stop()
      await last
    }
    await this.chain
  }

  /** Stops without waiting (the run already ended on main's side). */
  abandon(): void {
    this.failed = true
    if (this.recorder.state !== 'inactive') this.recorder.stop()
  }
}

// The test pattern's sound: a 440 Hz tone written by the app into ffmpeg's stdin as raw PCM, in real
// time. It is the test pattern's lifeline: ffmpeg ignores the end of its stdin as a command line, so a
// lavfi-only ffmpeg outlived a crashed app and kept the creator live. With its audio coming from the
// app (and -shortest), the app's death is an end of file and ffmpeg ends by itself; an orderly stop is
// the same end of file, given on purpose.
import type { Writable } from 'node:stream'

export const TONE_RATE = 48_000
export const TONE_CHANNELS = 2
const BYTES_PER_FRAME = TONE_CHANNELS * 2 // s16le
const TICK_MS = 20
/** Written ahead of real time, so a busy event loop does not starve ffmpeg's audio input. */
const LEAD_MS = 200

export class ToneFeed {
  private sink: Writable | null = null
  private timer: ReturnType<typeof setInterval> | null = null
  private startedAt = 0
  private framesOut = 0
  private ended = false

  constructor(
    private readonly hz = 440,
    private readonly now: () => number = () => performance.now()
  ) {}

  attach(stdin: Writable): void {
    stdin.on('error', () => {
      // EPIPE when ffmpeg dies: its exit handler decides what happens next.
    })
    this.detach()
    this.sink = stdin
    this.startedAt = this.now()
    this.framesOut = 0
    this.pump()
    this.timer = setInterval(() => this.pump(), TICK_MS)
  }

  detach(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    this.sink = null
  }

  /** The orderly end: ffmpeg sees the end of its audio and finishes the stream (-shortest). */
  end(): void {
    this.ended = true
    const sink = this.sink
    this.detach()
    sink?.end()
  }

  private pump(): void {
    const sink = this.sink
    if (!sink || sink.destroyed || this.ended) return
    // Never more than LEAD_MS ahead; a pipe that is full is not written to until it drains.
    if (sink.writableNeedDrain) return
    const due = Math.floor(((this.now() - this.startedAt + LEAD_MS) / 1000) * TONE_RATE)
    const frames = due - this.framesOut
    if (frames <= 0) return
    sink.write(this.samples(this.framesOut, frames))
    this.framesOut = due
  }

  private samples(from: number, frames: number): Buffer {
    const buf = Buffer.alloc(frames * BYTES_PER_FRAME)
    const step = (2 * Math.PI * this.hz) / TONE_RATE
    for (let i = 0; i < frames; i++) {
      // A quarter of full scale: audible, never clipping.
      const v = Math.round(Math.sin((from + i) * step) * 8192)
      for (let c = 0; c < TONE_CHANNELS; c++) buf.writeInt16LE(v, (i * TONE_CHANNELS + c) * 2)
    }
    return buf
  }
}

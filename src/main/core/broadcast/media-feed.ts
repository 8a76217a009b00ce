// Feeds MediaRecorder chunks to whichever ffmpeg is current. Between ffmpegs the chunks collect in a
// bounded MediaBuffer; a new ffmpeg first gets the header and data from a keyframe cluster on.
import type { Writable } from 'node:stream'
import { AppFailure } from '../../../shared/result'
import { MediaBuffer } from './media-buffer'

export class MediaFeed {
  private buffer: MediaBuffer
  private sink: Writable | null = null
  private feeding = false
  private ended = false

  constructor(maxBytes?: number) {
    this.buffer = new MediaBuffer(maxBytes)
  }

  /** A new ffmpeg's stdin: it starts on a keyframe as soon as one is buffered. */
  attach(stdin: Writable): void {
    stdin.on('error', () => {
      // EPIPE when ffmpeg dies mid-write: the exit handler deals with the death itself.
    })
    this.sink = stdin
    this.feeding = false
    this.trySync()
  }

  detach(): void {
    this.sink = null
    this.feeding = false
  }

  /** Closing stdin lets ffmpeg finish the input and unpublish in order. */
  end(): void {
    this.ended = true
    this.sink?.end()
  }

  /** Takes one chunk; resolves once the current ffmpeg took it (or it was buffered). */
  async push(chunk: Buffer): Promise<void> {
    if (this.ended) return
    let pieces: Buffer[]
    try {
      pieces = this.buffer.push(chunk)
    } catch (e) {
      throw new AppFailure({
        code: 'media',
        message: `The captured media is not WebM/Matroska as expected: ${(e as Error).message}.`,
        hint: 'Record with a MediaRecorder mimeType such as video/webm;codecs=h264,opus.'
      })
    }
    const sink = this.sink
    if (!sink || sink.destroyed) return
    if (!this.feeding) {
      await this.trySync()
      return
    }
    let ok = true
    for (const p of pieces) ok = sink.write(p) && ok
    if (!ok) await drained(sink)
  }

  private trySync(): Promise<void> {
    const sink = this.sink
    if (!sink || this.feeding) return Promise.resolve()
    const start = this.buffer.startPoint()
    if (!start) return Promise.resolve()
    this.feeding = true
    let ok = true
    for (const p of start) ok = sink.write(p) && ok
    if (this.ended) sink.end()
    return ok ? Promise.resolve() : drained(sink)
  }

  /** The current ffmpeg has been given a start point and is receiving media. */
  get synced(): boolean {
    return this.feeding
  }

  get bufferedBytes(): number {
    return this.buffer.bufferedBytes
  }
}

/** Waits for 'drain', or for the pipe to go away (a dead ffmpeg must not block the renderer). */
function drained(s: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      s.off('drain', done)
      s.off('close', done)
      s.off('error', done)
      resolve()
    }
    s.on('drain', done)
    s.on('close', done)
    s.on('error', done)
  })
}

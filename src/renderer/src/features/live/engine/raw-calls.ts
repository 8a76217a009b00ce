// The raw pusher's calls to main (#33): its messages (frames with their sound, sound alone) go in
// pushFrames calls, in order, with up to MAX_IN_FLIGHT calls unanswered. Both ways pushFrames takes
// keep the calls' order (the web shell's frame socket, one WebSocket a run; Electron's frames port),
// so a second call need not wait for the first one's answer: while main takes one frame, the next one
// is already on its way, and a call's round trip no longer caps the frame rate. What comes while both
// are unanswered waits and goes in the next call, all of it (a slow call is followed by a larger one
// rather than by skipped frames; the pusher skips a frame only when MAX_BATCH already wait). Buffers
// go back to the pool once their call is answered (the bridge has copied or transferred the bytes).
import type { AppError, Result } from '../../../../../shared/result'
import type { BytePool } from './byte-pool'

/** Calls sent and not answered yet, at most: the one main is taking and the next. */
export const MAX_IN_FLIGHT = 2

export interface RawCallsOptions {
  send: (bytes: Uint8Array) => Promise<Result<void>>
  pool: BytePool
  /** A call was answered after this long (ms). */
  onAnswer?: (ms: number) => void
  /** Main refused a call: nothing more is sent. */
  onError: (e: AppError) => void
  /** Nothing waits and no call is unanswered. */
  onEmpty?: () => void
}

export class RawCalls {
  private waiting: Uint8Array[] = []
  private waitingFrames = 0
  private inFlight = 0
  private stopped = false

  constructor(private readonly o: RawCallsOptions) {}

  /** Frames waiting for a call. */
  get frames(): number {
    return this.waitingFrames
  }

  /** Calls sent and not answered yet. */
  get unanswered(): number {
    return this.inFlight
  }

  get waitingBytes(): number {
    return this.waiting.reduce((n, w) => n + w.length, 0)
  }

  /** Nothing waits and no call is unanswered. */
  get idle(): boolean {
    return this.inFlight === 0 && this.waiting.length === 0
  }

  /** Messages for the next call, behind what already waits; `frames` of them are frames. */
  add(parts: Uint8Array[], frames = 0): void {
    if (this.stopped) return
    this.waiting.push(...parts)
    this.waitingFrames += frames
    this.pump()
  }

  /** Sends nothing more and forgets what waits. */
  stop(): void {
    this.stopped = true
    this.waiting = []
    this.waitingFrames = 0
  }

  /** Sends what waits as one call, if fewer than MAX_IN_FLIGHT are unanswered. */
  pump(): void {
    if (this.stopped) return
    const parts = this.waiting
    if (parts.length === 0) {
      if (this.inFlight === 0) this.o.onEmpty?.()
      return
    }
    if (this.inFlight >= MAX_IN_FLIGHT) return
    this.waiting = []
    this.waitingFrames = 0
    let bytes = parts[0]!
    if (parts.length > 1) {
      bytes = this.o.pool.take(parts.reduce((n, p) => n + p.length, 0))
      let at = 0
      for (const p of parts) {
        bytes.set(p, at)
        at += p.length
      }
    }
    const at = performance.now()
    this.inFlight++
    void this.o.send(bytes).then((r) => {
      this.inFlight--
      for (const p of parts) this.o.pool.give(p)
      if (bytes !== parts[0]) this.o.pool.give(bytes)
      this.o.onAnswer?.(performance.now() - at)
      if (!r.ok) {
        this.stop()
        this.o.onError(r.error)
        return
      }
      this.pump()
    })
  }
}

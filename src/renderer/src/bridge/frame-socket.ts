// pushFrames in the web shell (#33): raw frames and sound go over one binary WebSocket per run
// (`/frames?runId=`, main's web/frame-socket.ts) instead of an HTTP POST a call: measured without a
// DevTools client, it costs the browser and main less (bench/results.md, 'encoder: raw frame
// transport'). Each call is one binary message; main answers each, in order, with the call's Result
// as a text message. send()
// copies the bytes into the socket's queue at once, so the caller may reuse its buffer as soon as the
// call is answered. A socket that closes answers every call still waiting with the reason main gave.
import type { Result } from '../../../shared/result'

/** The part of the browser's WebSocket used here (tests pass their own). */
export interface SocketLike {
  binaryType: string
  readyState: number
  send(data: Uint8Array): void
  close(code?: number, reason?: string): void
  onopen: ((ev: unknown) => void) | null
  onmessage: ((ev: { data: unknown }) => void) | null
  onclose: ((ev: { code: number; reason: string }) => void) | null
  onerror: ((ev: unknown) => void) | null
}

const OPEN = 1

type Answer = (r: Result<void>) => void

/** One socket a run (a live run and a recording may send at once), opened at its first call. */
export class FrameSockets {
  private readonly runs = new Map<string, RunSocket>()

  constructor(
    private readonly open: (url: string) => SocketLike,
    private readonly urlOf: (runId: string) => string
  ) {}

  push(runId: string, bytes: Uint8Array): Promise<Result<void>> {
    let run = this.runs.get(runId)
    if (!run) {
      run = new RunSocket(this.open(this.urlOf(runId)), () => this.runs.delete(runId))
      this.runs.set(runId, run)
    }
    return run.push(bytes)
  }

  /** Calls sent and not answered yet, over every run. */
  get inFlight(): number {
    let n = 0
    for (const r of this.runs.values()) n += r.inFlight
    return n
  }
}

/** A run's socket with nothing sent for this long is closed (the run has ended; a new call reopens). */
export const IDLE_CLOSE_MS = 30_000

class RunSocket {
  /** Calls sent and not answered yet, oldest first. */
  private waiting: Answer[] = []
  /** Calls made before the socket opened. */
  private queued: { bytes: Uint8Array; answer: Answer }[] = []
  private closed: Result<never> | undefined
  private idle: ReturnType<typeof setTimeout> | undefined

  constructor(
    private readonly s: SocketLike,
    gone: () => void
  ) {
    s.binaryType = 'arraybuffer'
    s.onopen = () => {
      const q = this.queued
      this.queued = []
      for (const { bytes, answer } of q) {
        this.waiting.push(answer)
        s.send(bytes)
      }
    }
    s.onmessage = (ev) => {
      const answer = this.waiting.shift()
      if (!answer) return
      let r: Result<void>
      try {
        r = JSON.parse(String(ev.data)) as Result<void>
      } catch {
        r = failed("Onair's answer to a frame could not be read")
      }
      answer(r.ok ? { ok: true, value: undefined } : r)
      if (this.inFlight === 0) {
        clearTimeout(this.idle)
        this.idle = setTimeout(() => s.close(1000), IDLE_CLOSE_MS)
      }
    }
    s.onclose = (ev) => {
      clearTimeout(this.idle)
      gone()
      this.closed = failed(
        ev.reason
          ? `The frames' connection to Onair closed: ${ev.reason}`
          : `The frames' connection to Onair closed (code ${ev.code})`
      )
      const all = [...this.waiting, ...this.queued.map((q) => q.answer)]
      this.waiting = []
      this.queued = []
      for (const a of all) a(this.closed)
    }
    s.onerror = () => undefined
  }

  get inFlight(): number {
    return this.waiting.length + this.queued.length
  }

  push(bytes: Uint8Array): Promise<Result<void>> {
    return new Promise((answer) => {
      if (this.closed) return answer(this.closed)
      clearTimeout(this.idle)
      if (this.s.readyState === OPEN) {
        this.waiting.push(answer)
        this.s.send(bytes)
      } else {
        // Sent once the socket opens (the caller keeps its buffer until the call is answered).
        this.queued.push({ bytes, answer })
      }
    })
  }
}

function failed(message: string): Result<never> {
  return {
    ok: false,
    error: {
      code: 'network',
      message,
      hint: 'Check that Onair is still running in the terminal, then go live again.'
    }
  }
}

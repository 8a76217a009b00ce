// The one restart loop for a child that must keep running: the broadcaster's and the studio's ffmpegs
// (through ffmpeg/supervised.ts) and the app's local studio. It starts an attempt, keeps that
// attempt's stderr as a redacted ring, and when the child exits without being asked to, either starts
// the next attempt after the backoff (shared/backoff.ts) or gives up, as the owner's policy says. The
// count of failed attempts starts again once the owner says the child is up (live, ready).
import type { Readable, Writable } from 'node:stream'
import { backoffDelay, type Backoff } from '../shared/backoff'
import { RedactedRing } from './ffmpeg/stderr-ring'
import { forceKill, stopChild, terminate, type ChildHandle } from './process'

/** What the loop needs of a child (a ChildProcess; tests pass fakes of the same shape). */
export interface SupervisedChild extends ChildHandle {
  readonly stdin: Writable | null
  readonly stdout: Readable | null
  readonly stderr: Readable | null
  once(event: 'exit', fn: (code: number | null, signal: NodeJS.Signals | null) => void): unknown
  once(event: 'error', fn: (err: Error) => void): unknown
}

export interface AttemptExit {
  code: number | null
  signal: NodeJS.Signals | null
  /** Set when the child could not be started at all (ENOENT, EACCES, a throwing spawn). */
  spawnError?: Error
  /** This attempt's last stderr lines, redacted. */
  stderr: string[]
  /** Restarts since the child was last up (0: this was the first attempt since then). */
  restarts: number
  /** The owner called up() during this attempt. */
  wasUp: boolean
  /** The owner called up() during any attempt. */
  everUp: boolean
  /** The exit was asked for (stop()): no restart follows. */
  stopped: boolean
}

export interface NextAttempt {
  /** 1-based count of restarts since the child was last up. */
  attempt: number
  delayMs: number
  /** When it starts (the `now` clock). */
  at: number
}

export interface SupervisedOptions<C extends SupervisedChild> {
  /** Starts attempt `n` (1-based, counted over the whole supervision). May throw, or be async. */
  spawn: (n: number) => C | Promise<C>
  backoff: Backoff
  random?: () => number
  now?: () => number
  /** Strings that must never appear in the kept stderr. */
  secrets?: readonly string[]
  ringLines?: number
  /** After an exit nobody asked for: start the next attempt after the backoff, or give up. Default: restart. */
  decide?: (exit: AttemptExit) => 'restart' | 'give-up'
  /** A new attempt's child is running (wire its stdin and stdout here). */
  onStart?: (child: C, n: number) => void
  onStderr?: (chunk: Buffer) => void
  /** Every attempt's end; `next` when another attempt follows, undefined when it was stopped or given up. */
  onExit?: (exit: AttemptExit, next?: NextAttempt) => void
}

export class Supervised<C extends SupervisedChild> {
  private current: C | null = null
  private ring: RedactedRing
  private timer: ReturnType<typeof setTimeout> | null = null
  private starts = 0
  private restarts = 0
  private everUp = false
  private upNow = false
  private stopping = false
  private pending = false
  private readonly now: () => number

  constructor(private readonly o: SupervisedOptions<C>) {
    this.now = o.now ?? Date.now
    this.ring = this.newRing()
  }

  /** The running attempt's child, if any. */
  get child(): C | null {
    return this.current
  }

  /** A restart is waiting for its backoff. */
  get waiting(): boolean {
    return this.timer !== null
  }

  get stopped(): boolean {
    return this.stopping
  }

  /** An attempt is running or being prepared. */
  get busy(): boolean {
    return this.current !== null || this.pending
  }

  /** The current (or last) attempt's stderr, redacted. */
  stderr(): string[] {
    return this.ring.snapshot()
  }

  start(): void {
    if (this.stopping || this.current || this.timer || this.pending) return
    this.launch()
  }

  /** The child works (media flowing, studio ready): the next failure starts the backoff over. */
  up(): void {
    this.restarts = 0
    this.everUp = true
    this.upNow = true
  }

  /** Skips a waiting restart's backoff. */
  retryNow(): boolean {
    if (!this.timer) return false
    clearTimeout(this.timer)
    this.launch()
    return true
  }

  /**
   * No more attempts; a waiting restart is dropped. The running child is ended by `how` (default:
   * terminate, then the tree forced after 5 s). Resolves when it has exited.
   */
  async stop(how?: (child: C) => Promise<void>): Promise<void> {
    this.stopping = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    const c = this.current
    if (!c) return
    await (how ? how(c) : stopChild(c, { graceful: () => terminate(c), killAfterMs: 5000 }))
  }

  /** Forces the running attempt's child now (a stall); its exit goes through the policy as any other. */
  kill(): void {
    if (this.current) forceKill(this.current)
  }

  private newRing(): RedactedRing {
    return new RedactedRing(this.o.secrets ?? [], this.o.ringLines ?? 50)
  }

  private launch(): void {
    this.timer = null
    this.starts += 1
    this.ring = this.newRing()
    this.upNow = false
    const n = this.starts
    let started: C | Promise<C>
    try {
      started = this.o.spawn(n)
    } catch (e) {
      this.ended(null, { code: null, signal: null, spawnError: e as Error })
      return
    }
    if (!(started instanceof Promise)) return this.attach(started, n)
    this.pending = true
    started.then(
      (c) => {
        this.pending = false
        this.attach(c, n)
        // Stopped while it was being prepared: it ends at once.
        if (this.stopping) terminate(c)
      },
      (e: Error) => {
        this.pending = false
        this.ended(null, { code: null, signal: null, spawnError: e })
      }
    )
  }

  private attach(child: C, n: number): void {
    this.current = child
    const ring = this.ring
    let spawnError: Error | undefined
    child.stderr?.on('data', (d: Buffer) => {
      ring.write(d)
      this.o.onStderr?.(d)
    })
    // EPIPE on a dying child: its exit says what happened.
    child.stdin?.on('error', () => undefined)
    child.once('error', (err) => {
      spawnError = err
      // A child that never started (ENOENT) has no pid and may never emit 'exit'.
      if (child.pid === undefined) this.ended(child, { code: null, signal: null, spawnError: err })
    })
    child.once('exit', (code, signal) => this.ended(child, { code, signal, spawnError }))
    this.o.onStart?.(child, n)
  }

  private ended(
    child: C | null,
    x: { code: number | null; signal: NodeJS.Signals | null; spawnError?: Error }
  ): void {
    if (child && this.current !== child) return
    this.current = null
    const exit: AttemptExit = {
      code: x.code,
      signal: x.signal,
      ...(x.spawnError ? { spawnError: x.spawnError } : {}),
      stderr: this.ring.snapshot(),
      restarts: this.restarts,
      wasUp: this.upNow,
      everUp: this.everUp,
      stopped: this.stopping
    }
    if (this.stopping || (this.o.decide?.(exit) ?? 'restart') === 'give-up') {
      this.stopping = true
      this.o.onExit?.(exit)
      return
    }
    this.restarts += 1
    const delayMs = backoffDelay(this.restarts, this.o.backoff, this.o.random)
    this.timer = setTimeout(() => this.launch(), delayMs)
    this.o.onExit?.(exit, { attempt: this.restarts, delayMs, at: this.now() + delayMs })
  }
}

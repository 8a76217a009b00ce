// One supervised ffmpeg: the broadcaster's push, the studio's transcoders and its multistream
// forwarders all run through here. Each attempt starts through the process-control module (tracked,
// no console window); its `-progress pipe:1` blocks are parsed and judged by the one definition of
// media flowing (showsMediaFlowing); its stderr is kept as a redacted ring; a stall timer kills an
// ffmpeg whose media time stops advancing; and the restart loop (../restart-loop.ts, with the owner's
// backoff and policy) starts the next attempt. The graceful stop is 'q' on stdin: ffmpeg closes its
// outputs and playlists in order, on every OS (Windows has no SIGINT for it).
import { spawnChild, stopChild, type ChildProcess, type ProcessPlatform } from '../process'
import type { Backoff } from '../../shared/backoff'
import { Supervised, type AttemptExit, type NextAttempt, type SupervisedChild } from '../restart-loop'
import { ProgressParser, showsMediaFlowing, type ProgressBlock } from './progress'

export interface FfmpegExit extends AttemptExit {
  /** The stall timer ended this attempt: its media time had stopped advancing. */
  stalled: boolean
}

export interface SupervisedFfmpegOptions<C extends SupervisedChild = ChildProcess> {
  /** The ffmpeg binary, started by spawnChild; or `spawn` (tests pass fakes). */
  ffmpeg?: string
  spawn?: (args: string[]) => C
  /** Attempt n's arguments (n is 1-based); async when an attempt prepares its output first. */
  args: (n: number) => readonly string[] | Promise<readonly string[]>
  backoff: Backoff
  random?: () => number
  now?: () => number
  /** Strings that must never appear in the kept stderr (URL keys are redacted anyway). */
  secrets?: readonly string[]
  ringLines?: number
  platform?: ProcessPlatform
  /** Media time not advancing for this long means a hung ffmpeg: killed, exit.stalled set. */
  stallMs?: number
  /** While true, a quiet ffmpeg is not stalled (its input is still on its way: the renderer's pace). */
  stallExcused?: () => boolean
  /** After an exit nobody asked for: restart after the backoff (the default), or give up. */
  decide?: (exit: FfmpegExit) => 'restart' | 'give-up'
  onStart?: (child: C, n: number) => void
  onProgress?: (b: ProgressBlock) => void
  /** Media is flowing in this attempt (once per attempt); the backoff starts over after it. */
  onFlowing?: (n: number) => void
  onExit?: (exit: FfmpegExit, next?: NextAttempt) => void
}

export class SupervisedFfmpeg<C extends SupervisedChild = ChildProcess> {
  private readonly sup: Supervised<C>
  private stallTimer: ReturnType<typeof setTimeout> | null = null
  private stalled = false
  private last?: FfmpegExit
  private resolveDone!: (exit: FfmpegExit) => void
  /** Resolves with the last attempt's exit once supervision has ended (stopped, or given up). */
  readonly done: Promise<FfmpegExit>

  constructor(private readonly o: SupervisedFfmpegOptions<C>) {
    this.done = new Promise((r) => (this.resolveDone = r))
    const spawn =
      o.spawn ??
      ((args: string[]) =>
        spawnChild(o.ffmpeg ?? 'ffmpeg', args, {
          stdio: ['pipe', 'pipe', 'pipe'],
          platform: o.platform
        }) as unknown as C)
    this.sup = new Supervised<C>({
      spawn: (n) => {
        const args = o.args(n)
        return args instanceof Promise ? args.then((a) => spawn([...a])) : spawn([...args])
      },
      backoff: o.backoff,
      random: o.random,
      now: o.now,
      secrets: o.secrets,
      ringLines: o.ringLines,
      decide: o.decide && ((exit) => o.decide!(this.withStall(exit, false))),
      onStart: (child, n) => this.attempt(child, n),
      onExit: (exit, next) => {
        this.clearStall()
        const x = this.withStall(exit, true)
        this.last = x
        o.onExit?.(x, next)
        if (!next) this.resolveDone(x)
      }
    })
  }

  get child(): C | null {
    return this.sup.child
  }

  get pid(): number | undefined {
    return this.sup.child?.pid
  }

  /** A restart is waiting for its backoff. */
  get waiting(): boolean {
    return this.sup.waiting
  }

  /** The current (or last) attempt's stderr, redacted. */
  stderr(): string[] {
    return this.sup.stderr()
  }

  start(): void {
    this.sup.start()
  }

  retryNow(): boolean {
    return this.sup.retryNow()
  }

  /** No more attempts. The running ffmpeg gets 'q' (an orderly end), and is forced after graceMs. */
  stop(graceMs = 5000): Promise<void> {
    return this.stopWith((child) =>
      stopChild(child, {
        graceful: () => {
          if (child.stdin?.writable) child.stdin.end('q')
        },
        killAfterMs: graceMs,
        platform: this.o.platform
      })
    )
  }

  /** No more attempts; the running ffmpeg is ended by the owner's own plan. */
  async stopWith(how: (child: C) => Promise<void>): Promise<void> {
    this.clearStall()
    const idle = !this.sup.busy
    await this.sup.stop(how)
    // Stopped between attempts (or before the first): supervision ends here.
    if (idle) this.resolveDone(this.last ?? this.notStarted())
  }

  private notStarted(): FfmpegExit {
    return {
      code: null,
      signal: null,
      stderr: [],
      restarts: 0,
      wasUp: false,
      everUp: false,
      stopped: true,
      stalled: false
    }
  }

  private withStall(exit: AttemptExit, reset: boolean): FfmpegExit {
    const x = { ...exit, stalled: this.stalled }
    if (reset) this.stalled = false
    return x
  }

  private attempt(child: C, n: number): void {
    const parser = new ProgressParser()
    let flowing = false
    let mediaUs = -1
    let blocks = 0
    child.stdout?.on('data', (d: Buffer) => {
      // The last blocks can arrive after the exit (the final media time counts): only a running
      // attempt arms the stall timer or goes flowing.
      const running = this.sup.child === child
      for (const b of parser.push(d)) {
        blocks++
        // The stall timer runs on media time: blocks that repeat the same time are a hung output.
        if (running && b.outTimeUs > mediaUs) {
          mediaUs = b.outTimeUs
          this.armStall()
        }
        if (running && !flowing && showsMediaFlowing(b, blocks)) {
          flowing = true
          this.sup.up()
          this.o.onFlowing?.(n)
        }
        this.o.onProgress?.(b)
      }
    })
    this.armStall()
    this.o.onStart?.(child, n)
  }

  private armStall(): void {
    this.clearStall()
    const ms = this.o.stallMs
    if (ms === undefined) return
    this.stallTimer = setTimeout(() => {
      if (this.o.stallExcused?.()) return this.armStall()
      this.stalled = true
      this.sup.kill()
    }, ms)
  }

  private clearStall(): void {
    if (this.stallTimer) clearTimeout(this.stallTimer)
    this.stallTimer = null
  }
}

// One live run: owns the ffmpeg child, its health, and the retry loop. States:
// idle -> connecting -> live -> reconnecting -> stopping -> ended | failed. ffmpeg has no RTMP
// reconnect of its own, so every drop ends the child and a new one starts after a backoff.
import type { Readable, Writable } from 'node:stream'
import type {
  LiveHealthEvent,
  LiveSource,
  LiveState,
  LiveStateEvent,
  OutputSettings
} from '../../../shared/contract'
import type { AppError } from '../../../shared/result'
import { buildBroadcastArgs, videoPath } from './args'
import { MediaFeed } from './media-feed'
import { ToneFeed } from './tone-feed'
import {
  ProgressParser,
  showsMediaFlowing,
  type ProgressBlock
} from '../../../node/ffmpeg/progress'
import { RedactedRing } from '../../../node/ffmpeg/stderr-ring'
import { forceKill, stopChild, terminate, type ChildHandle } from '../../../node/process'
import { backoffDelay, RECONNECT_BACKOFF, type Backoff } from '../../../shared/backoff'
import { isFinal } from '../../../shared/live-state'
import { CongestionMeter, deliveredFps, explainShortfall } from './congestion'
import { describeExit, looksLikeNetwork } from './exit-info'

export interface ChildLike extends ChildHandle {
  stdin: Writable | null
  stdout: Readable | null
  stderr: Readable | null
  once(event: 'exit', fn: (code: number | null, signal: NodeJS.Signals | null) => void): unknown
  once(event: 'error', fn: (err: Error) => void): unknown
}

export interface SupervisorOptions {
  runId: string
  streamId: string
  streamName: string
  source: LiveSource
  output: OutputSettings
  /** Full ingest URL with the key: handed to ffmpeg only. */
  url: string
  /** Strings that must never appear in kept output (the stream key). */
  secrets: string[]
  spawn: (args: string[]) => ChildLike
  autoReconnect?: boolean
  backoff?: Partial<Backoff>
  random?: () => number
  now?: () => number
  stopGraceMs?: number
  killGraceMs?: number
  /** No progress for this long means a hung ffmpeg: kill it and reconnect. */
  stallMs?: number
  mediaBufferBytes?: number
  preset?: string
  onState?: (ev: LiveStateEvent) => void
  onHealth?: (ev: LiveHealthEvent) => void
}

export class BroadcastSupervisor {
  private st: LiveStateEvent
  private child: ChildLike | null = null
  /** What goes into ffmpeg's stdin: the camera's chunks, or the test pattern's tone. */
  private feed: MediaFeed | ToneFeed
  private ring: RedactedRing
  private retryTimer: ReturnType<typeof setTimeout> | null = null
  private stallTimer: ReturnType<typeof setTimeout> | null = null
  private retries = 0
  private everLive = false
  private stalled = false
  private lastHealthAt = 0
  private meter: CongestionMeter
  private resolveDone!: (ev: LiveStateEvent) => void
  readonly done: Promise<LiveStateEvent>
  private readonly now: () => number
  private readonly backoff: Backoff

  constructor(private readonly o: SupervisorOptions) {
    this.now = o.now ?? Date.now
    this.backoff = { ...RECONNECT_BACKOFF, ...o.backoff }
    this.st = { runId: o.runId, streamId: o.streamId, streamName: o.streamName, state: 'idle' }
    this.feed = o.source.kind === 'media' ? new MediaFeed(o.mediaBufferBytes) : new ToneFeed()
    this.ring = new RedactedRing(o.secrets, 50)
    // A copied H.264 stream runs at whatever the capture encoder chose (a still scene compresses far under
    // the target): judging its bitrate against the target would cry wolf, so only speed and drops count.
    this.meter = new CongestionMeter(
      videoPath(o.source) === 'copy' ? 0 : o.output.videoBitrateKbps + o.output.audioBitrateKbps
    )
    this.done = new Promise((r) => (this.resolveDone = r))
  }

  get state(): LiveState {
    return this.st.state
  }

  status(): LiveStateEvent {
    return { ...this.st }
  }

  /** The last stderr lines, redacted: what a failure report may show. */
  stderrTail(): string[] {
    return this.ring.snapshot()
  }

  get pid(): number | undefined {
    return this.child?.pid
  }

  start(): void {
    if (this.st.state !== 'idle') return
    this.set({ state: 'connecting' })
    this.launch()
  }

  async pushMedia(chunk: Buffer): Promise<void> {
    if (!(this.feed instanceof MediaFeed) || this.isFinal() || this.st.state === 'stopping') return
    try {
      await this.feed.push(chunk)
    } catch (e) {
      const err = (e as { error?: AppError }).error
      this.fail(err ?? { code: 'media', message: 'The captured media could not be read.' })
      throw e
    }
  }

  retryNow(): void {
    if (this.st.state !== 'reconnecting' || !this.retryTimer) return
    clearTimeout(this.retryTimer)
    this.retryTimer = null
    this.launch()
  }

  /** Stop always wins: mid-retry it ends at once; otherwise orderly end, then TERM, then KILL. */
  stop(): Promise<LiveStateEvent> {
    if (this.isFinal() || this.st.state === 'stopping') return this.done
    if (!this.child) {
      this.finish({ state: 'ended' })
      return this.done
    }
    const wasLive = this.st.state === 'live'
    const child = this.child
    this.set({ state: 'stopping', nextRetryAt: undefined })
    void stopChild(child, {
      // Orderly end so the ingest sees an unpublish: EOF on stdin (the media, or the tone).
      // Still connecting: nothing to finish in order, and a blocked connect would not read its input.
      graceful: wasLive ? () => this.feed.end() : () => terminate(child),
      termAfterMs: this.o.stopGraceMs ?? 5000,
      killAfterMs: this.o.killGraceMs ?? 2000
    })
    return this.done
  }

  private isFinal(): boolean {
    return isFinal(this.st.state)
  }

  private launch(): void {
    this.clearRetry()
    let child: ChildLike
    const args = buildBroadcastArgs({ ...this.o, preset: this.o.preset })
    try {
      child = this.o.spawn(args)
    } catch (e) {
      this.fail(describeExit({ spawnError: e as Error, code: null, signal: null, tail: '' }))
      return
    }
    this.child = child
    let spawnError: Error | undefined
    const parser = new ProgressParser()
    child.stdout?.on('data', (d: Buffer) => {
      for (const b of parser.push(d)) this.onBlock(b)
    })
    child.stderr?.on('data', (d: Buffer) => this.ring.write(d))
    child.stdin?.on('error', () => {
      // EPIPE on a dying ffmpeg: the exit handler decides what happens next.
    })
    child.once('error', (err) => {
      spawnError = err
      // A child that never started (ENOENT) has no pid and may never emit 'exit'.
      if (child.pid === undefined) this.onExit(child, null, null, err)
    })
    child.once('exit', (code, signal) => this.onExit(child, code, signal, spawnError))
    if (child.stdin) this.feed.attach(child.stdin)
    this.armStall()
  }

  private onBlock(b: ProgressBlock): void {
    this.armStall()
    const state = this.st.state
    if ((state === 'connecting' || state === 'reconnecting') && showsMediaFlowing(b)) {
      this.everLive = true
      this.retries = 0
      this.set({
        state: 'live',
        liveSince: this.st.liveSince ?? this.now(),
        attempt: undefined,
        nextRetryAt: undefined,
        error: undefined
      })
    }
    const congestion = this.meter.add(b)
    const at = this.now()
    if (this.st.state === 'live' && at - this.lastHealthAt >= 1000) {
      this.lastHealthAt = at
      this.o.onHealth?.({
        runId: this.o.runId,
        at,
        fps: deliveredFps(this.meter.blocks, videoPath(this.o.source)) ?? b.fps,
        kbps: Math.round(this.meter.recentKbps() ?? b.kbps),
        speed: b.speed,
        droppedFrames: b.dropFrames,
        duplicatedFrames: b.dupFrames,
        congestion,
        targetFps: this.o.output.fps,
        targetKbps: this.o.output.videoBitrateKbps + this.o.output.audioBitrateKbps,
        shortfall: explainShortfall(this.meter.blocks, videoPath(this.o.source), this.o.output.fps)
      })
    }
  }

  private onExit(
    child: ChildLike,
    code: number | null,
    signal: NodeJS.Signals | null,
    spawnError?: Error
  ): void {
    if (this.child !== child) return
    this.child = null
    this.feed.detach()
    this.clearStall()
    if (this.st.state === 'stopping') {
      this.finish({ state: 'ended' })
      return
    }
    if (this.isFinal()) return
    const tail = this.ring.tail(3)
    const error: AppError = this.stalled
      ? {
          code: 'network',
          message: `Nothing went out for ${Math.round((this.o.stallMs ?? 20_000) / 1000)} s: the connection stalled.`
        }
      : describeExit({ spawnError, code, signal, tail })
    this.stalled = false
    const firstTry = !this.everLive && this.retries === 0
    const permanent =
      spawnError !== undefined || (firstTry && tail !== '' && !looksLikeNetwork(tail))
    if (permanent || this.o.autoReconnect === false) {
      this.fail(error)
      return
    }
    this.retries++
    const delay = backoffDelay(this.retries, this.backoff, this.o.random)
    this.set({
      state: 'reconnecting',
      attempt: this.retries,
      nextRetryAt: this.now() + delay,
      error
    })
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null
      this.set({ nextRetryAt: undefined })
      this.launch()
    }, delay)
  }

  private armStall(): void {
    this.clearStall()
    const ms = this.o.stallMs ?? 20_000
    this.stallTimer = setTimeout(() => {
      // Media that has not reached a keyframe yet is the renderer's pace, not a hung ffmpeg.
      if (this.feed instanceof MediaFeed && !this.feed.synced) return this.armStall()
      this.stalled = true
      if (this.child) forceKill(this.child)
    }, ms)
  }

  private clearStall(): void {
    if (this.stallTimer) clearTimeout(this.stallTimer)
    this.stallTimer = null
  }

  private clearRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer)
    this.retryTimer = null
  }

  private fail(error: AppError): void {
    if (this.child) forceKill(this.child)
    this.finish({
      state: 'failed',
      error: { code: error.code, message: error.message, hint: error.hint }
    })
  }

  private finish(patch: Partial<LiveStateEvent>): void {
    if (this.isFinal()) return
    this.clearRetry()
    this.clearStall()
    this.set({ ...patch, nextRetryAt: undefined })
    this.resolveDone(this.status())
  }

  private set(patch: Partial<LiveStateEvent>): void {
    this.st = { ...this.st, ...patch }
    for (const k of Object.keys(this.st) as (keyof LiveStateEvent)[])
      if (this.st[k] === undefined) delete this.st[k]
    this.o.onState?.(this.status())
  }
}

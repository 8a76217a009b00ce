// One live run: the states of the broadcaster's supervised ffmpeg (node/ffmpeg/supervised.ts), its
// media feed and its health. States: idle -> connecting -> live -> reconnecting -> stopping -> ended |
// failed. ffmpeg has no RTMP reconnect of its own, so every drop ends the child and the supervised
// ffmpeg starts a new one after the backoff.
import type {
  EncoderTargetEvent,
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
import type { ProgressBlock } from '../../../node/ffmpeg/progress'
import { SupervisedFfmpeg, type FfmpegExit } from '../../../node/ffmpeg/supervised'
import { forceKill, stopChild, terminate } from '../../../node/process'
import type { SupervisedChild } from '../../../node/restart-loop'
import { RECONNECT_BACKOFF, type Backoff } from '../../../shared/backoff'
import { isFinal } from '../../../shared/live-state'
import { SlidingWindow, kbitPerSecond } from '../../../shared/sliding-window'
import { CongestionMeter, deliveredFps, explainShortfall } from './uplink/congestion'
import { describeExit, looksLikeNetwork } from './exit-info'
import { UplinkController, uplinkShortfall } from './uplink/controller'
import type { Shortfall } from '../../../shared/shortfall'
import { pageEncoder, type EncoderControl } from './uplink/encoder-control'
import {
  BUSY_SHARE,
  DROP_NEWS_MS,
  HEALTH_EVERY_MS,
  KEYFRAME_ASK_MS,
  METER_WINDOW_S,
  MIN_RATE_SPAN_MS,
  PROGRESS_PERIOD_S,
  RECENT_MS,
  SENT_SPAN_MS,
  SKIP_NEWS_MS
} from './uplink/tuning'
import { CpuLoad } from './cpu-load'

/**
 * How long a reconnect waits to learn where the ingest is now (a local studio that restarts is ready
 * again in 2-3 s here) before it goes where the last attempt went.
 */
const URL_NOW_MS = 10_000

/** What the supervisor needs of its ffmpeg child (tests pass fakes). */
export type ChildLike = SupervisedChild

export interface SupervisorOptions {
  runId: string
  streamId: string
  streamName: string
  source: LiveSource
  output: OutputSettings
  /** Full ingest URL with the key: handed to ffmpeg only. */
  url: string
  /**
   * The URL now, asked before each reconnect (the ingest may have moved); the one used last when it
   * cannot answer within URL_NOW_MS (that attempt then fails as the network's and is retried).
   */
  urlNow?: () => Promise<string>
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
  /** Filters drawn over the test pattern (args.ts; benchmarks paint a clock). */
  testPatternOverlay?: string
  /** Record on this computer, test pattern: each attempt's local file (args.ts teeOutputArgs). */
  localFile?: () => string | undefined
  /** Bytes out so far when ffmpeg cannot count them (the tee reports N/A): the local file's size. */
  outputBytes?: () => number | undefined
  onState?: (ev: LiveStateEvent) => void
  onHealth?: (ev: LiveHealthEvent) => void
  /**
   * The encoder the uplink controller steers (a new bitrate, a keyframe after a drop). Without it,
   * `onEncoder` reaches the page's encoder by its event (pageEncoder).
   */
  encoder?: EncoderControl
  /** The page's encoder follows the uplink: a new bitrate, or a keyframe after a drop. */
  onEncoder?: (ev: EncoderTargetEvent) => void
  /**
   * Onair's encoder (#33): frames skipped before it so far (it, or its host, could not keep up). With
   * it, the health strip's cause is 'encoder' while it skips; otherwise the CPU load decides, as for
   * the page's encoder.
   */
  encoderSkipped?: () => number
  /** How busy the computer is (0..1, cpu-load.ts), read once a second; tests inject it. */
  cpuBusy?: () => number | undefined
}

interface Sample {
  at: number
  outTimeUs: number
  totalSize: number
}

export class BroadcastSupervisor {
  private st: LiveStateEvent
  private readonly ffmpeg: SupervisedFfmpeg<ChildLike>
  /** What goes into ffmpeg's stdin: the camera's chunks, or the test pattern's tone. */
  private feed: MediaFeed | ToneFeed
  private lastHealthAt = 0
  /** This attempt's pushed media clock (LiveHealthEvent.mediaEpoch); reset at each start. */
  private mediaEpoch?: number
  private meter: CongestionMeter
  /** The page's encoder only: the test pattern's ffmpeg encodes at one fixed rate. */
  private uplink: UplinkController | null
  /** Where the controller's output goes (EncoderControl). */
  private readonly encoder: EncoderControl | undefined
  private lastDropAt: number | undefined
  /** The computer's load when health was last sent (0..1), while the page encodes. */
  private cpuShare: number | undefined
  /** Onair's encoder's skipped frames as read lately (SKIP_NEWS_MS), the oldest at least that old. */
  private skips = new SlidingWindow<{ at: number; n: number }>(SKIP_NEWS_MS)
  /** This attempt's recent progress, with wall times: the rate leaving and the speed now. */
  private recent = new SlidingWindow<Sample>(RECENT_MS)
  private resolveDone!: (ev: LiveStateEvent) => void
  readonly done: Promise<LiveStateEvent>
  private readonly now: () => number
  private readonly cpuBusy: () => number | undefined

  constructor(private readonly o: SupervisorOptions) {
    this.now = o.now ?? Date.now
    const cpu = new CpuLoad()
    this.cpuBusy = o.cpuBusy ?? (() => cpu.busy())
    this.st = { runId: o.runId, streamId: o.streamId, streamName: o.streamName, state: 'idle' }
    this.feed =
      o.source.kind === 'media'
        ? new MediaFeed({
            maxBytes: o.mediaBufferBytes,
            onDrop: () => this.dropped(),
            now: this.now,
            reportEveryMs: PROGRESS_PERIOD_S * 1000
          })
        : new ToneFeed()
    this.uplink =
      o.source.kind === 'media'
        ? new UplinkController({
            maxVideoKbps: o.output.videoBitrateKbps,
            audioKbps: o.output.audioBitrateKbps
          })
        : null
    this.encoder =
      o.encoder ??
      (o.onEncoder ? pageEncoder(o.runId, o.output.videoBitrateKbps, o.onEncoder) : undefined)
    // A copied H.264 stream runs at whatever the capture encoder chose (a still scene compresses far under
    // the target): judging its bitrate against the target would cry wolf, so only speed and drops count.
    this.meter = new CongestionMeter(
      videoPath(o.source) === 'copy' ? 0 : o.output.videoBitrateKbps + o.output.audioBitrateKbps,
      // Its window: the last METER_WINDOW_S of progress blocks.
      Math.round(METER_WINDOW_S / PROGRESS_PERIOD_S)
    )
    this.done = new Promise((r) => (this.resolveDone = r))
    this.ffmpeg = new SupervisedFfmpeg<ChildLike>({
      spawn: (args) => o.spawn(args),
      // The first attempt (n 1) goes where the run was started for; a reconnect asks where that is now.
      args: (n) =>
        n <= 1 || !o.urlNow
          ? buildBroadcastArgs({ ...o, preset: o.preset })
          : this.urlNow(o.urlNow).then((url) => buildBroadcastArgs({ ...o, url, preset: o.preset })),
      backoff: { ...RECONNECT_BACKOFF, ...o.backoff },
      random: o.random,
      now: this.now,
      secrets: o.secrets,
      ringLines: 50,
      stallMs: o.stallMs ?? 20_000,
      // Media that has not reached a keyframe yet is the renderer's pace, not a hung ffmpeg.
      stallExcused: () => this.feed instanceof MediaFeed && !this.feed.synced,
      decide: (exit) => this.decide(exit),
      onStart: (child) => {
        if (this.st.nextRetryAt !== undefined) this.set({ nextRetryAt: undefined })
        this.mediaEpoch = undefined
        this.recent.clear()
        if (child.stdin) this.feed.attach(child.stdin)
      },
      onFlowing: () => this.wentLive(),
      onProgress: (b) =>
        this.onBlock(o.outputBytes && !b.totalSize ? { ...b, totalSize: o.outputBytes() ?? 0 } : b),
      onExit: (exit, next) => this.onExit(exit, next)
    })
  }

  get state(): LiveState {
    return this.st.state
  }

  status(): LiveStateEvent {
    return { ...this.st }
  }

  /** The last stderr lines, redacted: what a failure report may show. */
  stderrTail(): string[] {
    return this.ffmpeg.stderr()
  }

  get pid(): number | undefined {
    return this.ffmpeg.pid
  }

  start(): void {
    if (this.st.state !== 'idle') return
    this.set({ state: 'connecting' })
    this.ffmpeg.start()
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

  /** Ends the run as failed from outside (Onair's encoder died): its ffmpeg is stopped at once. */
  abort(error: AppError): void {
    if (this.isFinal()) return
    this.fail(error)
  }

  retryNow(): void {
    if (this.st.state !== 'reconnecting') return
    this.ffmpeg.retryNow()
  }

  /** Stop always wins: mid-retry it ends at once; otherwise orderly end, then TERM, then KILL. */
  stop(): Promise<LiveStateEvent> {
    if (this.isFinal() || this.st.state === 'stopping') return this.done
    const wasLive = this.st.state === 'live'
    if (!this.ffmpeg.child) {
      void this.ffmpeg.stopWith(() => Promise.resolve())
      this.finish({ state: 'ended' })
      return this.done
    }
    this.set({ state: 'stopping', nextRetryAt: undefined })
    void this.ffmpeg.stopWith((child) =>
      stopChild(child, {
        // Orderly end so the ingest sees an unpublish: EOF on stdin (the media, or the tone).
        // Still connecting: nothing to finish in order, and a blocked connect would not read its input.
        graceful: wasLive ? () => this.feed.end() : () => terminate(child),
        termAfterMs: this.o.stopGraceMs ?? 5000,
        killAfterMs: this.o.killGraceMs ?? 2000
      })
    )
    return this.done
  }

  private isFinal(): boolean {
    return isFinal(this.st.state)
  }

  private wentLive(): void {
    const state = this.st.state
    if (state !== 'connecting' && state !== 'reconnecting') return
    this.set({
      state: 'live',
      liveSince: this.st.liveSince ?? this.now(),
      attempt: undefined,
      nextRetryAt: undefined,
      error: undefined
    })
  }

  /** Media was dropped up to the next keyframe: the page's encoder makes one now. */
  private dropped(): void {
    const at = this.now()
    // A keyframe costs several frames' bits: on a link that is still too slow, one a second at most.
    const asked = this.lastDropAt !== undefined && at - this.lastDropAt < KEYFRAME_ASK_MS
    this.lastDropAt = at
    if (asked) return
    this.encoder?.requestKeyframe()
  }

  /**
   * The rate leaving the computer (kbit/s) and the speed over the last RECENT_MS of wall time, for
   * the health strip; and the rate over the last second, for the uplink controller (a longer window
   * still holds the faster seconds before a link slowed).
   */
  private recentRates(
    b: ProgressBlock,
    at: number
  ): { kbps?: number; speed?: number; kbpsNow?: number } {
    if (b.end) return {}
    this.recent.push({ at, outTimeUs: b.outTimeUs, totalSize: b.totalSize })
    const rate = (from: Sample): number | undefined => {
      const dt = at - from.at
      return dt < MIN_RATE_SPAN_MS ? undefined : kbitPerSecond(b.totalSize - from.totalSize, dt)
    }
    const first = this.recent.first!
    const lastSecond = this.recent.back(SENT_SPAN_MS)!
    const dt = at - first.at
    return {
      kbps: rate(first),
      speed: dt < MIN_RATE_SPAN_MS ? undefined : (b.outTimeUs - first.outTimeUs) / 1000 / dt,
      kbpsNow: rate(lastSecond)
    }
  }

  /**
   * Why the stream falls short when the uplink does not say: from ffmpeg's window. Too few frames
   * from the page of a computer too busy are the computer's, not the camera's (the compositor keeps
   * the output's rate on an idle computer whatever the camera gives).
   */
  private frameShortfall(cause: 'network' | 'encoder' | 'computer'): Shortfall | undefined {
    const s = explainShortfall(this.meter.blocks, videoPath(this.o.source), this.o.output.fps)
    if (s?.cause !== 'source-fps' || cause !== 'computer') return s
    return {
      cause: 'busy-computer',
      dropping: false,
      ...(this.cpuShare === undefined ? {} : { cpuPercent: Math.round(this.cpuShare * 100) }),
      deliveredFps: s.deliveredFps,
      targetFps: s.targetFps
    }
  }

  private onBlock(b: ProgressBlock): void {
    const at = this.now()
    const now = this.recentRates(b, at)
    // ffmpeg's speed is an average since the start: the meter judges the speed of the last seconds.
    let congestion = this.meter.add(now.speed === undefined ? b : { ...b, speed: now.speed })
    const feed = this.feed instanceof MediaFeed ? this.feed : null
    if (feed && !b.end) feed.noteSent(b.outTimeUs)
    const fs = feed?.feedStats()
    if (fs && this.uplink && this.st.state === 'live') {
      const sample = {
        at,
        queuedMs: fs.queuedMs,
        sentKbps: now.kbpsNow,
        steadyKbps: now.kbps,
        madeKbps: feed?.madeKbps(),
        sinceDropMs: this.lastDropAt === undefined ? undefined : at - this.lastDropAt
      }
      const next = this.uplink.update(sample)
      // The uplink bench's trace (ONAIR_UPLINK_DUMP sets it): what the controller saw and did.
      if (process.env.ONAIR_UPLINK_TRACE)
        console.log(
          `UPTRACE ${JSON.stringify({ ...sample, qb: fs.queuedBytes, drops: fs.drops, next, t: this.uplink.videoKbps, ao: this.uplink.audioOutKbps })}`
        )
      if (next !== undefined) this.encoder?.setBitrate(next)
    }
    const droppingNow = this.lastDropAt !== undefined && at - this.lastDropAt < DROP_NEWS_MS
    const need = this.o.output.videoBitrateKbps + this.o.output.audioBitrateKbps
    const healthDue = this.st.state === 'live' && at - this.lastHealthAt >= HEALTH_EVERY_MS
    // A computer too busy to keep up queues media just as a short upload does (its ffmpeg takes
    // what it is handed late): the machine's load says which it is.
    if (healthDue && this.uplink) this.cpuShare = this.cpuBusy()
    // Onair's encoder says itself when it cannot keep up (frames skipped before it): then that is the
    // cause, whatever the load. Otherwise the load is all there is to tell a busy computer from a short
    // upload, for either encoder: between two bursts of skips a starved computer still queues media
    // behind its ffmpeg (CI of 94c7bb5 blamed the upload there: the cause went 'network').
    const skipped = this.recentSkips(at)
    const cause: 'network' | 'encoder' | 'computer' =
      skipped && skipped.recent > 0
        ? 'encoder'
        : this.cpuShare !== undefined && this.cpuShare >= BUSY_SHARE
          ? 'computer'
          : 'network'
    const uplinkWords = this.uplink
      ? uplinkShortfall({
          state: this.uplink.state(),
          carriedKbps: this.uplink.carriedKbps,
          needKbps: need,
          droppingNow,
          cause,
          cpuShare: this.cpuShare,
          skippedFrames: skipped?.recent
        })
      : undefined
    if (this.uplink) {
      const skipping = cause === 'encoder'
      const level = droppingNow ? 3 : this.uplink.state() === 'limited' || skipping ? 2 : 0
      if (level > congestion) congestion = level as typeof congestion
    }
    // The page's media: when its output time 0 was made, from when main received it (the feed). Read
    // from ffmpeg's output instead, the catch-up it sends as it starts (what came while it probed and
    // connected) goes out faster than real time and puts the clock's start early by as much. (This
    // alone did not mend the live monitor's 2 s overstatement: bench/results.md says what is left.)
    // The test pattern (ffmpeg paces it at real time from its start): media time t went out at or
    // after epoch + t, so the earliest at − t of the attempt is its media clock's start.
    if (feed) this.mediaEpoch = feed.outputEpoch
    else if (!b.end && b.outTimeUs > 0) {
      const epoch = at - b.outTimeUs / 1000
      this.mediaEpoch = Math.min(this.mediaEpoch ?? epoch, epoch)
    }
    if (healthDue) {
      this.lastHealthAt = at
      this.o.onHealth?.({
        runId: this.o.runId,
        at,
        fps: deliveredFps(this.meter.blocks, videoPath(this.o.source)) ?? b.fps,
        kbps: Math.round(now.kbps ?? this.meter.recentKbps() ?? b.kbps),
        speed: now.speed ?? b.speed,
        droppedFrames: b.dropFrames,
        duplicatedFrames: b.dupFrames,
        congestion,
        targetFps: this.o.output.fps,
        targetKbps: this.o.output.videoBitrateKbps + this.o.output.audioBitrateKbps,
        shortfall: uplinkWords ?? this.frameShortfall(cause),
        mediaEpoch: this.mediaEpoch === undefined ? undefined : Math.round(this.mediaEpoch),
        uplink:
          fs && this.uplink
            ? {
                ...fs,
                videoTargetKbps: this.uplink.videoKbps,
                maxVideoKbps: this.o.output.videoBitrateKbps,
                // Media dropped in the last seconds: the upload is short now, whatever the raises
                // (the strip said "keeps up again" beside "frames dropped" in the uplink bench).
                state: droppingNow ? 'limited' : this.uplink.state(),
                lastDropAt: this.lastDropAt,
                cause,
                cpuPercent:
                  this.cpuShare === undefined ? undefined : Math.round(this.cpuShare * 100),
                ...(skipped ? { encoderSkipped: skipped.total } : {})
              }
            : undefined
      })
    }
  }

  /** Onair's encoder's skipped frames: so far, and within the last SKIP_NEWS_MS. */
  private recentSkips(at: number): { total: number; recent: number } | undefined {
    if (!this.o.encoderSkipped) return undefined
    const n = this.o.encoderSkipped()
    if (!this.skips.first) this.skips.push({ at, n: 0 })
    this.skips.push({ at, n })
    return { total: n, recent: n - this.skips.first!.n }
  }

  private errorOf(exit: FfmpegExit): AppError {
    return exit.stalled
      ? {
          code: 'network',
          message: `Nothing went out for ${Math.round((this.o.stallMs ?? 20_000) / 1000)} s: the connection stalled.`
        }
      : describeExit({ ...exit, tail: exit.stderr.slice(-3).join('\n') })
  }

  /** The last URL a reconnect was sent to (the run's own until one asked again). */
  private lastUrl: string | undefined

  /** Where a reconnect goes: asked now, or where the last attempt went when no answer comes soon. */
  private async urlNow(ask: () => Promise<string>): Promise<string> {
    let timer: ReturnType<typeof setTimeout> | undefined
    const late = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), URL_NOW_MS)))
    try {
      const url = await Promise.race([ask(), late])
      if (url) this.lastUrl = url
    } catch {
      // The service cannot say (a studio still starting): the attempt goes where the last went.
    } finally {
      clearTimeout(timer)
    }
    return this.lastUrl ?? this.o.url
  }

  /** A drop is retried; a first try that died of something other than the network is not. */
  private decide(exit: FfmpegExit): 'restart' | 'give-up' {
    const tail = exit.stderr.slice(-3).join('\n')
    const firstTry = !exit.everUp && exit.restarts === 0
    const permanent =
      exit.spawnError !== undefined || (firstTry && tail !== '' && !looksLikeNetwork(tail))
    return permanent || this.o.autoReconnect === false ? 'give-up' : 'restart'
  }

  private onExit(exit: FfmpegExit, next?: { attempt: number; at: number }): void {
    this.feed.detach()
    if (this.st.state === 'stopping') {
      this.finish({ state: 'ended' })
      return
    }
    if (this.isFinal()) return
    if (!next) {
      this.fail(this.errorOf(exit))
      return
    }
    this.set({
      state: 'reconnecting',
      attempt: next.attempt,
      nextRetryAt: next.at,
      error: this.errorOf(exit)
    })
  }

  private fail(error: AppError): void {
    void this.ffmpeg.stopWith(async (child) => forceKill(child))
    this.finish({
      state: 'failed',
      error: { code: error.code, message: error.message, hint: error.hint }
    })
  }

  private finish(patch: Partial<LiveStateEvent>): void {
    if (this.isFinal()) return
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

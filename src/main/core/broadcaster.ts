// The app's one live run at a time: resolves ffmpeg, builds the ingest URL with the stream key
// (which never leaves this module except as ffmpeg's argument), and hands the run to a supervisor.
//
// A camera, screen or scene run (the page's media) is encoded by Onair's own encoder process (#33)
// unless the Output says 'browser': the page sends raw frames (pushFrames), the encoder host
// (encoder/host.ts) turns them into Matroska (H.264 + AAC), and those bytes take the road the page's
// own Matroska takes (pushMedia): the local copy and the supervisor's MediaFeed, so RTMP, the local
// copy and the live monitor share one encode. The uplink controller steers that encoder by a direct
// call (SupervisorOptions.encoder). When the encoder cannot start, the run is the page's as before
// (GoLiveResult.encoder 'browser', with the reason).
import { randomUUID } from 'node:crypto'
import { availableParallelism } from 'node:os'
import type {
  AutoDeclined,
  EncoderTargetEvent,
  GoLiveArgs,
  GoLiveResult,
  LiveHealthEvent,
  LiveSource,
  LiveStateEvent,
  OutputSettings,
  RunEncoder
} from '../../shared/contract'
import type { EncoderConfig } from '../../shared/encoder-channel'
import { AppFailure } from '../../shared/result'
import { resolveFfmpeg } from '../../node/ffmpeg/locate'
import { rtmpPushUrl } from '../../node/ffmpeg/push'
import { spawnChild } from '../../node/process'
import { isFinal } from '../../shared/live-state'
import { BroadcastSupervisor, type SupervisorOptions } from './broadcast/supervisor'
import type { ChildCommand } from './child-command'
import { EncoderHost } from './encoder/host'
import type { LocalRecording, LocalRecordings } from './local-recording/recordings'

/** Knobs tests and benchmarks turn: short backoff caps, grace periods, presets. */
export type BroadcastTuning = Partial<
  Pick<
    SupervisorOptions,
    | 'backoff'
    | 'stopGraceMs'
    | 'killGraceMs'
    | 'stallMs'
    | 'mediaBufferBytes'
    | 'preset'
    | 'random'
    | 'testPatternOverlay'
  >
>

export interface StartRun {
  args: GoLiveArgs
  streamName: string
  streamKey: string
  /** rtmp://host[:port]/live */
  ingestRtmp: string
  /**
   * The ingest now, asked before each reconnect: the local studio comes back on another port when
   * its own was taken while it restarted. Without it every attempt goes to `ingestRtmp`.
   */
  ingestNow?: () => Promise<string>
}

/** What Onair's encoder writes (encoder/matroska.ts): H.264 (High) and AAC, in streamed Matroska. */
export const APP_ENCODER_MIME = 'video/x-matroska;codecs=avc1.640028,mp4a.40.2'

/**
 * The fewest CPU cores on which Automatic (no encoder chosen) picks x264. On 2 cores (this project's
 * machines) x264 veryfast at 720p30 holds 28-29 fps beside Chromium's capture at 76-96 % CPU
 * (bench:encoder, 28 Nov), with no headroom: in the uplink bench it went out at 17-24 fps at 95-98 %
 * CPU, 1.26 s behind live when steady, and missed the throttle goals (40 %: 3.09 s, 80 %: 3.36 s;
 * superfast 2.25 and 2.48 s), where the browser's encoder meets them. OBS's wizard likewise picks
 * lighter settings for a weaker machine; x264 chosen in Output is kept whatever the machine.
 */
export const X264_AUTO_MIN_CORES = 4

/** Why Automatic chose the browser's encoder on this machine (the live bar words it), or undefined when it chooses x264. */
export function autoDeclines(cores: number): AutoDeclined | undefined {
  return cores >= X264_AUTO_MIN_CORES ? undefined : { cores, minCores: X264_AUTO_MIN_CORES }
}

/**
 * The page's capture (camera, screen, scene) is encoded by Onair's encoder when the Output names one,
 * or, with no choice made (Automatic), when the machine has the cores for x264; 'browser' never.
 */
export const wantsAppEncoder = (
  args: GoLiveArgs,
  cores: number = availableParallelism()
): boolean =>
  args.source.kind === 'media' &&
  args.output.videoEncoder !== 'browser' &&
  (args.output.videoEncoder !== undefined || autoDeclines(cores) === undefined)

/**
 * The encoder's settings for an Output, as OBS sets x264 for a stream: the Output's size, rate,
 * bitrate and keyframe interval; preset veryfast unless chosen; two B-frames for RTMP (goLive is
 * RTMP only: WebRTC goes by whipStart); AAC at 48 kHz stereo at the Output's sound bitrate.
 */
export function encoderConfigOf(o: OutputSettings): EncoderConfig {
  return {
    width: o.width,
    height: o.height,
    fps: o.fps,
    videoKbps: o.videoBitrateKbps,
    keyframeSec: o.keyframeIntervalSec,
    encoder: o.videoEncoder === undefined || o.videoEncoder === 'browser' ? 'x264' : o.videoEncoder,
    preset: o.x264Preset ?? 'veryfast',
    bframes: o.transport === 'webrtc' ? 0 : 2,
    audio: { sampleRate: 48_000, channels: 2, kbps: o.audioBitrateKbps }
  }
}

/** A run's encoder as goLive decided it: Onair's (with its host) or the page's. */
export interface OpenedEncoder {
  encoder: RunEncoder
  host: EncoderHost | null
  /**
   * Where the encoder's Matroska goes from now on: what it wrote before (its header comes as it
   * starts, before the run exists) first, then each chunk as it comes.
   */
  attach?: (sink: (chunk: Buffer) => void) => void
}

/** Starts a run's local copy: a folder that cannot be made is a named failure with a way out. */
export function beginLocalCopy(
  recordings: LocalRecordings,
  run: Parameters<LocalRecordings['begin']>[0]
): LocalRecording {
  try {
    return recordings.begin(run)
  } catch (e) {
    throw new AppFailure({
      code: 'local-recording',
      message: `Recording on this computer cannot start: ${(e as Error).message}.`,
      hint: 'Choose another folder, or switch off Record on this computer.'
    })
  }
}

export class Broadcaster {
  private run: BroadcastSupervisor | null = null
  /** Record on this computer: the current run's file, and its closing once the run has ended. */
  private recording: LocalRecording | null = null
  private saved: Promise<void> = Promise.resolve()
  /** The current run's encoder (RunEncoder) and, when it is Onair's, its host. */
  private encoder: RunEncoder = { kind: 'browser' }
  private host: EncoderHost | null = null
  /** Resolves once the last run's encoder process has ended. */
  private hostStopped: Promise<void> = Promise.resolve()
  /** A goLive is starting its encoder: a second one is refused meanwhile. */
  private opening = false
  /** stop() is emptying the encoder: frames that still come are let go. */
  private draining = false

  constructor(
    private readonly o: {
      tuning?: BroadcastTuning
      onState: (e: LiveStateEvent) => void
      onHealth: (e: LiveHealthEvent) => void
      onEncoder?: (e: EncoderTargetEvent) => void
      recordings?: LocalRecordings
      /** How to start Onair's encoder process (default: encoder/host.ts's); tests pass a broken one. */
      encoderCommand?: ChildCommand
      /** The app log: the encoder's own lines go there. */
      log?: (line: string) => void
    }
  ) {}

  /**
   * Go live as goLive does: Onair's encoder for the page's capture (unless the Output says 'browser'),
   * started before the run; when it cannot start, the page encodes as before and the answer says why.
   */
  async begin(r: StartRun): Promise<GoLiveResult> {
    this.assertIdle()
    if (this.opening)
      throw new AppFailure({
        code: 'busy',
        message: 'Onair is already starting a broadcast.',
        hint: 'Wait a moment, then try again.'
      })
    this.opening = true
    let opened: OpenedEncoder
    try {
      opened = await this.openEncoder(r.args)
    } finally {
      this.opening = false
    }
    try {
      return { runId: this.start(r, opened), encoder: opened.encoder }
    } catch (e) {
      await opened.host?.stop()
      throw e
    }
  }

  /** Starts Onair's encoder for a run that wants it; a failure to start is a reason, not an error. */
  async openEncoder(args: GoLiveArgs): Promise<OpenedEncoder> {
    if (!wantsAppEncoder(args)) {
      const auto =
        args.source.kind === 'media' && args.output.videoEncoder === undefined
          ? autoDeclines(availableParallelism())
          : undefined
      return { encoder: auto ? { kind: 'browser', auto } : { kind: 'browser' }, host: null }
    }
    const host = new EncoderHost({ command: this.o.encoderCommand, log: this.o.log })
    const early: Buffer[] = []
    let sink: ((chunk: Buffer) => void) | null = null
    host.onMedia((chunk) => (sink ? sink(chunk) : early.push(chunk)))
    const attach = (to: (chunk: Buffer) => void): void => {
      sink = to
      for (const chunk of early.splice(0)) to(chunk)
    }
    const started = await host.start(encoderConfigOf(args.output))
    if (!started.ok) {
      this.o.log?.(
        `Onair's encoder could not start, the page encodes: ${JSON.stringify(started.failure)}`
      )
      return { encoder: { kind: 'browser', failure: started.failure }, host: null }
    }
    return {
      encoder: {
        kind: 'app',
        id: started.encoder,
        label: started.label,
        ...(started.fallback ? { fallback: started.fallback } : {})
      },
      host,
      attach
    }
  }

  /** Refuses a second run while one is not finished: one camera, one stream. */
  assertIdle(): void {
    if (this.run && this.run.state !== 'idle' && !isFinal(this.run.state))
      throw new AppFailure({
        code: 'busy',
        message: `Already live on "${this.run.status().streamName}".`,
        hint: 'Stop the current broadcast first.'
      })
  }

  /**
   * Starts a run (synchronously: one run at a time). With an opened encoder of Onair's, the run takes
   * its Matroska instead of the page's, and stopping or failing the run stops the encoder.
   */
  start(r: StartRun, opened: OpenedEncoder = { encoder: { kind: 'browser' }, host: null }): string {
    this.assertIdle()
    const ffmpeg = resolveFfmpeg().path
    const runId = randomUUID()
    const rec = r.args.recordLocally ? this.beginRecording(runId, r) : null
    const host = opened.host
    const encoder = opened.encoder
    // Onair's encoder makes H.264 and AAC: ffmpeg copies both (args.ts), whatever the page said.
    const source: LiveSource = host ? { kind: 'media', mimeType: APP_ENCODER_MIME } : r.args.source
    const sup = new BroadcastSupervisor({
      ...this.o.tuning,
      runId,
      streamId: r.args.streamId,
      streamName: r.streamName,
      source,
      output: r.args.output,
      autoReconnect: r.args.autoReconnect ?? true,
      url: rtmpPushUrl(r.ingestRtmp, r.streamKey),
      ...(r.ingestNow
        ? { urlNow: async () => rtmpPushUrl(await r.ingestNow!(), r.streamKey) }
        : {}),
      secrets: [r.streamKey],
      spawn: (args) => spawnChild(ffmpeg, args),
      localFile: rec && r.args.source.kind === 'test-pattern' ? () => rec.nextPart() : undefined,
      outputBytes: rec ? () => rec.partBytes() : undefined,
      // The live bar names the run's encoder: every state says it.
      onState: (e) => this.o.onState({ ...e, encoder }),
      onHealth: this.o.onHealth,
      onEncoder: this.o.onEncoder,
      // The uplink controller's new bitrate and keyframe requests: straight to Onair's encoder.
      ...(host
        ? {
            encoder: {
              setBitrate: (kbps: number) => host.setBitrate(kbps),
              requestKeyframe: () => host.requestKeyframe()
            },
            encoderSkipped: () => host.stats().skipped
          }
        : {})
    })
    this.run = sup
    this.recording = rec
    this.encoder = encoder
    this.host = host
    this.draining = false
    if (host) this.attachHost(sup, opened, rec)
    // Ended or failed, the run is over: the file is closed and remuxed (the app's death skips this,
    // and the Matroska written so far plays).
    if (rec) this.saved = sup.done.then(() => rec.finish())
    sup.start()
    return runId
  }

  /**
   * The encoder's Matroska goes where the page's goes (pushMedia): the local copy, then the feed. The
   * run's end stops the encoder; the encoder's death fails the run (the page's frames go nowhere).
   */
  private attachHost(
    sup: BroadcastSupervisor,
    { host, attach }: OpenedEncoder,
    rec: LocalRecording | null
  ): void {
    if (!host) return
    const take = (chunk: Buffer): void => {
      if (isFinal(sup.state)) return
      rec?.write(chunk)
      // A Matroska the feed cannot read fails the run (supervisor.pushMedia says so itself).
      sup.pushMedia(chunk).catch(() => undefined)
    }
    if (attach) attach(take)
    else host.onMedia(take)
    host.onEnd((reason) => {
      if (reason === undefined || isFinal(sup.state)) return
      sup.abort({
        code: 'encoder-failed',
        message: `Onair's encoder stopped: ${reason}.`,
        hint: 'Go live again; if it happens again, choose Browser (WebCodecs) as the encoder in Output.'
      })
    })
    // A stop empties the encoder first (stop() below); a failure or a give-up ends it here.
    this.hostStopped = sup.done.then(() => host.stop())
  }

  private beginRecording(runId: string, r: StartRun): LocalRecording | null {
    if (!this.o.recordings) return null
    return beginLocalCopy(this.o.recordings, {
      runId,
      streamId: r.args.streamId,
      streamName: r.streamName,
      fps: r.args.output.fps,
      audioKbps: r.args.output.audioBitrateKbps
    })
  }

  private get(runId: string): BroadcastSupervisor {
    if (!this.run || this.run.status().runId !== runId)
      throw new AppFailure({
        code: 'not-found',
        message: 'That broadcast is not running any more.'
      })
    return this.run
  }

  pushMedia(runId: string, chunk: Uint8Array): Promise<void> {
    const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    const run = this.get(runId)
    if (this.host)
      throw new AppFailure({
        code: 'bad-request',
        message: "This broadcast is encoded by Onair's encoder: it takes raw frames (pushFrames).",
        hint: 'Send with pushFrames, as Go live answered (encoder: app).'
      })
    // The local file takes every byte the renderer sends, through reconnects (it never blocks the push).
    if (!isFinal(run.state)) this.recording?.write(buf)
    return run.pushMedia(buf)
  }

  /**
   * Raw frames and sound for Onair's encoder (#33): only a run whose GoLiveResult said encoder 'app'
   * takes them. Frames the encoder cannot take in time are skipped and counted (the health strip's
   * 'encoder' cause), never waited for.
   */
  async pushFrames(runId: string, chunk: Uint8Array): Promise<void> {
    const run = this.get(runId)
    const host = this.host
    if (!host)
      throw new AppFailure({
        code: 'bad-request',
        message: 'This broadcast takes encoded media from the page (pushMedia), not raw frames.',
        hint: 'Send with pushMedia, as Go live answered (encoder: browser).'
      })
    if (isFinal(run.state) || run.state === 'stopping' || this.draining) return
    const r = host.pushRaw(chunk)
    if (!r.ok)
      throw new AppFailure({
        code: 'bad-request',
        message: `Onair's encoder cannot take these frames: ${r.error}.`,
        hint: "Send the Output's size, as Go live was given it."
      })
  }

  async stop(runId: string): Promise<void> {
    await this.end(this.get(runId))
  }

  /** Onair's encoder first: what it still holds goes out, and into the copy, before the feed ends. */
  private async end(run: BroadcastSupervisor): Promise<void> {
    if (this.host && !isFinal(run.state)) {
      this.draining = true
      await this.host.stop()
    }
    await run.stop()
  }

  /** Resolves once the last run's local file is closed (and remuxed). */
  recordingSaved(): Promise<void> {
    return this.saved
  }

  retryNow(runId: string): void {
    this.get(runId).retryNow()
  }

  status(): LiveStateEvent | null {
    const s = this.run?.status()
    return s ? { ...s, encoder: this.encoder } : null
  }

  /** The current run's ffmpeg pid (tests check that none is left). */
  get pid(): number | undefined {
    return this.run?.pid
  }

  /** The current run's encoder process, while it runs (tests pause it, check its figures). */
  get encoderHost(): EncoderHost | null {
    return this.host
  }

  async shutdown(): Promise<void> {
    if (this.run) await this.end(this.run)
    await this.hostStopped
    await this.saved
  }
}

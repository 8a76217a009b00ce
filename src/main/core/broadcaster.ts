// The app's one live run at a time: resolves ffmpeg, builds the ingest URL with the stream key
// (which never leaves this module except as ffmpeg's argument), and hands the run to a supervisor.
import { randomUUID } from 'node:crypto'
import type {
  EncoderTargetEvent,
  GoLiveArgs,
  LiveHealthEvent,
  LiveStateEvent
} from '../../shared/contract'
import { AppFailure } from '../../shared/result'
import { resolveFfmpeg } from '../../node/ffmpeg/locate'
import { spawnChild } from '../../node/process'
import { isFinal } from '../../shared/live-state'
import { BroadcastSupervisor, type SupervisorOptions } from './broadcast/supervisor'
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

  constructor(
    private readonly o: {
      tuning?: BroadcastTuning
      onState: (e: LiveStateEvent) => void
      onHealth: (e: LiveHealthEvent) => void
      onEncoder?: (e: EncoderTargetEvent) => void
      recordings?: LocalRecordings
    }
  ) {}

  /** Refuses a second run while one is not finished: one camera, one stream. */
  assertIdle(): void {
    if (this.run && this.run.state !== 'idle' && !isFinal(this.run.state))
      throw new AppFailure({
        code: 'busy',
        message: `Already live on "${this.run.status().streamName}".`,
        hint: 'Stop the current broadcast first.'
      })
  }

  start(r: StartRun): string {
    this.assertIdle()
    const ffmpeg = resolveFfmpeg().path
    const runId = randomUUID()
    const rec = r.args.recordLocally ? this.beginRecording(runId, r) : null
    const sup = new BroadcastSupervisor({
      ...this.o.tuning,
      runId,
      streamId: r.args.streamId,
      streamName: r.streamName,
      source: r.args.source,
      output: r.args.output,
      autoReconnect: r.args.autoReconnect ?? true,
      url: `${r.ingestRtmp.replace(/\/+$/, '')}/${r.streamKey}`,
      secrets: [r.streamKey],
      spawn: (args) => spawnChild(ffmpeg, args),
      localFile: rec && r.args.source.kind === 'test-pattern' ? () => rec.nextPart() : undefined,
      outputBytes: rec ? () => rec.partBytes() : undefined,
      onState: this.o.onState,
      onHealth: this.o.onHealth,
      onEncoder: this.o.onEncoder
    })
    this.run = sup
    this.recording = rec
    // Ended or failed, the run is over: the file is closed and remuxed (the app's death skips this,
    // and the Matroska written so far plays).
    if (rec) this.saved = sup.done.then(() => rec.finish())
    sup.start()
    return runId
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
    // The local file takes every byte the renderer sends, through reconnects (it never blocks the push).
    if (!isFinal(run.state)) this.recording?.write(buf)
    return run.pushMedia(buf)
  }

  /** Raw frames for Onair's encoder (#33): only a run whose GoLiveResult said encoder 'app' takes them. */
  async pushFrames(runId: string, _chunk: Uint8Array): Promise<void> {
    this.get(runId)
    throw new AppFailure({
      code: 'bad-request',
      message: 'This broadcast takes encoded media from the page (pushMedia), not raw frames.',
      hint: 'Send with pushMedia, as Go live answered (encoder: browser).'
    })
  }

  async stop(runId: string): Promise<void> {
    await this.get(runId).stop()
  }

  /** Resolves once the last run's local file is closed (and remuxed). */
  recordingSaved(): Promise<void> {
    return this.saved
  }

  retryNow(runId: string): void {
    this.get(runId).retryNow()
  }

  status(): LiveStateEvent | null {
    return this.run?.status() ?? null
  }

  /** The current run's ffmpeg pid (tests check that none is left). */
  get pid(): number | undefined {
    return this.run?.pid
  }

  async shutdown(): Promise<void> {
    await this.run?.stop()
    await this.saved
  }
}

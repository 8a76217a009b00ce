// The setup test (#34 §1), start to end: a throwaway stream on the active service (deleted after,
// also when the test fails or is cancelled), the upload test to its ingest with its key, the encoder
// test, and the recommendation (shared/setup-test.ts's rule). One test at a time; progress as
// 'setup:progress' events, states and numbers only (the guide words them); cancel() ends it and
// answers 'cancelled'.
import { randomUUID } from 'node:crypto'
import { availableParallelism } from 'node:os'
import { AppFailure } from '../../../shared/result'
import type {
  SetupTestProgress,
  SetupTestResult,
  SetupTestStep,
  UploadMeasure
} from '../../../shared/contract'
import { recommendSettings } from '../../../shared/setup-test'
import type { ActiveService } from '../connections'
import type { ChildCommand } from '../child-command'
import { rtmpPushUrl } from '../../../node/ffmpeg/push'
import { measureUpload } from './upload'
import { measureEncoder } from './encoder'
import { autoDeclines } from '../broadcaster'

export interface SetupTestOptions {
  active: () => Promise<ActiveService>
  ffmpeg: () => string
  encoderCommand?: ChildCommand
  /** Another broadcast runs: the test would compete with it for the upload and the CPU. */
  busy: () => boolean
  emit: (p: SetupTestProgress) => void
  log?: (line: string) => void
}

/** The upload takes this share of the bar, the encoder the rest. */
const UPLOAD_SHARE_OF_BAR = 0.55

export class SetupTests {
  private running: { id: string; abort: AbortController } | null = null

  constructor(private readonly o: SetupTestOptions) {}

  cancel(): void {
    this.running?.abort.abort()
  }

  async run(): Promise<SetupTestResult> {
    if (this.running)
      throw new AppFailure({
        code: 'busy',
        message: 'The setup test is already running.',
        hint: 'Wait for it, or cancel it.'
      })
    if (this.o.busy())
      throw new AppFailure({
        code: 'busy',
        message: 'A broadcast is running: the setup test would compete with it.',
        hint: 'Stop the broadcast first, then run the test.'
      })
    const run = { id: randomUUID(), abort: new AbortController() }
    this.running = run
    const emit = (step: SetupTestStep, fraction: number): void =>
      this.o.emit({ ...step, testId: run.id, fraction: Math.max(0, Math.min(1, fraction)) })
    try {
      const { conn, client, ingest } = await this.o.active()
      emit({ part: 'stream' }, 0)
      const upload = await this.upload(client, ingest.rtmp, run.abort.signal, emit)
      const cancelled = (): never => {
        throw new AppFailure({ code: 'cancelled', message: 'The setup test was cancelled.' })
      }
      if (run.abort.signal.aborted) cancelled()
      const encoder = await measureEncoder({
        command: this.o.encoderCommand,
        ffmpeg: this.o.ffmpeg,
        signal: run.abort.signal,
        onProgress: (f, size) =>
          emit({ part: 'encoder', size }, UPLOAD_SHARE_OF_BAR + f * (1 - UPLOAD_SHARE_OF_BAR))
      })
      if (run.abort.signal.aborted) cancelled()
      const service = { kind: conn.kind, name: conn.name }
      const recommendation = recommendSettings(
        service,
        upload,
        encoder,
        autoDeclines(availableParallelism())
      )
      emit({ part: 'done' }, 1)
      this.o.log?.(
        `setup test: upload ${upload.kbps !== null ? `${upload.kbps} kbit/s` : `not measured (${JSON.stringify(upload.failure ?? null)})`} of ${upload.pushedKbps} kbit/s pushed; ` +
          `encoder ${encoder.via}: ${encoder.sizes.map((s) => `${s.height}p${s.fps} ${s.holds ? 'holds' : `no (${s.fpsReached} fps)`}`).join(', ')}; ` +
          `recommended ${recommendation.height}p${recommendation.fps} at ${recommendation.videoBitrateKbps}+${recommendation.audioBitrateKbps} kbit/s (${recommendation.basis})`
      )
      return { service, upload, encoder, recommendation, finishedAt: Date.now() }
    } finally {
      this.running = null
    }
  }

  /** The throwaway stream, the push, and the stream deleted whatever happened. */
  private async upload(
    client: ActiveService['client'],
    ingestRtmp: string,
    signal: AbortSignal,
    emit: (step: SetupTestStep, fraction: number) => void
  ): Promise<UploadMeasure> {
    const stream = await client.createStream({
      name: 'Onair setup test (deleted after)',
      profiles: [],
      record: false
    })
    const streamId = stream.id ?? ''
    try {
      if (!stream.streamKey) return { kbps: null, pushedKbps: 0, failure: { kind: 'no-key' } }
      const key = stream.streamKey
      emit({ part: 'upload', kbps: null }, 0.02)
      return await measureUpload({
        ffmpeg: this.o.ffmpeg(),
        url: rtmpPushUrl(ingestRtmp, key),
        key,
        signal,
        onProgress: (f, kbps) => emit({ part: 'upload', kbps }, f * UPLOAD_SHARE_OF_BAR)
      })
    } catch (e) {
      if (e instanceof AppFailure) throw e
      return {
        kbps: null,
        pushedKbps: 0,
        failure: { kind: 'failed', detail: (e as Error).message }
      }
    } finally {
      if (streamId)
        await client
          .deleteStream(streamId)
          .catch((e: unknown) =>
            this.o.log?.(
              `setup test: the test stream ${streamId} could not be deleted: ${String(e)}`
            )
          )
    }
  }
}

// Record without going live (#34 §2, OBS's Record button): the page's capture (camera, screen, scene)
// is encoded by Onair's encoder with the Output's settings, and its Matroska is written to the Record
// on this computer folder as a local copy (the same index, finishing into MP4 and crash-safety as a
// live run's copy): no stream, no RTMP. The page sends raw frames with pushFrames(recordingId).
//
// A recording has its own encoder and is apart from any live run: going live while recording, or
// stopping the live run, never touches the recording's file (core.ts gives a live run that starts
// while a recording goes no copy of its own, so there is one file).
import { randomUUID } from 'node:crypto'
import type { OutputSettings, RecordStartResult } from '../../shared/contract'
import { AppFailure } from '../../shared/result'
import { encoderStartText } from '../../shared/encoder-start'
import { beginLocalCopy, encoderConfigOf } from './broadcaster'
import type { ChildCommand } from './child-command'
import { EncoderHost } from './encoder/host'
import type { LocalRecording, LocalRecordings } from './local-recording/recordings'

/** The name a recording with no stream has in the index and in its file name. */
export const RECORDING_NAME = 'Recording'

interface Current {
  id: string
  host: EncoderHost
  rec: LocalRecording
  /** stop() is emptying the encoder: frames that still come are let go. */
  draining: boolean
}

export class Recorder {
  private cur: Current | null = null
  private opening = false
  private saved: Promise<void> = Promise.resolve()

  constructor(
    private readonly o: {
      recordings: LocalRecordings
      encoderCommand?: ChildCommand
      log?: (line: string) => void
    }
  ) {}

  /** The recording going now, if any. */
  get id(): string | null {
    return this.cur?.id ?? null
  }

  async start(args: { output: OutputSettings }): Promise<RecordStartResult> {
    if (this.cur || this.opening)
      throw new AppFailure({
        code: 'busy',
        message: 'Onair is already recording.',
        hint: 'Stop the recording first.'
      })
    this.opening = true
    try {
      const host = new EncoderHost({ command: this.o.encoderCommand, log: this.o.log })
      const early: Buffer[] = []
      let sink: ((chunk: Buffer) => void) | null = null
      host.onMedia((chunk) => (sink ? sink(chunk) : early.push(chunk)))
      const started = await host.start(encoderConfigOf(args.output))
      if (!started.ok)
        throw new AppFailure({
          code: 'encoder-failed',
          message: `Onair's encoder could not start: ${encoderStartText(started.failure)}.`,
          hint: 'Choose another encoder or a smaller output size in Output, then try again.'
        })
      const id = randomUUID()
      let rec: LocalRecording
      try {
        rec = beginLocalCopy(this.o.recordings, {
          runId: id,
          streamId: '',
          streamName: RECORDING_NAME,
          fps: args.output.fps,
          audioKbps: args.output.audioBitrateKbps
        })
      } catch (e) {
        await host.stop()
        throw e
      }
      const cur: Current = { id, host, rec, draining: false }
      sink = (chunk) => rec.write(chunk)
      for (const chunk of early.splice(0)) rec.write(chunk)
      // An encoder that dies mid-recording: what it wrote is kept and finished.
      host.onEnd((reason) => {
        if (reason === undefined || this.cur !== cur) return
        this.o.log?.(`recording: Onair's encoder stopped: ${reason}`)
        void this.end(cur)
      })
      this.cur = cur
      return {
        recordingId: id,
        encoder: {
          kind: 'app',
          id: started.encoder,
          label: started.label,
          ...(started.fallback ? { fallback: started.fallback } : {})
        }
      }
    } finally {
      this.opening = false
    }
  }

  /** Raw frames for the recording's encoder (as Broadcaster.pushFrames): skipped, never waited for. */
  pushFrames(id: string, chunk: Uint8Array): void {
    const cur = this.get(id)
    if (cur.draining) return
    const r = cur.host.pushRaw(chunk)
    if (!r.ok)
      throw new AppFailure({
        code: 'bad-request',
        message: `Onair's encoder cannot take these frames: ${r.error}.`,
        hint: "Send the Output's size, as the recording was started with it."
      })
  }

  /** Empties the encoder into the file, then closes and finishes it (the answer waits for the MP4). */
  async stop(id: string): Promise<void> {
    await this.end(this.get(id))
    await this.saved
  }

  private end(cur: Current): Promise<void> {
    if (this.cur !== cur) return this.saved
    cur.draining = true
    this.cur = null
    this.saved = (async () => {
      await cur.host.stop()
      await cur.rec.finish()
    })()
    return this.saved
  }

  private get(id: string): Current {
    if (!this.cur || this.cur.id !== id)
      throw new AppFailure({ code: 'not-found', message: 'That recording is not going any more.' })
    return this.cur
  }

  async shutdown(): Promise<void> {
    if (this.cur) await this.end(this.cur)
    await this.saved
  }
}

// A live run's state: one session of a stream (resumes included), its current publish's ffmpegs,
// forwarders and health, and the options every live module shares.
import { randomBytes } from 'node:crypto'
import type { Db } from '../db'
import type { Forwarder } from '../forwarder'
import { ConditionState, type TranscodeHealth } from '../health'
import type { Ingest } from '../ingest'
import type { SessionRow } from '../session-store'
import type { StreamRow } from '../stream-store'
import type { RunningTranscoder } from '../transcoder'
import type { EmitEvent } from '../webhooks'

export interface Run {
  stream: StreamRow
  session: SessionRow
  run: number
  /**
   * This run's part of its live HLS addresses (/hls/<playbackId>/<token>/...): new at every publish,
   * so no browser cache holds an earlier run's segments under an address this run uses.
   */
  token: string
  priorSeconds: number
  lastProgress: number
  publishing: boolean
  terminated: boolean
  /** The source recorder: its media time is the session's duration. */
  transcoder?: RunningTranscoder
  /** The ladder (with profiles), supervised apart: its failures cost no recorded media. */
  ladder?: RunningTranscoder
  /** The current publish's transcoding health; undefined between publishes. */
  transcodeHealth?: TranscodeHealth
  multistreamHealth: ConditionState
  starting?: Promise<void>
  resumeTimer?: NodeJS.Timeout
  finalizing?: Promise<void>
  /** Finalizes that failed so far (a full disk), and the timer of the next try. */
  finalizeFailures?: number
  retryTimer?: NodeJS.Timeout
  /** This run's multistream forwarders, by forwardKey() (targets.ts). */
  forwarders: Map<string, Forwarder>
  /** Forwarders being stopped (finalize waits for them). */
  stopping: Set<Promise<void>>
  /** Where forwarders read this run's media; set once its transcoder runs, cleared at unpublish. */
  media?: { pullUrl: string; dir: string }
  /**
   * Where this publish's playlists begin in the publisher's media (ms), by puller ('source',
   * 'ladder'): the ingest sends a puller the stream from its latest keyframe. The first attempt's
   * (a restart appends to the same playlists).
   */
  mediaStart?: Record<string, number>
}

export interface LiveOptions {
  db: Db
  dataDir: string
  ffmpeg: string
  resumeWindowMs: number
  log: (line: string) => void
  ingest: () => Ingest
  /** Stream events for webhooks (stream.started, stream.idle, recording.ready, multistream.*). */
  emit?: EmitEvent
}

/** A run's address token: 10 hex digits, unguessable enough that runs never share one. */
export const runToken = (): string => randomBytes(5).toString('hex')

/** A run of `session` that has published nothing yet, its number and prior media time given. */
export function newRun(
  stream: StreamRow,
  session: SessionRow,
  at: { run: number; priorSeconds: number; publishing: boolean }
): Run {
  return {
    stream,
    session,
    run: at.run,
    token: runToken(),
    priorSeconds: at.priorSeconds,
    lastProgress: 0,
    publishing: at.publishing,
    terminated: false,
    multistreamHealth: new ConditionState('Multistreaming'),
    forwarders: new Map(),
    stopping: new Set()
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

// Types only: going live and recording (the Output settings, a run's arguments and answers, WHIP's
// signalling), a run's states and health, the uplink, and a broadcast cut off by a crash.
import type { Shortfall } from '../shortfall'
import type { EncoderChoice, RunEncoder, VideoEncoderId, X264Preset } from './encoders'
import type { SessionView } from './streams'

export type LiveSource =
  /** Chunks from the renderer's MediaRecorder, pushed with pushMedia. */
  | { kind: 'media'; mimeType: string }
  /** ffmpeg lavfi test pattern + tone: no camera needed. */
  | { kind: 'test-pattern' }

export interface OutputSettings {
  width: number
  height: number
  fps: number
  videoBitrateKbps: number
  audioBitrateKbps: number
  keyframeIntervalSec: number // default 2
  /**
   * The page's H.264 encoder (WebCodecs): the system's hardware encoder when it has one, or software.
   * Absent: hardware where available. Where WebCodecs cannot encode H.264, MediaRecorder is used.
   */
  encoder?: EncoderChoice
  /**
   * How the page sends: RTMP through Onair's ffmpeg (the default), or Low latency (WebRTC): WHIP
   * straight from the page, with WebRTC's own congestion control.
   */
  transport?: OutputTransport
  /**
   * Onair's own encoder (#33), outside the page: the page hands raw frames (pushFrames) to an encoder
   * process (x264, or a hardware encoder ffmpeg offers here) whose packets feed every output. 'browser'
   * keeps the page's WebCodecs encoder (EncoderChoice above). Absent: 'x264', as OBS's default.
   */
  videoEncoder?: VideoEncoderId | 'browser'
  /** x264's speed/quality trade-off when videoEncoder is x264. Absent: 'veryfast' (OBS's default). */
  x264Preset?: X264Preset
}

export type OutputTransport = 'rtmp' | 'webrtc'

export interface GoLiveArgs {
  streamId: string
  source: LiveSource
  output: OutputSettings
  autoReconnect?: boolean // default true
  /** Record on this computer while live (the Go live switch): a copy of what is sent. Default false. */
  recordLocally?: boolean
}

/**
 * Record without going live (#34 §2): the page's capture (source kind 'media') encoded by Onair's
 * encoder with the Output's settings into the Record on this computer folder; no stream.
 */
export interface RecordStartArgs {
  source: LiveSource
  output: OutputSettings
}

/** The page sends raw frames with pushFrames(recordingId); the file shows as 'live:local-recording'. */
export interface RecordStartResult {
  recordingId: string
  encoder: RunEncoder
}

export type LiveState =
  'idle' | 'connecting' | 'live' | 'reconnecting' | 'stopping' | 'ended' | 'failed'

export interface LiveStateEvent {
  runId: string
  streamId: string
  streamName: string
  state: LiveState
  /** ms since epoch when the run first went live. */
  liveSince?: number
  /** While reconnecting: attempt number (1-based) and when the next try happens (ms since epoch). */
  attempt?: number
  nextRetryAt?: number
  /** failed (or a reconnect cause): what went wrong, redacted. */
  error?: { code: string; message: string; hint?: string }
  /** The run's encoder (GoLiveResult.encoder), for the live bar to name it. */
  encoder?: RunEncoder
}

export interface LiveHealthEvent {
  runId: string
  at: number
  fps: number
  kbps: number
  speed: number
  droppedFrames: number
  duplicatedFrames: number
  /** 0 fine, 1 watch, 2 struggling, 3 failing to keep up. */
  congestion: 0 | 1 | 2 | 3
  /** What the run aims for (its output settings): shown beside the actual values. */
  targetFps: number
  targetKbps: number
  /** Why the stream falls short, if it does: states and numbers; the renderer words it (health-text.ts). */
  shortfall?: Shortfall
  /**
   * The pushed media clock: when (ms since epoch) this attempt's media time 0 went out, the earliest
   * `at − media time` of its progress blocks. The live monitor measures its delay against it.
   */
  mediaEpoch?: number
  /** The upload, when the page encodes (the media source): what waits, what is asked of the encoder. */
  uplink?: UplinkView
}

/** How the upload keeps up (#19): main's queue to the socket and the bitrate the encoder is asked for. */
export interface UplinkView {
  /** Media waiting between the page's encoder and the socket (ms). */
  queuedMs: number
  queuedBytes: number
  /** The video bitrate the encoder is asked for now, and the output's own (kbit/s). */
  videoTargetKbps: number
  maxVideoKbps: number
  /**
   * full: the output's own bitrate; limited: lowered to what the upload carries, or media dropped in
   * the last 3 s; recovering: rising while no queue builds.
   */
  state: 'full' | 'limited' | 'recovering'
  /** Media dropped so far to stay close to real time (ms), how many times, and the last (ms epoch). */
  droppedMs: number
  drops: number
  lastDropAt?: number
  /**
   * What holds the stream back when it queues or drops: the upload (`network`: media dropped before
   * the socket), Onair's encoder (`encoder`: frames skipped before the encoder in the last 3 s because
   * it could not keep up, OBS's "encoding overloaded"), or a computer too busy to encode and send in
   * real time (`computer`: its CPU was at least 97 % busy, and Onair's encoder skipped none lately), as
   * OBS tells frames dropped by the network from frames skipped for lack of CPU.
   */
  cause?: 'network' | 'encoder' | 'computer'
  /** The computer's CPU load over the last seconds (all its cores, %), when known. */
  cpuPercent?: number
  /** Onair's encoder: frames skipped before it so far this run (it or its host could not keep up). */
  encoderSkipped?: number
}

/**
 * Main -> the page's encoder while live (#19): what the uplink carries now. Main measures the media
 * queued between the encoder and the socket and the rate the ingest takes; the page's encoder follows.
 */
export interface EncoderTargetEvent {
  runId: string
  /** The video bitrate to encode at now (kbit/s): the output's own while the uplink keeps up. */
  videoBitrateKbps: number
  /** Main dropped media up to the next keyframe: make one now. */
  keyframe: boolean
}

export interface GoLiveResult {
  runId: string
  /**
   * 'app': send raw frames with pushFrames(runId); 'browser': encode in the page with WebCodecs and
   * send with pushMedia(runId), as before (a test pattern run says 'browser' too: it sends nothing).
   */
  encoder: RunEncoder
}

/**
 * Low latency (WebRTC): the page sends its capture straight to the service by WHIP. Main only does
 * the signalling, so the stream key never reaches the page: it posts the page's SDP offer to the
 * service's WHIP URL for the stream and answers the service's SDP answer.
 */
export interface WhipStartArgs {
  streamId: string
  /** The page's SDP offer (H.264 + Opus, sendonly). */
  offer: string
  /**
   * Record on this computer: main keeps a local copy of the run, whose bytes the page encodes from the
   * frames it sends and hands over with pushMedia(runId).
   */
  recordLocally?: boolean
}

export interface WhipStartResult {
  runId: string
  streamName: string
  answer: string
}

/**
 * A broadcast that Onair did not end itself (it crashed, or was killed, while live): what the next
 * start says about it, once.
 */
export interface CutOffNotice {
  runId: string
  streamId: string
  streamName: string
  /** When it was cut off (ms since epoch): the session's last media, else the app's last sign of life. */
  cutAt: number
  /** The run's session on the service, when the connection it went out on is the active one. */
  session?: SessionView
}

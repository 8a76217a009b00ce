// The one contract between the renderer and the main process. Both shells (Electron preload, web bridge)
// expose exactly `OnairApi` as `window.onair`; main implements `OnairCalls` once (src/main/core) and maps
// it through one dispatcher. Types only here; argument validators live in main/core/contract-schema.ts.
import type { Result } from './result'
import type { Profile } from './profiles'
import type { ScenesState } from './scenes'
import type { DestinationState, HealthCondition } from './stream-states'
import type { Shortfall } from './shortfall'
import type { AudioSettings, MicSettings } from './audio'
import type { HotkeyAction, HotkeySettings, KeyPlatform } from './hotkeys'
import type { PublishArgs, RecordingCheck, UploadSettings, UploadView } from './uploads'
import type { AddedWebhook, AddWebhookArgs, WebhookDelivery, WebhookView } from './webhooks'
import type { AppStatsView } from './app-stats'

export type ShellKind = 'electron' | 'web'

export interface AppInfo {
  name: string
  version: string
  platform: string // process.platform
  arch: string
  shell: ShellKind
  electron?: string
  node: string
  ffmpeg:
    | { path: string; version: string; source: 'FFMPEG_PATH' | 'ffmpeg-static' | 'PATH' }
    | { error: string }
}

// ---- connections ----------------------------------------------------------------------------------
export type ConnectionKind = 'local' | 'livepeer' | 'custom'

/** What the renderer may know of a connection: never the key itself. */
export interface ConnectionView {
  id: string
  kind: ConnectionKind
  name: string
  baseUrl: string
  hasKey: boolean
  active: boolean
}

export interface AddConnectionArgs {
  kind: 'livepeer' | 'custom'
  name?: string
  baseUrl?: string // required for custom; livepeer defaults to https://livepeer.studio/api
  apiKey: string
}

export interface ConnectionStatus {
  active: ConnectionView | null
  /**
   * For the local studio: starting, ready or failed (with the reason). Its addresses stay the same
   * across launches; `moved` says when a remembered port was taken and the ingest address changed.
   */
  local: {
    state: 'stopped' | 'starting' | 'ready' | 'failed'
    error?: string
    api?: string
    rtmp?: string
    moved?: { what: 'ingest' | 'api'; from: string; to: string }[]
  }
}

// ---- streams & sessions ---------------------------------------------------------------------------
export interface StreamView {
  id: string
  name: string
  createdAt: number
  isActive: boolean
  lastSeen: number
  record: boolean
  suspended: boolean
  profiles: Profile[]
  playbackId: string
  /** The stream key masked except its last group, e.g. `••••-••••-••••-3f9a`. */
  streamKeyMasked: string
  /** `rtmp://host/live` (without the key). */
  ingestUrl: string
  /** HLS URL for live playback. */
  playbackUrl: string
  /** The service's health verdict while active (null when it has none) and its issues, in words. */
  isHealthy: boolean | null
  issues: string[]
  /**
   * While active, Livepeer's health conditions (GET /data/stream/{id}/health: Transcoding,
   * TranscodeRealTime, Multistreaming), when the service has that endpoint.
   */
  healthConditions?: HealthCondition[]
  /** Where the service forwards this stream (multistream targets): ids only, never a URL. */
  multistream: StreamTargetRef[]
}

export interface StreamTargetRef {
  /** The multistream target's id. */
  id: string
  /** The rendition sent: one of the stream's profile names, or "source". */
  profile: string
  videoOnly: boolean
}

export type RecordingStatus = 'waiting' | 'ready' | 'failed' | 'deleted' | 'none'

export interface SessionView {
  id: string
  parentId: string
  name?: string
  createdAt: number
  lastSeen: number
  sourceSegmentsDuration: number // seconds
  record: boolean
  recordingStatus?: RecordingStatus
  recordingUrl?: string
  mp4Url?: string
  playbackId?: string
  profiles: Profile[]
  /** The copy "Record on this computer" made of this session's broadcast, if there is one. */
  localRecording?: LocalRecordingView
}

export interface RecordingDownload {
  url: string
  filename: string
  /**
   * 'mp4': a file fetched as it is (the session's MP4). 'hls': a rendition's playlist, which the shell
   * has the core remux to MP4 where the file goes (Core.saveRendition).
   */
  format: 'mp4' | 'hls'
}

export interface Page<T> {
  items: T[]
  /** Opaque cursor for the next page; absent on the last page. */
  next?: string
  total?: number
}

export interface PageArgs {
  cursor?: string
  limit?: number
}

export interface CreateStreamArgs {
  name: string
  profiles: Profile[]
  record: boolean
}

export interface UpdateStreamArgs {
  id: string
  name?: string
  profiles?: Profile[]
}

export interface IngestView {
  rtmp: string // rtmp://host[:port]/live
  playbackBase: string
}

export interface PlaybackSource {
  hrn: string
  type: string
  url: string
  width?: number
  height?: number
  bitrate?: number
}

export interface PlaybackView {
  type: 'live' | 'vod' | 'recording'
  live?: boolean
  sources: PlaybackSource[]
}

// ---- destinations (multistream targets) -----------------------------------------------------------
/** One place the service forwards a stream to. Its URL (with the key) is never returned by the service. */
export interface DestinationView extends StreamTargetRef {
  name: string
  disabled: boolean
  /** idle while the stream is not active; live, retrying (with the reason) or disabled while it is. */
  state: DestinationState
  reason?: string
}

export interface DestinationsView {
  streamId: string
  streamActive: boolean
  destinations: DestinationView[]
}

export interface AddDestinationArgs {
  streamId: string
  name: string
  /** server URL + "/" + stream key (shared/destinations.ts buildTargetUrl): sent once, never shown again. */
  url: string
  profile: string
  videoOnly: boolean
}

// ---- going live -----------------------------------------------------------------------------------
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

/** The encoders Onair's encoder process can run (#33): x264, or a hardware one ffmpeg offers. */
export const VIDEO_ENCODER_IDS = [
  'x264',
  'nvenc',
  'qsv',
  'amf',
  'videotoolbox',
  'vaapi',
  'mediafoundation'
] as const
export type VideoEncoderId = (typeof VIDEO_ENCODER_IDS)[number]

/** x264's presets Onair offers, fastest first (OBS offers the same list; slower ones cannot keep up live). */
export const X264_PRESETS = [
  'ultrafast',
  'superfast',
  'veryfast',
  'faster',
  'fast',
  'medium'
] as const
export type X264Preset = (typeof X264_PRESETS)[number]

/** One encoder this machine was asked to open (probed once per app start). */
export interface EncoderInfo {
  id: VideoEncoderId
  /** "x264 (software)", "NVIDIA NVENC H.264" */
  label: string
  hardware: boolean
  /** It opened on a small test frame here. */
  available: boolean
  /** Why it cannot start here (the encoder's own error), when it cannot. */
  reason?: string
}

/**
 * Which encoder makes a run's picture: Onair's encoder process (the page sends raw frames with
 * pushFrames), or the page's own WebCodecs (pushMedia as before), with the reason when Onair's could
 * not start.
 */
export type RunEncoder =
  /** reason: why it is not the encoder the Output chose (a hardware encoder that would not open). */
  | { kind: 'app'; id: VideoEncoderId; label: string; reason?: string }
  | { kind: 'browser'; reason?: string }

export type EncoderChoice = 'hardware' | 'software'

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

// ---- record on this computer (local-recording/) ---------------------------------------------------
/**
 * One local recording: recording while live, saved (remuxed to MP4, or kept as Matroska when the codecs
 * cannot go into MP4), interrupted (the app closed mid-run: the .mkv plays), or stopped by an error
 * (e.g. disk-full) while the broadcast went on.
 */
export interface LocalRecordingView {
  id: string
  runId: string
  streamId: string
  streamName: string
  /** ms since epoch */
  startedAt: number
  endedAt?: number
  /** Absolute path of the file (the first one, when a reconnect split a test pattern's file). */
  file: string
  /** Further files, when the recording could not be joined into one. */
  moreFiles?: string[]
  /**
   * interrupted: Onair closed (crashed, was killed) while it was written; the next start makes the
   * file whole (an MP4, or Matroska with its length written) and the state stays interrupted.
   */
  state: 'recording' | 'saved' | 'interrupted' | 'stopped'
  error?: { code: string; message: string; hint?: string }
  /** interrupted: when the file was last written (ms since epoch), the moment it was cut off. */
  cutAt?: number
  /** Seconds the file plays, once it is finished (a clean stop, or the start after a cut). */
  durationSec?: number
}

/** What the Go live switch shows: the folder, its short label and the free space there. */
export interface LocalRecordingInfo {
  folder: string
  /** "Videos/Onair" */
  label: string
  /** The default folder (where the folder goes back to when the setting is cleared). */
  defaultFolder: string
  /** Free bytes on the folder's disk (or its nearest existing parent's); undefined if unknown. */
  freeBytes?: number
  /** Less than LOW_SPACE_BYTES free: Go live warns. */
  lowSpace: boolean
}

/** What openLocalRecording did: opened by the OS, or (web shell) only the path to show. */
export interface OpenLocalResult {
  opened: boolean
  path: string
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
   * the last 3 s; recovering: rising while the upload keeps up.
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
   * real time (`computer`: its CPU was at least 97 % busy, when the page encodes), as OBS tells frames
   * dropped by the network from frames skipped for lack of CPU.
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

/** Who is watching (#20): one viewer per player session, as the service counts them. */
export interface ViewersView {
  now: number | null
  /** Why `now` is null: the service has no viewer count, or refuses this key one. */
  unavailable?: string
  /** The most viewers read while Onair was last live on this stream (since the app started). */
  peak: number | null
}

/**
 * A clip (#20): a stretch of a live stream or of a recorded session, made by the service (POST /clip)
 * into an asset with an MP4. The local studio cuts on segment boundaries (within 1 s of each time).
 */
export interface ClipView {
  id: string
  name: string
  /** The stream and session it was cut from (as the service says). */
  streamId?: string
  sessionId?: string
  createdAt: number
  /** waiting: for the media to exist (a live clip); processing: being cut; ready: plays and saves. */
  state: 'waiting' | 'processing' | 'ready' | 'failed'
  error?: string
  /** Seconds, once ready. */
  duration?: number
  /** HLS to play, and the MP4, once ready. */
  playbackUrl?: string
  downloadUrl?: string
}

export interface CreateClipArgs {
  streamId: string
  /** A recorded session of that stream; absent: the stream live now. */
  sessionId?: string
  /** Unix ms, as the segments' wall-clock times (EXT-X-PROGRAM-DATE-TIME) say. */
  startTime: number
  endTime: number
  name?: string
}

/** A moment the creator marked while live (#20): kept by Onair, shown on the session's timeline. */
export interface MarkerView {
  id: string
  streamId: string
  /** Unix ms. */
  at: number
  label?: string
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

// ---- settings (non-secret) ------------------------------------------------------------------------
/** What "Go live" captures: a scene, the camera, a screen, or the test pattern. */
export const CAPTURE_KINDS = ['scene', 'camera', 'screen', 'test-pattern'] as const
export type CaptureKind = (typeof CAPTURE_KINDS)[number]

export interface DeviceSettings {
  videoDeviceId?: string
  audioDeviceId?: string
  output?: Partial<OutputSettings>
  sourceKind?: CaptureKind
  /**
   * The creator's scenes (shared/scenes.ts), read back through readScenes. Images are only named
   * here (content-addressed files, saveSceneImage / readSceneImage), never held.
   */
  scenes?: ScenesState
  /** Record on this computer: the switch's last position (default on) and the folder (default: Videos/Onair). */
  localRecording?: { enabled?: boolean; folder?: string }
  /** The first-run guide (the setup test): finished or skipped; absent, it opens on the first start. */
  setupGuide?: 'done' | 'skipped'
  /** The microphone's processing switches, noise gate and push-to-talk (shared/audio.ts, readMic). */
  mic?: MicSettings
  /** Each source's gain, compressor, limiter, sync offset and monitoring (shared/audio.ts, readAudio). */
  audio?: AudioSettings
}

// ---- keys (shared/hotkeys.ts) ---------------------------------------------------------------------
/** A key main could not take for the background, and why (in the creator's words). */
export interface HotkeyFailure {
  action: HotkeyAction
  accelerator: string
  reason: string
}

/** How the chosen keys stand: which work in the background (Electron's globalShortcut) and which not. */
export interface HotkeyStatus {
  /** The OS family keys are read for (Cmd on macOS, Ctrl elsewhere). */
  os: KeyPlatform
  /**
   * 'unavailable': this shell cannot hear keys in the background (the web shell): they work while the
   * page has focus. 'off': the creator keeps them to the focused window. 'on': registered globally.
   */
  background: 'unavailable' | 'off' | 'on'
  /** The keys registered globally (normalised accelerators), for the page not to act on them twice. */
  registered: { action: HotkeyAction; accelerator: string }[]
  failed: HotkeyFailure[]
}

export interface HotkeysView {
  settings: HotkeySettings
  status: HotkeyStatus
}

/** A key pressed while Onair was in the background (Electron's globalShortcut). */
export interface HotkeyActionEvent {
  action: HotkeyAction
}

// ---- the screen and window chooser (Electron's getDisplayMedia) -----------------------------------
/** One screen or window offered by Electron's desktopCapturer (src/main/core/display-chooser.ts). */
export interface DisplaySourceView {
  /** desktopCapturer's id, `screen:…` or `window:…`: what chooseDisplaySource answers with. */
  id: string
  name: string
  kind: 'screen' | 'window'
  /** A PNG data URL of about 320×180; empty when the OS gave no picture. */
  thumbnail: string
  /** The owning app's icon as a PNG data URL (windows, when the OS has one). */
  appIcon?: string
  /** Electron's display id of a screen, when known. */
  displayId?: string
}

export interface DisplayChooseEvent {
  requestId: string
  sources: DisplaySourceView[]
  /** ms since epoch: main answers "cancelled" by itself then, so the dialog closes too. */
  expiresAt: number
}

// ---- the setup test (shared/setup-test.ts decides; src/main/core/setup-test measures) --------------
export interface UploadMeasure {
  /** What the upload carried over the test's last seconds (kbit/s, the stream's bytes), or null. */
  kbps: number | null
  /** What the test stream pushed at (kbit/s). */
  pushedKbps: number
  /** Why there is no figure (the service refused the test stream, ...). */
  error?: string
}

export interface EncoderHold {
  width: number
  height: number
  fps: number
  /** Frames per second the encoder got through (frames encoded / seconds). */
  fpsReached: number
  /** Frames skipped because it could not keep up. */
  skipped: number
  holds: boolean
}

export interface EncoderMeasure {
  id: VideoEncoderId
  label: string
  /** What ran the test: Onair's encoder process, or ffmpeg's libx264 where the process cannot start. */
  via: 'encoder-process' | 'ffmpeg'
  sizes: EncoderHold[]
  error?: string
}

export interface SetupRecommendation {
  width: number
  height: number
  fps: number
  videoBitrateKbps: number
  audioBitrateKbps: number
  videoEncoder: VideoEncoderId
  /** 'upload': sized to the measured upload; 'encoder-only': no upload could be measured. */
  basis: 'upload' | 'encoder-only'
  /** The reasons, in the creator's words, one sentence each. */
  reasons: string[]
}

export interface SetupTestResult {
  service: { kind: 'local' | 'livepeer' | 'custom'; name: string }
  upload: UploadMeasure
  encoder: EncoderMeasure
  recommendation: SetupRecommendation
  /** ms since epoch */
  finishedAt: number
}

/** 'upload' or 'encoder', with 0..1 of that part done and a line for the screen. */
export interface SetupTestProgress {
  testId: string
  part: 'stream' | 'upload' | 'encoder' | 'done'
  /** 0..1 of the whole test. */
  fraction: number
  message: string
}

// ---- the calls --------------------------------------------------------------------------------------
/** What main implements: plain async functions that throw AppFailure for expected failures. */
export interface OnairCalls {
  appInfo(): Promise<AppInfo>
  /** The stats view (#34 §6): the app's CPU and memory per kind of process, and the run's numbers. */
  appStats(): Promise<AppStatsView>

  listConnections(): Promise<ConnectionView[]>
  connectionStatus(): Promise<ConnectionStatus>
  addConnection(args: AddConnectionArgs): Promise<ConnectionView>
  removeConnection(id: string): Promise<void>
  setActiveConnection(id: string): Promise<ConnectionView>

  listStreams(args: PageArgs): Promise<Page<StreamView>>
  getStream(id: string): Promise<StreamView>
  createStream(args: CreateStreamArgs): Promise<StreamView>
  updateStream(args: UpdateStreamArgs): Promise<StreamView>
  setRecord(id: string, record: boolean): Promise<StreamView>
  deleteStream(id: string): Promise<void>
  terminateStream(id: string): Promise<void>
  /** The full stream key, for reveal or copy. Never logged. */
  revealStreamKey(id: string): Promise<string>

  /** The stream's destinations with their live state (poll it while live). */
  listDestinations(streamId: string): Promise<DestinationsView>
  /** Creates the target and adds it to the stream (one request); answers the stream's destinations. */
  addDestination(args: AddDestinationArgs): Promise<DestinationsView>
  setDestinationEnabled(
    streamId: string,
    targetId: string,
    enabled: boolean
  ): Promise<DestinationsView>
  /** Takes the target off the stream, then deletes the target itself. */
  removeDestination(streamId: string, targetId: string): Promise<DestinationsView>

  listSessions(args: PageArgs & { streamId?: string }): Promise<Page<SessionView>>
  getSession(id: string): Promise<SessionView>
  /**
   * Saves the session's MP4 as "<stream name> <date>.mp4", or with `rendition` (a rendition's playlist
   * URL from the recording's master playlist, as the player lists it) that rendition as
   * "<stream name> <date> 720p.mp4": the Electron shell opens a save dialog, the web shell's bridge
   * makes the browser download it. Returns where it comes from and the file name offered.
   */
  downloadRecording(sessionId: string, rendition?: string): Promise<RecordingDownload>
  getPlayback(playbackId: string): Promise<PlaybackView>
  getIngest(): Promise<IngestView>

  goLive(args: GoLiveArgs): Promise<GoLiveResult>
  /** One MediaRecorder chunk, in order. Resolves when main has taken it (backpressure). */
  pushMedia(runId: string, chunk: Uint8Array): Promise<void>
  /**
   * Raw frames and sound for Onair's encoder (GoLiveResult.encoder.kind 'app'): one or more whole
   * raw-media messages (shared/raw-media.ts packRaw), in order. Resolves when main has taken them.
   */
  pushFrames(runId: string, chunk: Uint8Array): Promise<void>
  /** The encoders this machine can start (probed once per app start, then cached). */
  listEncoders(): Promise<EncoderInfo[]>
  stopLive(runId: string): Promise<void>
  /**
   * Record without going live: pushFrames(recordingId) feeds it; 'live:local-recording' tells its
   * state (recording, then saved). Going live meanwhile leaves the file going (the run makes no copy).
   */
  startRecording(args: RecordStartArgs): Promise<RecordStartResult>
  /** Ends the recording: resolves once the file is finished (MP4). */
  stopRecording(recordingId: string): Promise<void>
  retryNow(runId: string): Promise<void>
  /** Low latency (WebRTC): posts the page's offer to the service's WHIP URL; one run at a time. */
  whipStart(args: WhipStartArgs): Promise<WhipStartResult>
  /** Ends the WHIP session (DELETE on its Location). */
  whipStop(runId: string): Promise<void>
  liveStatus(): Promise<LiveStateEvent | null>
  /** A broadcast cut off by a crash or a kill of Onair, found at this start; null when there is none. */
  /**
   * Viewers of a stream now (GET /data/views/now of its playbackId) and the most seen while Onair was
   * last live on it. `now` is null when the service cannot say (with the reason).
   */
  viewersNow(streamId: string, playbackId: string): Promise<ViewersView>
  cutOffNotice(): Promise<CutOffNotice | null>

  /** Asks the service for a clip (POST /clip); poll getClip until it is ready or failed. */
  createClip(args: CreateClipArgs): Promise<ClipView>
  getClip(id: string): Promise<ClipView>
  /** The clips of a stream, or of one of its sessions, newest first. */
  listClips(args: { streamId: string; sessionId?: string }): Promise<ClipView[]>
  deleteClip(id: string): Promise<void>
  /** Saves a ready clip's MP4 as "<clip name>.mp4" (as downloadRecording does). */
  downloadClip(id: string): Promise<RecordingDownload>

  /** Drops a marker on a stream at `at` (default: now), with an optional word. */
  addMarker(args: { streamId: string; at?: number; label?: string }): Promise<MarkerView>
  /** A stream's markers, oldest first; with from/to (Unix ms) only those in that stretch. */
  listMarkers(args: { streamId: string; from?: number; to?: number }): Promise<MarkerView[]>
  /** Names a marker again (an empty label clears it). */
  labelMarker(id: string, label: string): Promise<MarkerView>
  deleteMarker(id: string): Promise<void>
  /** The creator has seen the notice: it is not shown again. */
  dismissCutOffNotice(runId: string): Promise<void>

  /** Where Record on this computer writes, and the free space there. */
  localRecordingInfo(): Promise<LocalRecordingInfo>
  /** The recordings Record made with no stream (Record without going live), newest first. */
  listRecordings(): Promise<LocalRecordingView[]>
  /**
   * A local recording's file: 'folder' shows it in the OS's file manager, 'play' opens it in the OS's
   * player (Electron's shell). The web shell cannot reach the OS's desktop: it answers the path only.
   */
  openLocalRecording(id: string, action: 'folder' | 'play'): Promise<OpenLocalResult>

  /**
   * The service's recording of a session against its local copy: missing, failed, or shorter by
   * more than a few seconds (what the session row says, and offers "Upload the full copy" for).
   */
  checkRecording(sessionId: string): Promise<RecordingCheck>
  /** "Publish as a video": a local copy goes to the service as an asset (tus, resumable). */
  publishLocalCopy(args: PublishArgs): Promise<UploadView>
  /** Uploads going, paused, processing or finished (kept across restarts). */
  listUploads(): Promise<UploadView[]>
  pauseUpload(id: string): Promise<UploadView>
  resumeUpload(id: string): Promise<UploadView>
  /** Stops an upload and deletes its asset on the service. */
  cancelUpload(id: string): Promise<void>
  /** Forgets a finished (ready or failed) upload. */
  dismissUpload(id: string): Promise<void>
  /** Whether the full copy goes up by itself when the service's recording is missing or short. */
  getUploadSettings(): Promise<UploadSettings>
  setUploadSettings(settings: UploadSettings): Promise<UploadSettings>

  /** The account's webhooks on the active service, newest first. */
  listWebhooks(): Promise<WebhookView[]>
  /** Adds one with a new signing secret (answered here once, never again). */
  addWebhook(args: AddWebhookArgs): Promise<AddedWebhook>
  deleteWebhook(id: string): Promise<void>
  /** Its last deliveries (the service's webhook log), newest first. */
  listWebhookDeliveries(webhookId: string): Promise<WebhookDelivery[]>
  /** Sends a logged delivery again now; answers the new attempt. */
  resendWebhookDelivery(webhookId: string, deliveryId: string): Promise<WebhookDelivery>

  getSettings(): Promise<DeviceSettings>
  saveSettings(settings: DeviceSettings): Promise<DeviceSettings>
  /**
   * Keeps a scene's picture (PNG or JPEG bytes, re-encoded by the renderer) as a file named by its
   * sha256 in the app data folder, written asynchronously; answers that name (IMAGE_FILE).
   */
  saveSceneImage(bytes: Uint8Array): Promise<string>
  /** The bytes of a kept scene picture, by its file name. */
  readSceneImage(file: string): Promise<Uint8Array>

  /** The keys chosen for the actions, and which of them work in the background. */
  getHotkeys(): Promise<HotkeysView>
  /** Keeps the keys and (Electron) registers them again for the background; answers how they stand. */
  setHotkeys(settings: HotkeySettings): Promise<HotkeysView>

  /** The creator's answer to a display:choose event: a source id from its list, or null to cancel. */
  chooseDisplaySource(requestId: string, sourceId: string | null): Promise<void>

  /**
   * The setup test (as OBS's Auto-Configuration Wizard): a short test stream to the active service's
   * ingest (a throwaway stream, deleted after) measures the upload, the encoder is timed at a few sizes,
   * and the answer recommends Output settings (applied by the page on consent). Progress comes as
   * 'setup:progress' events; one test at a time.
   */
  runSetupTest(): Promise<SetupTestResult>
  /** Stops the running setup test (it answers 'cancelled'); nothing when none runs. */
  cancelSetupTest(): Promise<void>
}

export type CallName = keyof OnairCalls

/**
 * The calls that answer a file to save (RecordingDownload): the Electron shell downloads it with a save
 * dialog, the web shell answers it as an attachment at /download/<call>/<id>.
 */
export const DOWNLOAD_CALLS = ['downloadRecording', 'downloadClip'] as const
export type DownloadCall = (typeof DOWNLOAD_CALLS)[number]
export const isDownloadCall = (name: string): name is DownloadCall =>
  (DOWNLOAD_CALLS as readonly string[]).includes(name)

export interface OnairEvents {
  'live:state': LiveStateEvent
  'live:health': LiveHealthEvent
  /** The page's encoder follows the uplink: a new bitrate, or a keyframe after a drop. */
  'live:encoder': EncoderTargetEvent
  /** Record on this computer changed: started, stopped by an error (disk-full), or saved. */
  'live:local-recording': LocalRecordingView
  /** An upload moved: bytes, rate and time left, or a new state (processing, ready, failed...). */
  'upload:progress': UploadView
  'connection:status': ConnectionStatus
  /**
   * Whether Onair itself answers: said by the web bridge when its socket to the web shell closes or
   * opens again. (In Electron the page and the app live and die together, so it never fires there.)
   */
  'app:reachable': { reachable: boolean }
  /** Electron only: getDisplayMedia asks which screen or window to share (a browser has its own chooser). */
  'display:choose': DisplayChooseEvent
  /** Electron only: a chosen key pressed while Onair is in the background (globalShortcut). */
  'hotkey:action': HotkeyActionEvent
  /** The setup test moved on: which part, how far, a line for the screen. */
  'setup:progress': SetupTestProgress
}

export type EventName = keyof OnairEvents

type Promised<F> = F extends (...args: infer A) => Promise<infer R>
  ? (...args: A) => Promise<Result<R>>
  : never

/** What the renderer sees as `window.onair`: every call returns a Result, never throws. */
export type OnairApi = { [K in CallName]: Promised<OnairCalls[K]> } & {
  on<E extends EventName>(event: E, listener: (payload: OnairEvents[E]) => void): () => void
}

/**
 * The most one call may carry, 16 MiB: set for a pushMedia chunk (far above what a 250 ms
 * MediaRecorder slice holds at any sane bitrate) and a pushFrames chunk (a 1080p I420 frame is 3 MiB). The web shell refuses a larger body on any call,
 * JSON or bytes, and the dispatcher's schema a larger chunk. Scene pictures travel on their own
 * (saveSceneImage) and have a tighter bound, LIMITS.imageBytes in shared/scenes.ts.
 */
export const MAX_CALL_BYTES = 16 * 1024 * 1024

/** The names of every call, in one list: the preload, the web bridge and the tests read it. */
export const CALL_NAMES = [
  'appInfo',
  'appStats',
  'listConnections',
  'connectionStatus',
  'addConnection',
  'removeConnection',
  'setActiveConnection',
  'listStreams',
  'getStream',
  'createStream',
  'updateStream',
  'setRecord',
  'deleteStream',
  'terminateStream',
  'revealStreamKey',
  'listDestinations',
  'addDestination',
  'setDestinationEnabled',
  'removeDestination',
  'listSessions',
  'getSession',
  'downloadRecording',
  'getPlayback',
  'getIngest',
  'goLive',
  'pushMedia',
  'pushFrames',
  'listEncoders',
  'stopLive',
  'startRecording',
  'stopRecording',
  'retryNow',
  'whipStart',
  'whipStop',
  'liveStatus',
  'cutOffNotice',
  'dismissCutOffNotice',
  'createClip',
  'getClip',
  'listClips',
  'deleteClip',
  'downloadClip',
  'addMarker',
  'listMarkers',
  'labelMarker',
  'deleteMarker',
  'viewersNow',
  'localRecordingInfo',
  'listRecordings',
  'openLocalRecording',
  'checkRecording',
  'publishLocalCopy',
  'listUploads',
  'pauseUpload',
  'resumeUpload',
  'cancelUpload',
  'dismissUpload',
  'getUploadSettings',
  'setUploadSettings',
  'listWebhooks',
  'addWebhook',
  'deleteWebhook',
  'listWebhookDeliveries',
  'resendWebhookDelivery',
  'getSettings',
  'saveSettings',
  'saveSceneImage',
  'readSceneImage',
  'getHotkeys',
  'setHotkeys',
  'chooseDisplaySource',
  'runSetupTest',
  'cancelSetupTest'
] as const satisfies readonly CallName[]

// Compile-time check that CALL_NAMES lists every call exactly.
type Missing = Exclude<CallName, (typeof CALL_NAMES)[number]>
const _allListed: Missing extends never ? true : never = true
void _allListed

export const EVENT_NAMES = [
  'live:state',
  'live:health',
  'live:encoder',
  'live:local-recording',
  'upload:progress',
  'connection:status',
  'app:reachable',
  'display:choose',
  'hotkey:action',
  'setup:progress'
] as const satisfies readonly EventName[]

/** IPC channel for a call: prefixed so nothing else collides. */
export const channelOf = (name: CallName | EventName): string => `onair:${name}`

declare global {
  interface Window {
    onair: OnairApi
  }
}

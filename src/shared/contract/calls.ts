// Types only: the calls main implements (OnairCalls), the events it sends (OnairEvents), and what
// the renderer sees as `window.onair` (OnairApi). The lists of their names are in ipc.ts.
import type { Result } from '../result'
import type { AppStatsView } from '../app-stats'
import type { HotkeySettings } from '../hotkeys'
import type { PublishArgs, RecordingCheck, UploadSettings, UploadView } from '../uploads'
import type { AddedWebhook, AddWebhookArgs, WebhookDelivery, WebhookView } from '../webhooks'
import type { AppInfo } from './app'
import type { BrowserPage, BrowserSourceState, BrowserStateEvent } from './browser-sources'
import type { ClipView, CreateClipArgs, MarkerView } from './clips'
import type { AddConnectionArgs, ConnectionStatus, ConnectionView } from './connections'
import type { AddDestinationArgs, DestinationsView } from './destinations'
import type { DisplayChooseEvent } from './display'
import type { EncoderInfo } from './encoders'
import type { HotkeyActionEvent, HotkeysView } from './keys'
import type {
  CutOffNotice,
  EncoderTargetEvent,
  GoLiveArgs,
  GoLiveResult,
  LiveHealthEvent,
  LiveStateEvent,
  RecordStartArgs,
  RecordStartResult,
  WhipStartArgs,
  WhipStartResult
} from './live'
import type { LocalRecordingInfo, LocalRecordingView, OpenLocalResult } from './recordings'
import type { DeviceSettings } from './settings'
import type { SetupTestProgress, SetupTestResult } from './setup-test'
import type {
  CreateStreamArgs,
  IngestView,
  Page,
  PageArgs,
  PlaybackView,
  RecordingDownload,
  SessionView,
  StreamView,
  UpdateStreamArgs
} from './streams'
import type { ViewersView } from './viewers'

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
  /**
   * Viewers of a stream now (GET /data/views/now of its playbackId) and the most seen while Onair was
   * last live on it. `now` is null when the service cannot say (with the reason).
   */
  viewersNow(streamId: string, playbackId: string): Promise<ViewersView>
  /** A broadcast cut off by a crash or a kill of Onair, found at this start; null when there is none. */
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

  /**
   * Shows a browser source's page offscreen (or changes its address, size or rate, keeping the page
   * when only size or rate changed); answers how it stands. The web shell answers 'needs-desktop'.
   */
  openBrowserSource(sourceId: string, page: BrowserPage): Promise<BrowserSourceState>
  /** Closes a browser source's page (nothing when it is not open). */
  closeBrowserSource(sourceId: string): Promise<void>
  /**
   * The page's newest frame once it is newer than `after` (a serial), waiting up to about a second
   * for one: the bytes are laid out as contract/browser-sources.ts says.
   */
  readBrowserFrame(sourceId: string, after: number): Promise<Uint8Array>
}

export type CallName = keyof OnairCalls

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
  /** The setup test moved on: which part, how far, its figure (the guide words it: setup-text.ts). */
  'setup:progress': SetupTestProgress
  /** A browser source's page changed state (loaded, failed, crashed, closed). */
  'browser:state': BrowserStateEvent
}

export type EventName = keyof OnairEvents

type Promised<F> = F extends (...args: infer A) => Promise<infer R>
  ? (...args: A) => Promise<Result<R>>
  : never

/** What the renderer sees as `window.onair`: every call returns a Result, never throws. */
export type OnairApi = { [K in CallName]: Promised<OnairCalls[K]> } & {
  on<E extends EventName>(event: E, listener: (payload: OnairEvents[E]) => void): () => void
}

declare global {
  interface Window {
    onair: OnairApi
  }
}

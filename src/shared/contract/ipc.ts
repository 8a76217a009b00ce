// Values: the tables the shells and the dispatcher read at run time: every call's and event's name,
// a call's IPC channel, the most one call may carry, and the calls that answer a file to save. (Each
// call's argument validators, its zod tuple, live in main/core/contract-schema.ts.)
import type { CallName, EventName } from './calls'

/**
 * The calls that answer a file to save (RecordingDownload): the Electron shell downloads it with a save
 * dialog, the web shell answers it as an attachment at /download/<call>/<id>.
 */
export const DOWNLOAD_CALLS = ['downloadRecording', 'downloadClip'] as const
export type DownloadCall = (typeof DOWNLOAD_CALLS)[number]
export const isDownloadCall = (name: string): name is DownloadCall =>
  (DOWNLOAD_CALLS as readonly string[]).includes(name)

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
  'cancelSetupTest',
  'openBrowserSource',
  'closeBrowserSource',
  'readBrowserFrame'
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
  'setup:progress',
  'browser:state'
] as const satisfies readonly EventName[]

/** IPC channel for a call: prefixed so nothing else collides. */
export const channelOf = (name: CallName | EventName): string => `onair:${name}`

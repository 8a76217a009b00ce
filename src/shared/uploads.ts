// Uploading a local copy to the service (#35): what an upload looks like to the renderer, and the
// comparison of a session's local copy with the service's recording. Pure: both sides use it.

export type UploadState = 'uploading' | 'paused' | 'processing' | 'ready' | 'failed'

/**
 * Why an upload stopped, as a state with the service's or the OS's words (the sessions list words it:
 * features/sessions/upload-words.ts): the file is gone or changed since its upload began; the
 * network stayed down past every retry (paused: 'connection-lost'); the service refused the file
 * ('refused': its HTTP status, with its own words when it gave them); the service could not process
 * the video ('processing-failed': its errorMessage). 'said': a sentence kept by an earlier version.
 */
export type UploadProblem =
  | { kind: 'file-gone' }
  | { kind: 'file-changed' }
  | { kind: 'connection-lost'; detail: string }
  | { kind: 'refused'; status: number; message?: string }
  | { kind: 'processing-failed'; message?: string }
  | { kind: 'said'; message: string }

export interface UploadView {
  /** This upload's own id (the app's, not the service's). */
  id: string
  /** The local file going up, and the name the asset is given. */
  file: string
  name: string
  connectionId: string
  /** The session whose local copy this is, when it is one. */
  sessionId?: string
  /** The service's asset, once it has answered request-upload. */
  assetId?: string
  size: number
  /** Bytes the service has taken (its tus offset, as last heard). */
  sent: number
  /** Bytes a second over the last few seconds, and seconds left at that rate (while uploading). */
  rate?: number
  etaSec?: number
  state: UploadState
  /** failed (or paused by a long network loss): why, as a state (never main's sentence). */
  error?: UploadProblem
  /** ready: the asset's playback. */
  playbackId?: string
  playbackUrl?: string
  startedAt: number
  updatedAt: number
}

export interface StartUploadArgs {
  file: string
  name: string
  sessionId?: string
}

/** A recording shorter than its local copy by more than this is called short. */
export const SHORT_BY_SEC = 5

export type RecordingVerdict =
  | { kind: 'complete' }
  | { kind: 'missing' }
  | { kind: 'failed' }
  | { kind: 'short'; recordedSec: number; localSec: number }
  /** The service is still making it: nothing to say yet. */
  | { kind: 'pending' }

/**
 * The service's recording against the local copy: missing (not recorded, none, deleted), failed, or
 * shorter by more than SHORT_BY_SEC; complete otherwise.
 */
export function compareRecording(
  service: { record: boolean; recordingStatus?: string; durationSec: number },
  localSec: number
): RecordingVerdict {
  const status = service.recordingStatus
  if (status === 'failed') return { kind: 'failed' }
  if (!service.record || status === 'none' || status === 'deleted' || status === undefined)
    return { kind: 'missing' }
  if (status !== 'ready') return { kind: 'pending' }
  if (localSec - service.durationSec > SHORT_BY_SEC)
    return { kind: 'short', recordedSec: service.durationSec, localSec }
  return { kind: 'complete' }
}

/** A session's service recording against its local copy (checkRecording). */
export interface RecordingCheck {
  sessionId: string
  verdict: RecordingVerdict
  /** The service as the connection names it ("Livepeer", "Local studio"). */
  service: string
  /** The session's local copy, when it has one (what "Upload the full copy" sends). */
  localRecordingId?: string
}

export interface PublishArgs {
  /** The local copy (a LocalRecordingView's id): only Onair's own files can be sent. */
  localRecordingId: string
  /** The asset's name; default: the copy's stream name and date. */
  name?: string
  sessionId?: string
}

/** The creator's upload choices (getUploadSettings / setUploadSettings). */
export interface UploadSettings {
  /**
   * Upload the full copy by itself when the service's recording is missing, failed or short: main
   * compares them once the service's recording is final and starts the upload. Off unless turned on.
   */
  autoUploadFullCopy: boolean
}

/** The settings as kept, or the defaults (off) for anything absent or malformed. */
export const readUploadSettings = (v: unknown): UploadSettings => ({
  autoUploadFullCopy:
    !!v &&
    typeof v === 'object' &&
    (v as { autoUploadFullCopy?: unknown }).autoUploadFullCopy === true
})

// Types only: Record on this computer (main's local-recording/): a recording, the folder it goes to,
// and what opening one did.

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

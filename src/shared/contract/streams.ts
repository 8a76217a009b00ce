// Types only: streams, their sessions and recordings, playback and ingest, and the paging of lists.
import type { Profile } from '../profiles'
import type { HealthCondition } from '../stream-states'
import type { LocalRecordingView } from './recordings'

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

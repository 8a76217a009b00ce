// Types only: clips cut from a stream or a session, and the markers dropped while live.

/**
 * A clip (#20): a stretch of a live stream or of a recorded session, made by the service (POST /clip)
 * into an asset with an MP4. The local studio cuts on segment boundaries (within 1 s of each time).
 */
/**
 * Why a clip failed, as a state: the service's own words ('service'), a phase Onair does not know
 * ('phase'), or an asset with no status ('gone').
 */
export type ClipFailure =
  | { kind: 'service'; message: string }
  | { kind: 'phase'; phase: string }
  | { kind: 'gone' }

export interface ClipView {
  id: string
  name: string
  /** The stream and session it was cut from (as the service says). */
  streamId?: string
  sessionId?: string
  createdAt: number
  /** waiting: for the media to exist (a live clip); processing: being cut; ready: plays and saves. */
  state: 'waiting' | 'processing' | 'ready' | 'failed'
  /** failed: why (the clips' screens word it: features/clips/clip-text.ts). */
  failure?: ClipFailure
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

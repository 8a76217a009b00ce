// Which live states count as running and which as finished: one classification for the supervisor,
// the broadcaster and the renderer.
import type { LiveState } from './contract'

/** A run that holds the camera and the stream: a second Go live is refused. */
export const RUNNING_STATES: readonly LiveState[] = [
  'connecting',
  'live',
  'reconnecting',
  'stopping'
]
/** A run that is over: nothing more will happen to it. */
export const FINAL_STATES: readonly LiveState[] = ['ended', 'failed']

export const isRunning = (s: LiveState | undefined): boolean => !!s && RUNNING_STATES.includes(s)
export const isFinal = (s: LiveState | undefined): boolean => !!s && FINAL_STATES.includes(s)

/**
 * The local studio's live media playlists say where in the publisher's media they begin, as an
 * EXT-X-DATERANGE with this ID and the publisher's media time of the first segment in ms
 * (MEDIA_START_ATTR). The studio's segmenters pull the stream from its ingest, which hands a new
 * player the stream from its latest keyframe: a segmenter that starts after the publisher's second
 * keyframe went out (main sends what piled up while its ffmpeg started faster than real time) has a
 * first segment that begins 2 s or more into the publisher's media, not at 0.
 */
export const MEDIA_START_DATERANGE = 'onair-media-start'
export const MEDIA_START_ATTR = 'X-MEDIA-START-MS'

/**
 * How far behind the sender the frame on screen is, in seconds.
 *
 * EXT-X-PROGRAM-DATE-TIME alone is not that figure: a segmenter stamps it with its own clock when
 * it starts writing (the local studio's ffmpeg: at its output's start, after the pull and the probe,
 * to the second), not when the frames were sent, so `now − PDT` leaves out everything before the
 * segmenter and said 2.0 s where the viewer was 4 s behind. The true figure comes from media time:
 * in a playlist that keeps every segment from the first (EVENT, first segment number 0), the frame
 * on screen is `playingPdt − firstPdt` seconds after the first segment's start, which is
 * `firstMediaMs` (MEDIA_START_DATERANGE; 0 when the playlist does not say) into the broadcaster's
 * media; the broadcaster sent media time t at `mediaEpoch + t`. So the frame left the broadcaster at
 * `mediaEpoch + firstMediaMs + (playingPdt − firstPdt)`. Without both (another encoder's stream, a
 * sliding playlist), the PDT is all there is.
 */
export function mediaBehind(x: {
  now: number
  playingPdt: number
  firstPdt: number | null
  mediaEpoch?: number
  /** The broadcaster's media time (ms) at the first segment's start (MEDIA_START_DATERANGE). */
  firstMediaMs?: number
}): number {
  const sentAt =
    x.firstPdt !== null && x.mediaEpoch !== undefined
      ? x.mediaEpoch + (x.firstMediaMs ?? 0) + (x.playingPdt - x.firstPdt)
      : x.playingPdt
  return Math.max(0, (x.now - sentAt) / 1000)
}

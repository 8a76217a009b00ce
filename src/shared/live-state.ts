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
 * How far behind the sender the frame on screen is, in seconds.
 *
 * EXT-X-PROGRAM-DATE-TIME alone is not that figure: a segmenter stamps it with its own clock when
 * it starts writing (the local studio's ffmpeg: at its output's start, after the pull and the probe,
 * to the second), not when the frames were sent, so `now − PDT` leaves out everything before the
 * segmenter and said 2.0 s where the viewer was 4 s behind. The true figure comes from media time:
 * in a playlist that keeps every segment from the first (EVENT, first segment number 0), the frame
 * on screen is `playingPdt − firstPdt` seconds into the stream, which is the broadcaster's media time
 * of that frame; the broadcaster sent media time t at `mediaEpoch + t`. So the frame left the
 * broadcaster at `mediaEpoch + (playingPdt − firstPdt)`. Without both (another encoder's stream, a
 * sliding playlist), the PDT is all there is.
 */
export function mediaBehind(x: {
  now: number
  playingPdt: number
  firstPdt: number | null
  mediaEpoch?: number
}): number {
  const sentAt =
    x.firstPdt !== null && x.mediaEpoch !== undefined
      ? x.mediaEpoch + (x.playingPdt - x.firstPdt)
      : x.playingPdt
  return Math.max(0, (x.now - sentAt) / 1000)
}

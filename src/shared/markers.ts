// Markers and clips (#20), the parts both sides need: limits, the stretch "Clip the last 30 s" and a
// marker's clip cover, and where a moment (Unix ms) lies on a recording's timeline.

/** A marker's optional word (or few). */
export const MARKER_LABEL_MAX = 100

/** "Clip the last 30 s". */
export const LIVE_CLIP_MS = 30_000
/** A marker becomes the clip from 20 s before it to 10 s after: the moment and what led to it. */
export const MARKER_CLIP_BEFORE_MS = 20_000
export const MARKER_CLIP_AFTER_MS = 10_000

export function markerClipSpan(at: number): { startTime: number; endTime: number } {
  return { startTime: at - MARKER_CLIP_BEFORE_MS, endTime: at + MARKER_CLIP_AFTER_MS }
}

/** A stretch of a played recording: where it starts on the timeline (s) and its wall-clock start. */
export interface TimedFragment {
  /** Seconds from the start of the playback timeline. */
  start: number
  duration: number
  /** Unix ms of its first frame (EXT-X-PROGRAM-DATE-TIME), when the playlist says it. */
  programDateTime: number | null
}

/**
 * Where the moment `at` (Unix ms) is on a recording's timeline, in seconds, from its fragments'
 * wall-clock times; undefined when no fragment holds it (a gap between runs, or outside the
 * recording). A moment in a gap is not placed: a marker must not point at media that is not there.
 */
export function timelinePosition(
  fragments: readonly TimedFragment[],
  at: number
): number | undefined {
  for (const f of fragments) {
    if (f.programDateTime === null) continue
    const into = (at - f.programDateTime) / 1000
    if (into >= 0 && into <= f.duration) return f.start + into
  }
  return undefined
}

/** The other way: the wall-clock time (Unix ms) of a timeline position, for marks in and out. */
export function wallClockAt(
  fragments: readonly TimedFragment[],
  position: number
): number | undefined {
  for (const f of fragments) {
    if (f.programDateTime === null) continue
    if (position >= f.start && position <= f.start + f.duration)
      return f.programDateTime + (position - f.start) * 1000
  }
  return undefined
}

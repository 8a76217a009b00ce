// The live monitor's "N s behind" (shared/live-state.ts mediaBehind): from the frame's media time and
// the broadcaster's pushed media clock, not from a segmenter's EXT-X-PROGRAM-DATE-TIME alone, counted
// from where the studio's playlist begins in the broadcaster's media.
import { describe, expect, it } from 'vitest'
import { mediaBehind } from '../../../src/shared/live-state'

describe('live monitor delay', () => {
  // The broadcaster sent media time 0 at 10:00:00.000. The segmenter started 1.6 s later and stamped
  // its first segment with its clock cut to the second (10:00:01). The viewer sees media time 20 s.
  const epoch = Date.UTC(2026, 10, 24, 10, 0, 0)
  const firstPdt = epoch + 1000
  const playingPdt = firstPdt + 20_000

  it('is what the viewer sees: now minus when that frame was sent', () => {
    // The frame of media time 20 s was sent at epoch + 20 s; the viewer sees it 4 s later.
    const now = epoch + 24_000
    expect(mediaBehind({ now, playingPdt, firstPdt, mediaEpoch: epoch })).toBeCloseTo(4, 6)
    // The PDT alone says 3 s: it leaves out what happened before the segmenter's clock.
    expect(mediaBehind({ now, playingPdt, firstPdt: null })).toBeCloseTo(3, 6)
    expect(mediaBehind({ now, playingPdt, firstPdt })).toBeCloseTo(3, 6)
  })

  it("counts from where the studio's playlist begins in the broadcaster's media", () => {
    // The studio's segmenter joined at the publisher's keyframe of media time 2 s: its first segment
    // (firstPdt) is media 2 s, so the frame 20 s after it is media 22 s, sent at epoch + 22 s. Counted
    // from media 0 (the old figure), it said 4 s for a viewer 2 s behind (the camera's 2 s too many).
    const now = epoch + 24_000
    expect(
      mediaBehind({ now, playingPdt, firstPdt, mediaEpoch: epoch, firstMediaMs: 2000 })
    ).toBeCloseTo(2, 6)
  })

  it('is never negative', () => {
    expect(mediaBehind({ now: epoch, playingPdt, firstPdt, mediaEpoch: epoch })).toBe(0)
  })
})

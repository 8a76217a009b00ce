// One H.264 level table (Annex A, table A-1) and one rule for the frame rate, for the studio's ladder
// and the page's encoder alike (src/shared/h264.ts).
import { describe, expect, it } from 'vitest'
import { h264Level, SOURCE_FPS_ASSUMED } from '../../../src/shared/h264'
import { sourceRendition } from '../../../src/studio/transcoder'

describe('h264Level', () => {
  it('fits the level to the frame size and rate', () => {
    expect(h264Level(640, 360, 30)).toBe(30)
    expect(h264Level(1280, 720, 30)).toBe(31)
    expect(h264Level(1280, 720, 60)).toBe(32)
    expect(h264Level(1920, 1080, 30)).toBe(40)
    expect(h264Level(1920, 1080, 60)).toBe(42)
    expect(h264Level(3840, 2160, 30)).toBe(51)
  })

  it('takes the largest level past the table', () => {
    expect(h264Level(7680, 4320, 60)).toBe(52)
  })

  it('reads a frame rate of 0 or less (the source rate, unknown) as up to 60 fps', () => {
    expect(SOURCE_FPS_ASSUMED).toBe(60)
    expect(h264Level(1280, 720, 0)).toBe(h264Level(1280, 720, 60))
    expect(h264Level(1920, 1080, -1)).toBe(42)
  })

  it("names the studio's source rendition by the same rule", () => {
    // The source rendition's rate is unknown: 1080p is announced at up to 60 fps (level 4.2).
    expect(
      sourceRendition({
        hasAudio: false,
        videoIsH264: true,
        width: 1920,
        height: 1080,
        videoBitrate: 0
      }).codecs
    ).toMatch(/^avc1\.[0-9a-f]{4}2a/)
  })
})

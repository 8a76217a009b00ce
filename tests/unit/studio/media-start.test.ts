// Where a live playlist begins in the publisher's media: the ingest hands a new player (the studio's
// own segmenters) the stream from its latest keyframe, so a segmenter that starts after the
// publisher's second keyframe has a first segment 2 s or more into the publisher's media. The studio
// reads that keyframe's FLV timestamp (flvTagMs) and says it in the live playlist (withMediaStart),
// which the live monitor counts from (shared/live-state.ts mediaBehind).
import { describe, expect, it } from 'vitest'
import { flvTagMs } from '../../../src/studio/nms-adapter'
import { withMediaStart } from '../../../src/studio/routes/media'
import { MEDIA_START_ATTR, MEDIA_START_DATERANGE } from '../../../src/shared/live-state'

describe('live playlist media start', () => {
  it("reads an FLV tag's timestamp, its upper 8 bits in byte 7", () => {
    // type 9 (video), 3 bytes of size, timestamp 0x012345 with 0x67 above it, stream id 0.
    const tag = Uint8Array.from([9, 0, 0, 5, 0x01, 0x23, 0x45, 0x67, 0, 0, 0, 0x17])
    expect(flvTagMs(tag)).toBe(0x67012345)
    expect(flvTagMs(Uint8Array.from([9, 0, 0, 5, 0, 0x07, 0xd0, 0]))).toBe(2000)
    expect(flvTagMs(Uint8Array.from([9, 0, 0]))).toBeUndefined()
  })

  const playlist = [
    '#EXTM3U',
    '#EXT-X-VERSION:6',
    '#EXT-X-TARGETDURATION:2',
    '#EXT-X-MEDIA-SEQUENCE:0',
    '#EXT-X-PLAYLIST-TYPE:EVENT',
    '#EXT-X-INDEPENDENT-SEGMENTS',
    '#EXT-X-PROGRAM-DATE-TIME:2026-11-27T11:50:57.000+0000',
    '#EXTINF:2.000000,',
    'seg00000.ts',
    '#EXT-X-PROGRAM-DATE-TIME:2026-11-27T11:50:59.000+0000',
    '#EXTINF:2.000000,',
    'seg00001.ts',
    ''
  ].join('\n')

  it('says the first segment’s media time at its date, before it', () => {
    const out = withMediaStart(playlist, 2000).split('\n')
    const at = out.indexOf(
      `#EXT-X-DATERANGE:ID="${MEDIA_START_DATERANGE}",START-DATE="2026-11-27T11:50:57.000+0000",${MEDIA_START_ATTR}=2000`
    )
    expect(at).toBe(6)
    expect(out[at + 1]).toBe('#EXT-X-PROGRAM-DATE-TIME:2026-11-27T11:50:57.000+0000')
    // Only one, and the rest of the playlist as it was.
    expect(out.filter((l) => l.startsWith('#EXT-X-DATERANGE')).length).toBe(1)
    expect(out.filter((l) => !l.startsWith('#EXT-X-DATERANGE')).join('\n')).toBe(playlist)
  })

  it('leaves a playlist with no segment yet as it is', () => {
    const empty = playlist.split('\n').slice(0, 6).join('\n')
    expect(withMediaStart(empty, 2000)).toBe(empty)
  })
})

// Reading a recording's master playlist and naming a rendition's file (the remux itself runs against a
// real ffmpeg and studio in tests/integration/core/rendition-downloads.test.ts).
import { describe, expect, it } from 'vitest'
import { recordingFileName } from '../../../src/main/core/download-name'
import {
  parseMasterPlaylist,
  renditionTag,
  saveFailure
} from '../../../src/main/core/rendition-downloads'
import { AppFailure } from '../../../src/shared/result'

const MASTER = 'https://cdn.example/recordings/abc/index.m3u8'

describe('parseMasterPlaylist', () => {
  it("lists each variant with its playlist's absolute URL, size, bandwidth and name", () => {
    const text = [
      '#EXTM3U',
      '#EXT-X-VERSION:3',
      '#EXT-X-STREAM-INF:BANDWIDTH=5000000,RESOLUTION=1920x1080,NAME="source",CODECS="avc1.64002a,mp4a.40.2"',
      'source/index.m3u8',
      '',
      '#EXT-X-STREAM-INF:BANDWIDTH=1600000,RESOLUTION=854x480',
      '# a comment between',
      '480p0/index.m3u8',
      '#EXT-X-STREAM-INF:BANDWIDTH=200000',
      'https://other.example/audio.m3u8',
      '#EXT-X-STREAM-INF:BANDWIDTH=1',
      ''
    ].join('\r\n')
    expect(parseMasterPlaylist(text, MASTER)).toEqual([
      {
        url: 'https://cdn.example/recordings/abc/source/index.m3u8',
        bandwidth: 5_000_000,
        width: 1920,
        height: 1080,
        name: 'source'
      },
      {
        url: 'https://cdn.example/recordings/abc/480p0/index.m3u8',
        bandwidth: 1_600_000,
        width: 854,
        height: 480
      },
      { url: 'https://other.example/audio.m3u8', bandwidth: 200_000 }
    ])
    expect(parseMasterPlaylist('#EXTM3U\n#EXTINF:2,\nseg.ts\n', MASTER)).toEqual([])
  })

  it('names a rendition by its height, else its NAME, else its place', () => {
    expect(renditionTag({ url: 'u', bandwidth: 1, width: 1280, height: 720 }, 0)).toBe('720p')
    expect(renditionTag({ url: 'u', bandwidth: 1, name: 'audio' }, 1)).toBe('audio')
    expect(renditionTag({ url: 'u', bandwidth: 1 }, 2)).toBe('rendition 3')
  })

  it("a rendition's file is named after the stream, the date and the rendition, safely", () => {
    const at = new Date(2026, 10, 23, 9, 5).getTime()
    expect(recordingFileName('Morning show', at, '720p')).toBe(
      'Morning show 2026-11-23 09.05 720p.mp4'
    )
    expect(recordingFileName('Morning show', at, 'a/b:c')).toBe(
      'Morning show 2026-11-23 09.05 a b c.mp4'
    )
    expect(recordingFileName('Morning show', at, '   ')).toBe('Morning show 2026-11-23 09.05.mp4')
  })

  it('a save failure crosses to the renderer as its AppError, an unexpected one in plain words', () => {
    const named = new AppFailure({ code: 'ffmpeg-failed', message: 'x' })
    expect(saveFailure(named)).toBe(named.error)
    expect(saveFailure(new Error('/secret/path EACCES'))).toEqual({
      code: 'internal',
      message: 'The rendition could not be saved as MP4.'
    })
  })
})

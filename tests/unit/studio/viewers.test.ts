// Viewer sessions (#20, #32): a session counts once it fetches media and ends 10 s after its last request; the master names it on every
// media playlist; rough device and browser for breakdownBy[].
import { describe, expect, it } from 'vitest'
import { tagMaster, VIEWER_IDLE_MS, viewerInfo, ViewerSessions } from '../../../src/studio/viewers'

describe('viewer sessions', () => {
  it('a session counts once it fetches media, lasts while its playlists are reloaded, and ends 10 s after the last', () => {
    let t = 0
    const v = new ViewerSessions(() => t)
    const info = { device: 'Desktop', browser: 'Chrome' }
    const a = v.start('pb1', info)
    const b = v.start('pb1', info)
    const c = v.start('pb2', info)
    // Masters alone are probes, not viewers.
    expect(v.metrics(['pb1', 'pb2'], [])).toEqual([{ viewCount: 0, errorRate: 0 }])
    expect(v.touch(a, 'pb1')).toBe(true)
    expect(v.touch(b, 'pb1')).toBe(true)
    expect(v.touch(c, 'pb2')).toBe(true)
    expect(v.metrics(['pb1'], [])).toEqual([{ viewCount: 2, errorRate: 0 }])
    t = VIEWER_IDLE_MS - 1
    expect(v.touch(a, 'pb1')).toBe(true)
    // A session is its stream's: a playbackId it did not start on does not keep it.
    expect(v.touch(b, 'pb2')).toBe(false)
    t = VIEWER_IDLE_MS + 10
    expect(v.metrics(['pb1', 'pb2'], ['playbackId'])).toEqual([
      { playbackId: 'pb1', viewCount: 1, errorRate: 0 },
      { playbackId: 'pb2', viewCount: 0, errorRate: 0 }
    ])
    expect(v.touch(b, 'pb1')).toBe(false)
    t = 2 * VIEWER_IDLE_MS + 10
    expect(v.metrics(['pb1'], [])).toEqual([{ viewCount: 0, errorRate: 0 }])
  })

  it('a viewer who left is gone within 10 s; a probe that read only the master never counts', () => {
    expect(VIEWER_IDLE_MS).toBeLessThanOrEqual(10_000)
    let t = 0
    const v = new ViewerSessions(() => t)
    const info = { device: 'Desktop', browser: 'Chrome' }
    v.start('pb1', info)
    const left = v.start('pb1', info)
    v.touch(left, 'pb1')
    t = 5000
    expect(v.metrics(['pb1'], [])).toEqual([{ viewCount: 1, errorRate: 0 }])
    t = 10_001
    expect(v.metrics(['pb1'], [])).toEqual([{ viewCount: 0, errorRate: 0 }])
  })

  it('tags each URI of a master with the session, and nothing else', () => {
    const m =
      '#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nsource/index.m3u8\n\n#EXT-X-STREAM-INF:BANDWIDTH=2\nv0/index.m3u8?x=1\n'
    expect(tagMaster(m, 'abc')).toBe(
      '#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nsource/index.m3u8?v=abc\n\n#EXT-X-STREAM-INF:BANDWIDTH=2\nv0/index.m3u8?x=1&v=abc\n'
    )
  })

  it('reads a rough device and browser from the User-Agent', () => {
    expect(
      viewerInfo(
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/120 Safari/537.36 Edg/120'
      )
    ).toEqual({ device: 'Desktop', browser: 'Edge' })
    expect(
      viewerInfo('Mozilla/5.0 (iPhone; CPU iPhone OS 17_0) Version/17.0 Safari/604.1')
    ).toEqual({
      device: 'iPhone',
      browser: 'Safari'
    })
    expect(viewerInfo(undefined)).toEqual({ device: 'Unknown', browser: 'Unknown' })
  })
})

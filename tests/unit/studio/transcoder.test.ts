import { join } from 'node:path'
import { redact } from '../../../src/shared/redact'
import { describe, expect, it } from 'vitest'
import { RECOMMENDED_PROFILES } from '../../../src/shared/profiles'
import {
  gopSeconds,
  ladderArgs,
  ladderRenditions,
  sourceArgs,
  sourceRendition
} from '../../../src/studio/transcoder'

const src = { hasAudio: true, videoIsH264: true, width: 1280, height: 720, videoBitrate: 2_500_000 }
const ladder = [...RECOMMENDED_PROFILES]

const after = (args: string[], flag: string): string | undefined => args[args.indexOf(flag) + 1]

describe('ladder arguments', () => {
  const args = ladderArgs('rtmp://127.0.0.1:1/live/k?token=t', '/out', ladder, src)

  it('decodes once and splits into one scaled chain per profile', () => {
    const graph = after(args, '-filter_complex')!
    expect(graph.startsWith('[0:v]split=3[s0][s1][s2];')).toBe(true)
    expect(graph).toContain('[s0]fps=30/1,scale=1280:720,setsar=1,format=yuv420p[o0]')
    expect(graph).toContain('scale=854:480')
    expect(graph).toContain('scale=640:360')
    expect(args.filter((a) => a === '-i')).toHaveLength(1)
  })

  it('gives each rendition its bitrate and clock-aligned keyframes every 2 s', () => {
    expect(after(args, '-b:v:0')).toBe('3000000')
    expect(after(args, '-b:v:2')).toBe('800000')
    expect(after(args, '-force_key_frames:v:1')).toBe('expr:gte(t,n_forced*2)')
    expect(after(args, '-hls_time')).toBe('2')
    expect(after(args, '-var_stream_map')).toBe('v:0,a:0 v:1,a:1 v:2,a:2')
    expect(after(args, '-c:a')).toBe('aac')
  })

  it('bounds the pull with -rw_timeout so a vanished publisher ends the run', () => {
    expect(Number(after(args, '-rw_timeout'))).toBeGreaterThan(0)
    expect(args.indexOf('-rw_timeout')).toBeLessThan(args.indexOf('-i'))
  })

  it('leaves audio out when the source has none', () => {
    const silent = ladderArgs('in', '/out', ladder, { ...src, hasAudio: false })
    expect(silent).not.toContain('0:a:0')
    expect(after(silent, '-var_stream_map')).toBe('v:0 v:1 v:2')
  })

  it('honours fps 0 (source rate), fpsDen, gop strings and the H.264 profile', () => {
    const a = ladderArgs(
      'in',
      '/out',
      [
        {
          name: 'a',
          width: 640,
          height: 360,
          bitrate: 500_000,
          fps: 0,
          gop: '4.0',
          profile: 'H264Baseline'
        },
        {
          name: 'b',
          width: 641,
          height: 361,
          bitrate: 500_000,
          fps: 30000,
          fpsDen: 1001,
          gop: 'intra'
        }
      ],
      src
    )
    const graph = after(a, '-filter_complex')!
    expect(graph).toContain('[s0]scale=640:360')
    expect(graph).toContain('[s1]fps=30000/1001,scale=642:362')
    expect(after(a, '-force_key_frames:v:0')).toBe('expr:gte(t,n_forced*4)')
    expect(after(a, '-g:v:1')).toBe('1')
    expect(after(a, '-profile:v:0')).toBe('baseline')
    expect(after(a, '-hls_time')).toBe('4')
  })
})

describe('renditions for the master playlist', () => {
  it('carry BANDWIDTH, RESOLUTION and CODECS', () => {
    const r = ladderRenditions(ladder, true)
    expect(r.map((x) => [x.dir, x.width, x.height])).toEqual([
      ['v0', 1280, 720],
      ['v1', 854, 480],
      ['v2', 640, 360]
    ])
    expect(r[0]!.bandwidth).toBe(3_300_000 + 128_000)
    expect(r[0]!.codecs).toBe('avc1.64001f,mp4a.40.2')
    expect(r[2]!.codecs).toBe('avc1.64001e,mp4a.40.2')
  })

  it('gop: default 2 s, "0" and junk fall back to it', () => {
    const p = { name: 'x', width: 200, height: 200, bitrate: 1000, fps: 0 }
    expect(gopSeconds(p)).toBe(2)
    expect(gopSeconds({ ...p, gop: '0' })).toBe(2)
    expect(gopSeconds({ ...p, gop: 'x' })).toBe(2)
    expect(gopSeconds({ ...p, gop: '1.5' })).toBe(1.5)
  })
})

describe('source recorder (every run, beside the ladder)', () => {
  it('copies H.264 and makes one rendition at the source size, in source/', () => {
    const a = sourceArgs('in', '/out', src)
    expect(after(a, '-c:v')).toBe('copy')
    expect(after(a, '-c:a')).toBe('aac')
    expect(after(sourceArgs('in', '/out', { ...src, audioIsAac: true }), '-c:a')).toBe('copy')
    expect(a.filter((x) => x === '-map')).toHaveLength(2)
    expect(after(a, '-map')).toBe('0:v:0')
    expect(after(a, '-hls_segment_filename')).toBe(join('/out', 'source', 'seg%05d.ts'))
    expect(a[a.length - 1]).toBe(join('/out', 'source', 'index.m3u8'))
    expect(sourceRendition(src)).toMatchObject({
      dir: 'source',
      name: 'source',
      width: 1280,
      height: 720
    })
  })

  it('a restart appends to the playlists it left (source and ladder alike)', () => {
    expect(after(sourceArgs('in', '/out', src), '-hls_flags')).not.toContain('append_list')
    expect(after(sourceArgs('in', '/out', src, true), '-hls_flags')).toContain('append_list')
    expect(after(ladderArgs('in', '/out', ladder, src), '-hls_flags')).not.toContain('append_list')
    expect(after(ladderArgs('in', '/out', ladder, src, true), '-hls_flags')).toContain(
      'append_list'
    )
  })

  it('encodes when the source is not H.264', () => {
    expect(after(sourceArgs('in', '/out', { ...src, videoIsH264: false }), '-c:v')).toBe('libx264')
  })
})

it('redacts stream keys (and the puller token) from ffmpeg output', () => {
  expect(redact('rtmp://127.0.0.1:1935/live/abcd-efgh-ijkl-mnop?token=x: I/O error')).toBe(
    'rtmp://127.0.0.1:1935/live/**** I/O error'
  )
})

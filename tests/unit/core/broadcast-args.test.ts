import { describe, expect, it } from 'vitest'
import { buildBroadcastArgs, isH264Mime, videoPath } from '../../../src/main/core/broadcast/args'
import type { OutputSettings } from '../../../src/shared/contract'
import { DEFAULT_OUTPUT } from '../../../src/shared/output'

const output: OutputSettings = { ...DEFAULT_OUTPUT }
const url = 'rtmp://127.0.0.1:1935/live/abcd-efgh-ijkl-mnop'

const valueOf = (args: string[], flag: string): string | undefined => args[args.indexOf(flag) + 1]

describe('broadcast args', () => {
  it('copies H.264 from MediaRecorder and encodes only the audio', () => {
    const args = buildBroadcastArgs({
      source: { kind: 'media', mimeType: 'video/webm;codecs=avc1.42E01F,opus' },
      output,
      url
    })
    expect(valueOf(args, '-c:v')).toBe('copy')
    expect(args).not.toContain('libx264')
    expect(valueOf(args, '-i')).toBe('pipe:0')
    expect(valueOf(args, '-f')).toBe('matroska')
    expect(valueOf(args, '-c:a')).toBe('aac')
    expect(valueOf(args, '-ar')).toBe('48000')
    expect(args[args.length - 1]).toBe(url)
    expect(valueOf(args, '-progress')).toBe('pipe:1')
    expect(args).toContain('-nostats')
    // Pictures never wait in the muxer for sound (#19, #34): not for a late sound, not for the AAC
    // encoder's lookahead; 0 would mean without limit.
    expect(valueOf(args, '-max_interleave_delta')).toBe('1')
    expect(args.indexOf('-max_interleave_delta')).toBeGreaterThan(args.indexOf('pipe:0'))
  })

  it('encodes VP8/VP9 with libx264: bitrate, 2 s keyframes, no B-frames', () => {
    const args = buildBroadcastArgs({
      source: { kind: 'media', mimeType: 'video/webm;codecs=vp9,opus' },
      output,
      url
    })
    expect(valueOf(args, '-c:v')).toBe('libx264')
    expect(valueOf(args, '-g')).toBe('60')
    expect(valueOf(args, '-keyint_min')).toBe('60')
    expect(valueOf(args, '-sc_threshold')).toBe('0')
    expect(valueOf(args, '-bf')).toBe('0')
    expect(valueOf(args, '-b:v')).toBe('2500k')
    expect(valueOf(args, '-maxrate')).toBe('2500k')
    expect(valueOf(args, '-r')).toBe('30')
    expect(valueOf(args, '-preset')).toBe('veryfast')
  })

  it('builds a paced lavfi test pattern, its tone from the app through stdin, and FLV output', () => {
    const args = buildBroadcastArgs({
      source: { kind: 'test-pattern' },
      output: { ...output, width: 640, height: 360, fps: 25, keyframeIntervalSec: 1 },
      url,
      preset: 'ultrafast'
    })
    // One synthetic input (the picture); the tone is the app's, so the app's death ends ffmpeg.
    expect(args.filter((a) => a === 'lavfi')).toHaveLength(1)
    expect(args.filter((a) => a === '-re')).toHaveLength(1)
    expect(args).toContain('testsrc2=size=640x360:rate=25')
    expect(args[args.indexOf('pipe:0') - 6]).toBe('s16le')
    expect(args).toContain('-shortest')
    expect(valueOf(args, '-g')).toBe('25')
    expect(valueOf(args, '-preset')).toBe('ultrafast')
    expect(valueOf(args, '-rw_timeout')).toBe('10000000')
    expect(args[args.indexOf('-flvflags') - 1]).toBe('flv')
    expect(args).toContain('1:a:0')
  })

  it('recognises H.264 mime types', () => {
    expect(isH264Mime('video/x-matroska;codecs=avc1')).toBe(true)
    expect(isH264Mime('video/webm;codecs=h264,opus')).toBe(true)
    expect(isH264Mime('video/webm;codecs=vp8,opus')).toBe(false)
    expect(videoPath({ kind: 'test-pattern' })).toBe('encode')
  })
})

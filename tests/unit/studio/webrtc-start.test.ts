import { describe, expect, it } from 'vitest'
import { startsH264Keyframe } from '../../../src/studio/webrtc/sdp'
import { canProbeReady, relayArgs } from '../../../src/studio/webrtc/relay'
import { parsePortRange } from '../../../src/studio/index'

describe('startsH264Keyframe', () => {
  it('finds an SPS or IDR alone, in a STAP-A, or at the start of an FU-A', () => {
    expect(startsH264Keyframe(Uint8Array.from([0x67, 0x42]))).toBe(true) // SPS
    expect(startsH264Keyframe(Uint8Array.from([0x65, 0x88]))).toBe(true) // IDR
    expect(startsH264Keyframe(Uint8Array.from([0x41, 0x9a]))).toBe(false) // P slice
    // STAP-A: SPS (size 2) then PPS (size 2).
    expect(startsH264Keyframe(Uint8Array.from([0x78, 0, 2, 0x67, 0x42, 0, 2, 0x68, 0xce]))).toBe(
      true
    )
    expect(startsH264Keyframe(Uint8Array.from([0x78, 0, 2, 0x68, 0xce, 0, 2, 0x06, 0x05]))).toBe(
      false
    )
    // FU-A of an IDR: start bit set, then a middle fragment.
    expect(startsH264Keyframe(Uint8Array.from([0x7c, 0x85, 0x00]))).toBe(true)
    expect(startsH264Keyframe(Uint8Array.from([0x7c, 0x05, 0x00]))).toBe(false)
    expect(startsH264Keyframe(Uint8Array.from([0x7c, 0x81, 0x00]))).toBe(false)
    expect(startsH264Keyframe(Uint8Array.from([0x67]))).toBe(false)
  })
})

describe('relay start', () => {
  it('probes whether ffmpeg is bound on Linux and macOS only', () => {
    expect(canProbeReady('linux')).toBe(true)
    expect(canProbeReady('darwin')).toBe(true)
    expect(canProbeReady('win32')).toBe(false)
  })

  it('ends probing at the first keyframe only when the relay starts at one and carries no sound', () => {
    const at = (args: string[], flag: string): string | undefined => args[args.indexOf(flag) + 1]
    const fast = relayArgs('x.sdp', 'rtmp://127.0.0.1:1935/live/k', false, true)
    const slow = relayArgs('x.sdp', 'rtmp://127.0.0.1:1935/live/k', false, false)
    // With sound, an ended-at-once probe sometimes left Opus unknown and ffmpeg exited.
    const withSound = relayArgs('x.sdp', 'rtmp://127.0.0.1:1935/live/k', true, true)
    expect(at(fast, '-analyzeduration')).toBe('1')
    expect(at(slow, '-analyzeduration')).toBe('5000000')
    expect(at(withSound, '-analyzeduration')).toBe('5000000')
    expect(at(fast, '-probesize')).toBe('5000000')
  })
})

describe('parsePortRange', () => {
  it('reads "from-to" and refuses anything else', () => {
    expect(parsePortRange('50000-50015')).toEqual([50000, 50015])
    expect(parsePortRange(' 50000 - 50015 ')).toEqual([50000, 50015])
    expect(parsePortRange(undefined)).toBeUndefined()
    expect(parsePortRange('50015-50000')).toBeUndefined()
    expect(parsePortRange('80-90')).toBeUndefined()
    expect(parsePortRange('50000')).toBeUndefined()
  })
})

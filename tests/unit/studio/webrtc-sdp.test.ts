// The plain parts of WHIP/WHEP: which of an offer's codecs the studio takes, the relay's SDP, the
// relay ffmpeg's arguments, and how /webrtc/{id} tells a stream key from a playbackId.
import { describe, expect, it } from 'vitest'
import {
  checkOfferText,
  fmtpOf,
  mediaKinds,
  pickH264,
  pickOpus,
  PLAYBACK_ID_SHAPE,
  relaySdp,
  STREAM_KEY_SHAPE
} from '../../../src/studio/webrtc/sdp'
import { relayArgs } from '../../../src/studio/webrtc/relay'
import { iceAddress } from '../../../src/studio/webrtc/peer'

const h264 = (pt: number, fmtp: string) => ({
  mimeType: 'video/H264',
  payloadType: pt,
  clockRate: 90000,
  parameters: fmtp
})
// Chromium's H.264 entries, in its offer's order.
const CHROMIUM = [
  h264(102, 'level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f'),
  h264(103, 'level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42001f'),
  h264(106, 'level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f'),
  h264(107, 'level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42e01f'),
  h264(127, 'level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d001f')
]

describe('codec choice', () => {
  it('takes constrained baseline with packetization-mode 1 first, then baseline, then any mode 1', () => {
    expect(pickH264(CHROMIUM)?.payloadType).toBe(106)
    expect(pickH264(CHROMIUM.filter((c) => c.payloadType !== 106))?.payloadType).toBe(102)
    expect(pickH264([CHROMIUM[4]!, CHROMIUM[1]!])?.payloadType).toBe(127)
    // Mode 0 only (single NAL units), or no H.264: nothing the relay can copy.
    expect(pickH264([CHROMIUM[1]!, CHROMIUM[3]!])).toBeUndefined()
    expect(pickH264([{ mimeType: 'video/VP8', payloadType: 96, clockRate: 90000 }])).toBeUndefined()
  })

  it('takes Opus for audio', () => {
    const opus = { mimeType: 'audio/opus', payloadType: 111, clockRate: 48000, channels: 2 }
    expect(pickOpus([{ mimeType: 'audio/PCMU', payloadType: 0, clockRate: 8000 }, opus])).toBe(opus)
    expect(pickOpus([{ mimeType: 'audio/PCMU', payloadType: 0, clockRate: 8000 }])).toBeUndefined()
  })

  it('reads fmtp lines', () => {
    expect(fmtpOf('a=1; Packetization-Mode=1;x').get('packetization-mode')).toBe('1')
    expect(fmtpOf(undefined).size).toBe(0)
  })
})

describe('relay SDP and arguments', () => {
  it("describes the publisher's payload types on the relay's local ports", () => {
    const sdp = relaySdp({
      video: { port: 40000, codec: CHROMIUM[2]! },
      audio: {
        port: 40002,
        codec: { mimeType: 'audio/opus', payloadType: 111, clockRate: 48000, channels: 2 }
      }
    })
    expect(sdp.split('\r\n')).toEqual([
      'v=0',
      'o=- 0 0 IN IP4 127.0.0.1',
      's=Onair WHIP relay',
      'c=IN IP4 127.0.0.1',
      't=0 0',
      'm=video 40000 RTP/AVP 106',
      'a=rtpmap:106 H264/90000',
      'a=fmtp:106 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f',
      'a=recvonly',
      'm=audio 40002 RTP/AVP 111',
      'a=rtpmap:111 opus/48000/2',
      'a=recvonly',
      ''
    ])
  })

  it('copies the video, turns Opus into AAC, and publishes FLV to the ingest', () => {
    const a = relayArgs('/tmp/x.sdp', 'rtmp://127.0.0.1:1935/live/abcd-efgh-ijkl-mnop', true)
    expect(a.slice(a.indexOf('-f'), a.indexOf('-f') + 4)).toEqual(['-f', 'sdp', '-i', '/tmp/x.sdp'])
    expect(a).toContain('file,udp,rtp')
    expect(a.join(' ')).toContain('-c:v copy')
    expect(a.join(' ')).toContain('-c:a aac')
    expect(a.at(-1)).toBe('rtmp://127.0.0.1:1935/live/abcd-efgh-ijkl-mnop')
    expect(relayArgs('/tmp/x.sdp', 'rtmp://h/live/k', false).join(' ')).not.toContain('aac')
  })
})

describe('offers and ids', () => {
  it('says what is wrong with a body that is not an offer', () => {
    expect(checkOfferText('hello')).toMatch(/must start with v=0/)
    expect(checkOfferText('v=0\r\ns=-\r\n')).toMatch(/no audio or video/)
    expect(checkOfferText('v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n')).toBeNull()
    expect(mediaKinds('v=0\nm=audio 9 x\nm=video 9 y\nm=application 9 z\n')).toEqual([
      'audio',
      'video'
    ])
  })

  it('tells a stream key from a playbackId by shape', () => {
    expect(STREAM_KEY_SHAPE.test('ab12-cd34-ef56-gh78')).toBe(true)
    expect(PLAYBACK_ID_SHAPE.test('ab12-cd34-ef56-gh78')).toBe(false)
    expect(PLAYBACK_ID_SHAPE.test('ab12cd34ef56gh78')).toBe(true)
    expect(STREAM_KEY_SHAPE.test('../../etc/passwd')).toBe(false)
  })

  it("gathers ICE on the studio's own IPv4 address, else loopback", () => {
    expect(iceAddress('127.0.0.1')).toBe('127.0.0.1')
    expect(iceAddress('192.168.1.5')).toBe('192.168.1.5')
    expect(iceAddress('0.0.0.0')).toBe('127.0.0.1')
    expect(iceAddress('::1')).toBe('127.0.0.1')
    expect(iceAddress('localhost')).toBe('127.0.0.1')
  })
})

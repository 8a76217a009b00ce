// The plain parts of WHIP/WHEP: which of an offer's codecs the studio takes, and the SDP that tells
// the relay's ffmpeg what arrives on its local UDP ports. Pure functions (unit tested).

/** What the studio needs of a negotiated codec (werift's RTCRtpCodecParameters has these fields). */
export interface CodecLike {
  mimeType: string
  payloadType: number
  clockRate: number
  channels?: number
  parameters?: string
}

export function fmtpOf(parameters: string | undefined): Map<string, string> {
  const out = new Map<string, string>()
  for (const part of (parameters ?? '').split(';')) {
    const i = part.indexOf('=')
    if (i > 0) out.set(part.slice(0, i).trim().toLowerCase(), part.slice(i + 1).trim())
  }
  return out
}

const isH264 = (c: CodecLike): boolean => c.mimeType.toLowerCase() === 'video/h264'

/**
 * The H.264 the studio takes from an offer: packetization-mode 1 (FU-A, what Chromium and OBS send),
 * a baseline profile first (constrained baseline `42e0`, then `4200`: no B-frames, so RTMP and HLS
 * carry it copied), then any other packetization-mode 1 profile. Undefined when the offer has none.
 */
export function pickH264<C extends CodecLike>(codecs: readonly C[]): C | undefined {
  const mode1 = codecs.filter(
    (c) => isH264(c) && fmtpOf(c.parameters).get('packetization-mode') === '1'
  )
  const profile = (c: C): string =>
    (fmtpOf(c.parameters).get('profile-level-id') ?? '').toLowerCase()
  return (
    mode1.find((c) => profile(c).startsWith('42e0')) ??
    mode1.find((c) => profile(c).startsWith('42')) ??
    mode1[0]
  )
}

/** Opus, the one audio codec WebRTC senders all have. */
export function pickOpus<C extends CodecLike>(codecs: readonly C[]): C | undefined {
  return codecs.find((c) => c.mimeType.toLowerCase() === 'audio/opus')
}

export interface RelayMedia {
  /** Even local UDP port the RTP goes to; ffmpeg also opens port + 1 for RTCP. */
  port: number
  codec: CodecLike
}

/**
 * The SDP ffmpeg reads (`-f sdp`): one m-line per kind, on 127.0.0.1, with the payload types the
 * publisher uses (the relay sends its RTP unchanged).
 */
export function relaySdp(media: { video?: RelayMedia; audio?: RelayMedia }): string {
  const lines = [
    'v=0',
    'o=- 0 0 IN IP4 127.0.0.1',
    's=Onair WHIP relay',
    'c=IN IP4 127.0.0.1',
    't=0 0'
  ]
  const add = (kind: 'video' | 'audio', m: RelayMedia): void => {
    const name = m.codec.mimeType.split('/')[1] ?? ''
    const enc =
      kind === 'audio'
        ? `${name}/${m.codec.clockRate}/${m.codec.channels ?? 2}`
        : `${name}/${m.codec.clockRate}`
    lines.push(`m=${kind} ${m.port} RTP/AVP ${m.codec.payloadType}`)
    lines.push(`a=rtpmap:${m.codec.payloadType} ${enc}`)
    if (m.codec.parameters) lines.push(`a=fmtp:${m.codec.payloadType} ${m.codec.parameters}`)
    lines.push('a=recvonly')
  }
  if (media.video) add('video', media.video)
  if (media.audio) add('audio', media.audio)
  return lines.join('\r\n') + '\r\n'
}

/** Livepeer's stream key shape (four groups of four base-36 characters). */
export const STREAM_KEY_SHAPE = /^[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}$/
/** Livepeer's playbackId shape (16 base-36 characters). */
export const PLAYBACK_ID_SHAPE = /^[0-9a-z]{16}$/

/** An SDP body is text, starts with v=0, and fits the route's limit. */
export function checkOfferText(text: string): string | null {
  if (!/^v=0\r?\n/.test(text)) return 'the body is not an SDP offer (it must start with v=0)'
  if (mediaKinds(text).length === 0) return 'the SDP offer has no audio or video'
  return null
}

/** The kinds of an SDP's audio and video m-lines, in order. */
export function mediaKinds(sdp: string): Array<'video' | 'audio'> {
  return [...sdp.matchAll(/^m=(video|audio) /gm)].map((m) => m[1] as 'video' | 'audio')
}

/**
 * Whether an H.264 RTP payload (RFC 6184) carries the start of a keyframe: an SPS or an IDR slice,
 * alone, in a STAP-A aggregate, or as the first fragment of an FU-A.
 */
export function startsH264Keyframe(payload: Uint8Array): boolean {
  if (payload.length < 2) return false
  const type = payload[0]! & 0x1f
  const key = (t: number): boolean => t === 5 || t === 7
  if (type === 28) return (payload[1]! & 0x80) !== 0 && key(payload[1]! & 0x1f)
  if (type === 24) {
    // STAP-A: [header][size:2][nal]...
    for (let i = 1; i + 2 < payload.length;) {
      const size = (payload[i]! << 8) | payload[i + 1]!
      if (key(payload[i + 2]! & 0x1f)) return true
      i += 2 + size
    }
    return false
  }
  return key(type)
}

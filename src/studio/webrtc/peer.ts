// werift peer connections as the studio uses them: host candidates on the studio's own address (the
// studio listens on loopback), no trickle (the answer waits for gathering to finish), H.264 and Opus
// only, with the feedback a sender's congestion control needs (transport-cc, REMB) and PLI/FIR/NACK.
import { createSocket } from 'node:dgram'
import {
  RTCPeerConnection,
  useAbsSendTime,
  useFIR,
  useH264,
  useNACK,
  useOPUS,
  usePLI,
  useREMB,
  useSdesMid,
  useTransportWideCC,
  useTWCC,
  type RTCRtpTransceiver
} from 'werift'
import { mediaKinds, pickH264, pickOpus } from './sdp'

/** The studio's ICE address: its own host when that is IPv4, else loopback. */
export function iceAddress(host: string): string {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) && host !== '0.0.0.0' ? host : '127.0.0.1'
}

export function makePeer(host: string, ports?: [number, number]): RTCPeerConnection {
  const address = iceAddress(host)
  const feedback = [useNACK(), usePLI(), useFIR(), useREMB(), useTWCC()]
  return new RTCPeerConnection({
    codecs: {
      // The mimeType is what werift matches on; the offer's own profiles and payload types are kept,
      // and keepOne() below narrows each transceiver to the one the studio takes.
      video: [useH264({ rtcpFeedback: feedback })],
      audio: [useOPUS()]
    },
    headerExtensions: {
      video: [useSdesMid(), useAbsSendTime(), useTransportWideCC()],
      audio: [useSdesMid(), useAbsSendTime(), useTransportWideCC()]
    },
    iceInterfaceAddresses: { udp4: address },
    iceAdditionalHostAddresses: [address],
    iceUseIpv6: false,
    iceUseTcp: false,
    ...(ports ? { icePortRange: ports } : {})
  })
}

/**
 * Narrows each negotiated transceiver to the one codec the studio takes (H.264 packetization-mode 1,
 * baseline first; Opus), so the sender uses exactly that one. Returns an error for an offer with
 * video but no usable H.264.
 */
export function keepOne(pc: RTCPeerConnection): string | null {
  for (const t of pc.getTransceivers()) {
    if (t.kind === 'video') {
      const h264 = pickH264(t.codecs)
      if (!h264) return 'the offer has no H.264 (packetization-mode=1) video: send H.264'
      t.codecs = [h264]
      // werift took the offer's first H.264 for sending; a WHEP viewer gets the one kept.
      t.sender.codec = h264
    } else if (t.kind === 'audio') {
      const opus = pickOpus(t.codecs)
      if (!opus) return 'the offer has no Opus audio: send Opus'
      t.codecs = [opus]
      t.sender.codec = opus
    }
  }
  return null
}

/** Waits for ICE gathering to end (no trickle), at most `ms`. */
export function gathered(pc: RTCPeerConnection, ms = 3000): Promise<void> {
  if (pc.iceGatheringState === 'complete') return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    const { unSubscribe } = pc.iceGatheringStateChange.subscribe((s) => {
      if (s === 'complete') done()
    })
    function done(): void {
      clearTimeout(timer)
      unSubscribe()
      resolve()
    }
  })
}

/** Answers an offer: remote description, one codec per kind, local answer, gathered candidates. */
export async function answer(
  pc: RTCPeerConnection,
  offer: string,
  send = false
): Promise<{ sdp: string } | { error: string }> {
  // werift makes a recvonly transceiver for each m-line it has none for; a sender (WHEP) makes
  // its own sendonly ones first, one per kind the offer has, in the offer's order.
  if (send) for (const kind of mediaKinds(offer)) pc.addTransceiver(kind, { direction: 'sendonly' })
  try {
    await pc.setRemoteDescription({ type: 'offer', sdp: offer })
  } catch (err) {
    return {
      error: `the SDP offer could not be used: ${String((err as Error).message).slice(0, 200)}`
    }
  }
  const bad = keepOne(pc)
  if (bad) return { error: bad }
  await pc.setLocalDescription(await pc.createAnswer())
  await gathered(pc)
  const sdp = pc.localDescription?.sdp
  if (!sdp) return { error: 'no answer could be made' }
  return { sdp }
}

export const transceiversOf = (
  pc: RTCPeerConnection
): { video?: RTCRtpTransceiver; audio?: RTCRtpTransceiver } => ({
  video: pc.getTransceivers().find((t) => t.kind === 'video'),
  audio: pc.getTransceivers().find((t) => t.kind === 'audio')
})

/**
 * An even UDP port on loopback whose next port is free too (ffmpeg's RTP input takes port and
 * port + 1 for RTCP). The ports are let go just before ffmpeg binds them.
 */
export async function freePortPair(tries = 30): Promise<number> {
  const bind = (port: number): Promise<ReturnType<typeof createSocket> | undefined> =>
    new Promise((resolve) => {
      const s = createSocket('udp4')
      s.once('error', () => {
        s.close()
        resolve(undefined)
      })
      s.bind(port, '127.0.0.1', () => resolve(s))
    })
  for (let i = 0; i < tries; i++) {
    const a = await bind(0)
    if (!a) continue
    const p = a.address().port
    const b = p % 2 === 0 ? await bind(p + 1) : undefined
    a.close()
    b?.close()
    if (b) return p
  }
  throw new Error('no free pair of UDP ports on 127.0.0.1')
}

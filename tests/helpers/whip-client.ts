// A WHIP publisher and a WHEP viewer in Node, on werift, for tests of the studio's /webrtc routes
// without a browser. The publisher's media is a real ffmpeg encode (lavfi test pattern, H.264
// constrained baseline + Opus) sent as RTP to local UDP ports and written into werift's tracks.
import { spawn, type ChildProcess } from 'node:child_process'
import { createSocket, type Socket } from 'node:dgram'
import {
  MediaStreamTrack,
  RTCPeerConnection,
  useH264,
  useOPUS,
  type RTCRtpTransceiver,
  type RtpPacket
} from 'werift'
import { testFfmpeg } from './studio'

export interface WhipPublisher {
  pc: RTCPeerConnection
  /** The session's URL (the answer's Location). */
  location: string
  ffmpeg: ChildProcess
  /** DELETE the session, then close the peer and ffmpeg. */
  stop(): Promise<Response>
  /** Close the peer and ffmpeg without a DELETE (a publisher that vanished). */
  vanish(): Promise<void>
  /** Keyframe requests (PLI) the publisher has received. */
  plis(): number
}

const bindUdp = (): Promise<Socket> =>
  new Promise((resolve) => {
    const s = createSocket('udp4')
    s.bind(0, '127.0.0.1', () => resolve(s))
  })

/** The peer's offer with its candidates gathered (no trickle). */
async function localOffer(pc: RTCPeerConnection): Promise<string> {
  await pc.setLocalDescription(await pc.createOffer())
  await new Promise<void>((resolve) => {
    if (pc.iceGatheringState === 'complete') return resolve()
    pc.iceGatheringStateChange.subscribe((s) => s === 'complete' && resolve())
  })
  return pc.localDescription!.sdp
}

async function postOffer(url: string, pc: RTCPeerConnection): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/sdp' },
    body: await localOffer(pc)
  })
}

function peer(): RTCPeerConnection {
  return new RTCPeerConnection({
    codecs: { video: [useH264()], audio: [useOPUS()] },
    iceInterfaceAddresses: { udp4: '127.0.0.1' },
    iceAdditionalHostAddresses: ['127.0.0.1'],
    iceUseIpv6: false
  })
}

/**
 * An offer from a peer that is closed at once, so it never connects: `send` offers H.264 + Opus to
 * send (WHIP), otherwise to receive (WHEP). The same text may be posted many times.
 */
export async function deadOffer(send: boolean): Promise<string> {
  const pc = peer()
  const direction = send ? 'sendonly' : 'recvonly'
  pc.addTransceiver('video', { direction })
  pc.addTransceiver('audio', { direction })
  const sdp = await localOffer(pc)
  await pc.close()
  return sdp
}

/** Publishers' ffmpegs still running: a test that fails before its stop leaves none behind. */
const running = new Set<() => Promise<void>>()

/** Closes every publisher still open (afterAll), without a DELETE. */
export async function closeWhipPublishers(): Promise<void> {
  await Promise.all([...running].map((c) => c()))
}

/**
 * Publishes by WHIP to `url` ({base}/webrtc/{streamKey}). Throws with the answer's status and body
 * when the offer is refused.
 */
export async function whipPublish(
  url: string,
  o: { width?: number; height?: number; fps?: number; audio?: boolean } = {}
): Promise<WhipPublisher> {
  const w = o.width ?? 640
  const h = o.height ?? 360
  const fps = o.fps ?? 30
  const audio = o.audio !== false
  const vsock = await bindUdp()
  const asock = audio ? await bindUdp() : undefined
  const pc = peer()
  const vtrack = new MediaStreamTrack({ kind: 'video' })
  const vt: RTCRtpTransceiver = pc.addTransceiver(vtrack, { direction: 'sendonly' })
  let atrack: MediaStreamTrack | undefined
  if (audio) {
    atrack = new MediaStreamTrack({ kind: 'audio' })
    pc.addTransceiver(atrack, { direction: 'sendonly' })
  }
  let plis = 0
  vt.sender.onPictureLossIndication.subscribe(() => plis++)
  vsock.on('message', (m) => vtrack.writeRtp(m))
  asock?.on('message', (m) => atrack!.writeRtp(m))

  const res = await postOffer(url, pc)
  if (res.status !== 201) {
    const body = await res.text()
    await pc.close()
    vsock.close()
    asock?.close()
    throw Object.assign(new Error(`WHIP POST answered ${res.status}: ${body}`), {
      status: res.status,
      body
    })
  }
  const location = res.headers.get('location') ?? ''
  await pc.setRemoteDescription({ type: 'answer', sdp: await res.text() })

  const args = ['-hide_banner', '-loglevel', 'error', '-nostdin', '-re']
  args.push('-f', 'lavfi', '-i', `testsrc2=size=${w}x${h}:rate=${fps}`)
  if (audio) args.push('-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000')
  args.push('-map', '0:v', '-c:v', 'libx264', '-profile:v', 'baseline', '-preset', 'ultrafast')
  args.push('-tune', 'zerolatency', '-g', String(fps * 2), '-pix_fmt', 'yuv420p')
  args.push(
    '-f',
    'rtp',
    '-payload_type',
    '96',
    `rtp://127.0.0.1:${vsock.address().port}?pkt_size=1200`
  )
  if (audio) {
    args.push('-map', '1:a', '-c:a', 'libopus', '-ar', '48000', '-ac', '2')
    args.push('-f', 'rtp', '-payload_type', '111', `rtp://127.0.0.1:${asock!.address().port}`)
  }
  const ffmpeg = spawn(testFfmpeg(), args, { stdio: ['ignore', 'ignore', 'pipe'] })
  ffmpeg.stderr!.resume()
  const exited = new Promise<void>((r) => ffmpeg.once('exit', () => r()))
  // Even a worker that ends without afterAll takes its ffmpeg with it.
  const killNow = (): void => {
    if (ffmpeg.exitCode === null && ffmpeg.signalCode === null) ffmpeg.kill('SIGKILL')
  }
  process.once('exit', killNow)

  const close = async (): Promise<void> => {
    running.delete(close)
    process.off('exit', killNow)
    killNow()
    await exited
    await pc.close()
    vsock.close()
    asock?.close()
  }
  running.add(close)
  return {
    pc,
    location,
    ffmpeg,
    plis: () => plis,
    stop: async () => {
      const r = await fetch(location, { method: 'DELETE' })
      await close()
      return r
    },
    vanish: close
  }
}

export interface WhepViewer {
  pc: RTCPeerConnection
  location: string
  /** RTP packets received, by kind. */
  received: { video: number; audio: number }
  /** Resolves with the first video packet that starts a keyframe (an IDR or SPS NAL unit). */
  firstKeyframe: Promise<RtpPacket>
  stop(): Promise<Response>
}

/** True when an H.264 RTP payload carries (or starts) an SPS or IDR NAL unit. */
export function startsKeyframe(payload: Buffer): boolean {
  if (payload.length < 2) return false
  const type = payload[0]! & 0x1f
  if (type === 5 || type === 7) return true
  if (type === 24) {
    // STAP-A: the aggregated units' types.
    for (let i = 1; i + 2 < payload.length;) {
      const size = payload.readUInt16BE(i)
      const t = payload[i + 2]! & 0x1f
      if (t === 5 || t === 7) return true
      i += 2 + size
    }
  }
  if (type === 28) {
    const start = (payload[1]! & 0x80) !== 0
    const t = payload[1]! & 0x1f
    return start && (t === 5 || t === 7)
  }
  return false
}

/** Plays by WHEP from `url` ({base}/webrtc/{playbackId}). */
export async function whepPlay(url: string): Promise<WhepViewer> {
  const pc = peer()
  pc.addTransceiver('video', { direction: 'recvonly' })
  pc.addTransceiver('audio', { direction: 'recvonly' })
  const received = { video: 0, audio: 0 }
  let gotKeyframe!: (p: RtpPacket) => void
  const firstKeyframe = new Promise<RtpPacket>((r) => (gotKeyframe = r))
  pc.onTrack.subscribe((track) => {
    track.onReceiveRtp.subscribe((rtp) => {
      if (track.kind === 'video') {
        received.video++
        if (startsKeyframe(rtp.payload)) gotKeyframe(rtp)
      } else received.audio++
    })
  })
  const res = await postOffer(url, pc)
  if (res.status !== 201) {
    const body = await res.text()
    await pc.close()
    throw Object.assign(new Error(`WHEP POST answered ${res.status}: ${body}`), {
      status: res.status,
      body
    })
  }
  const location = res.headers.get('location') ?? ''
  await pc.setRemoteDescription({ type: 'answer', sdp: await res.text() })
  return {
    pc,
    location,
    received,
    firstKeyframe,
    stop: async () => {
      const r = await fetch(location, { method: 'DELETE' })
      await pc.close()
      return r
    }
  }
}

// Low latency (WebRTC): the page sends its capture (camera, screen or scene) straight to the service
// by WHIP. No ffmpeg on this path: the browser encodes H.264 (constrained baseline, packetization
// mode 1, what the studio copies into RTMP and HLS) and Opus, and WebRTC's own congestion control
// sets the rate. Main posts the offer (the WHIP URL carries the stream key, which the page never
// holds) and DELETEs the session at the end.
import type { OnairApi, OutputSettings } from '../../../../../shared/contract'
import { WHIP_GATHER_CAP_MS } from '../../../../../shared/output'
import type { AppError } from '../../../../../shared/result'

/** The H.264 the studio takes first, then the other packetization-mode 1 profiles. */
export function preferH264<C extends { mimeType: string; sdpFmtpLine?: string }>(
  codecs: readonly C[]
): C[] {
  const rank = (c: C): number => {
    if (!/^video\/h264$/i.test(c.mimeType)) return 9
    const f = c.sdpFmtpLine ?? ''
    if (!/packetization-mode=1/.test(f)) return 8
    if (/profile-level-id=42e0/i.test(f)) return 0
    if (/profile-level-id=42/i.test(f)) return 1
    return 2
  }
  return codecs.filter((c) => rank(c) < 8).sort((a, b) => rank(a) - rank(b))
}

/** What the health strip shows of a WebRTC run, from RTCPeerConnection.getStats(). */
export interface WebRtcStats {
  /** Video bitrate leaving the page over the last reading, kbit/s. */
  outKbps: number
  /** The congestion controller's estimate of what the link carries, kbit/s (absent until known). */
  availableKbps?: number
  /** Why the encoder sends less than asked: 'bandwidth', 'cpu', 'other' or 'none'. */
  limitation: string
  fps: number
  width?: number
  height?: number
  /** Whether the sender holds the Output's size ('hold') or may lower it ('free'): sizeRule. */
  size?: SizeRule['policy']
  /**
   * The service receives on this computer (the connected pair's remote address is loopback: the local
   * studio): the stream never leaves it, so what limits the link is this computer, not an upload.
   */
  onThisComputer?: boolean
}

/** An ICE candidate's address on this computer's loopback (127.0.0.0/8, ::1). */
export const isLoopbackAddress = (address: string): boolean =>
  /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address) || address === '::1'

interface Sample {
  bytes: number
  at: number
}

/** Reads one stats report: the outbound video and the selected candidate pair. */
export function readStats(
  report: RTCStatsReport,
  prev?: Sample
): { stats: WebRtcStats; sample: Sample } {
  let bytes = 0
  let at = 0
  let limitation = 'none'
  let fps = 0
  let width: number | undefined
  let height: number | undefined
  let availableKbps: number | undefined
  let remoteId: unknown
  report.forEach((s: Record<string, unknown>) => {
    if (s.type === 'outbound-rtp' && s.kind === 'video') {
      bytes += Number(s.bytesSent ?? 0)
      at = Number(s.timestamp ?? 0)
      limitation = String(s.qualityLimitationReason ?? 'none')
      fps = Number(s.framesPerSecond ?? 0)
      width = s.frameWidth as number | undefined
      height = s.frameHeight as number | undefined
    }
    if (s.type === 'candidate-pair' && s.nominated && s.availableOutgoingBitrate !== undefined) {
      availableKbps = Math.round(Number(s.availableOutgoingBitrate) / 1000)
      remoteId = s.remoteCandidateId
    }
  })
  const remote: Record<string, unknown> | undefined =
    typeof remoteId === 'string' ? report.get(remoteId) : undefined
  const address = remote?.address ?? remote?.ip
  const onThisComputer = typeof address === 'string' ? isLoopbackAddress(address) : undefined
  const sample = { bytes, at }
  const outKbps = prev && at > prev.at ? Math.round(((bytes - prev.bytes) * 8) / (at - prev.at)) : 0
  return {
    stats: {
      outKbps,
      availableKbps,
      limitation,
      fps: Math.round(fps),
      width,
      height,
      ...(onThisComputer === undefined ? {} : { onThisComputer })
    },
    sample
  }
}

/** The start is over this long after the peer connected, whatever the estimate says. */
export const START_HOLD_MS = 10_000

/**
 * Whether a WebRTC run's start is over: the congestion controller's estimate has reached the
 * Output's bitrate, or the peer has been connected START_HOLD_MS. Until then the Output's size is
 * held whatever the estimate (it starts low); from then on, sizeRule decides.
 */
export function startOver(stats: WebRtcStats, outputKbps: number, connectedMs: number): boolean {
  return (stats.availableKbps ?? 0) >= outputKbps || connectedMs >= START_HOLD_MS
}

/** Below this share of the Output's video bitrate the link is short: the size may go. */
export const SHORT_LINK = 0.6
/** From this share up the link carries the Output again: the size is held again. */
export const LINK_BACK = 0.85
/** Readings in a row (one a second) that a change needs, so one odd estimate changes nothing. */
export const READINGS_TO_CHANGE = 2

/**
 * 'hold': the sender keeps the Output's size and gives up frames under pressure
 * (maintain-resolution); 'free': it keeps the frame rate and may lower the size (maintain-framerate).
 */
export interface SizeRule {
  policy: 'hold' | 'free'
  /** Readings in a row that asked for the other policy. */
  streak: number
}

/**
 * After the start: the size is let go only while the link is short (the estimate under SHORT_LINK of
 * the Output's bitrate), where keeping the frame rate keeps the delay low (under the uplink bench's
 * 40% throttle, holding the size put the monitor 1.02 s behind live at p95, letting it go 0.2-0.5 s),
 * and held again once the link carries LINK_BACK of it. A link that carries most of the Output keeps
 * its size: letting it go after every start, Chromium went straight to 320x180 where the estimate
 * had not reached the Output's rate 10 s in (the e2e layer on a busy machine), and the service's
 * source, its recording and ladder with it.
 */
export function sizeRule(
  prev: SizeRule,
  availableKbps: number | undefined,
  outputKbps: number
): SizeRule {
  if (availableKbps === undefined || outputKbps <= 0) return { policy: prev.policy, streak: 0 }
  const share = availableKbps / outputKbps
  const other = prev.policy === 'hold' ? share < SHORT_LINK : share >= LINK_BACK
  if (!other) return { policy: prev.policy, streak: 0 }
  if (prev.streak + 1 < READINGS_TO_CHANGE) return { policy: prev.policy, streak: prev.streak + 1 }
  return { policy: prev.policy === 'hold' ? 'free' : 'hold', streak: 0 }
}

const PREFERENCE: Record<SizeRule['policy'], RTCDegradationPreference> = {
  hold: 'maintain-resolution',
  free: 'maintain-framerate'
}

export type WhipState = 'connecting' | 'live' | 'failed' | 'ended'

export class WhipPublisher {
  private pc: RTCPeerConnection | null = null
  private runId: string | null = null
  private timer: ReturnType<typeof setInterval> | null = null
  private last?: Sample
  /** The video's sender: its size is held through the start, then as sizeRule says. */
  private video: RTCRtpSender | null = null
  private started = false
  private size: SizeRule = { policy: 'hold', streak: 0 }
  private connectedAt: number | undefined

  constructor(
    private readonly api: OnairApi,
    private readonly stream: MediaStream,
    private readonly output: OutputSettings,
    private readonly onState: (s: WhipState, error?: AppError) => void,
    private readonly onStats: (s: WebRtcStats) => void
  ) {}

  get id(): string | null {
    return this.runId
  }

  /**
   * Offers, lets main post it by WHIP, and applies the answer. Resolves with the run and stream.
   * `recordLocally`: main opens the run's local copy, which the page then feeds (live-context.tsx).
   */
  async start(
    streamId: string,
    recordLocally = false
  ): Promise<{ runId: string; streamName: string } | AppError> {
    const pc = new RTCPeerConnection({ bundlePolicy: 'max-bundle' })
    this.pc = pc
    for (const track of this.stream.getTracks()) {
      const t = pc.addTransceiver(track, { direction: 'sendonly', streams: [this.stream] })
      if (track.kind === 'video') {
        const caps = RTCRtpSender.getCapabilities('video')?.codecs ?? []
        const h264 = preferH264(caps)
        if (h264.length === 0) {
          pc.close()
          return {
            code: 'media',
            message: 'This system cannot send H.264 by WebRTC.',
            hint: 'Choose RTMP in Output.'
          }
        }
        t.setCodecPreferences(h264)
        const p = t.sender.getParameters()
        p.encodings = [
          {
            maxBitrate: this.output.videoBitrateKbps * 1000,
            maxFramerate: this.output.fps,
            scaleResolutionDownBy: 1
          }
        ]
        // The start holds the Output's size: with the size free to change, Chromium began at half
        // of it (its start estimate is low), and the service's source, and so its ladder, took
        // that size. Once the start is over (startOver), a short link may cost the size (sizeRule).
        p.degradationPreference = PREFERENCE.hold
        await t.sender.setParameters(p).catch(() => undefined)
        this.video = t.sender
      }
    }
    const ready = hostCandidateOrComplete(pc, WHIP_GATHER_CAP_MS)
    await pc.setLocalDescription(await pc.createOffer())
    await ready
    const r = await this.api.whipStart({
      streamId,
      offer: pc.localDescription!.sdp,
      ...(recordLocally ? { recordLocally } : {})
    })
    if (!r.ok) {
      pc.close()
      this.pc = null
      return r.error
    }
    this.runId = r.value.runId
    pc.onconnectionstatechange = () => {
      if (pc.connectionState === 'connected') {
        this.connectedAt ??= Date.now()
        this.onState('live')
      }
      if (pc.connectionState === 'failed')
        this.onState('failed', {
          code: 'network',
          message: 'The WebRTC connection to the service failed.',
          hint: 'Go live again, or choose RTMP in Output.'
        })
    }
    await pc.setRemoteDescription({ type: 'answer', sdp: r.value.answer })
    this.timer = setInterval(() => void this.sample(), 1000)
    return { runId: r.value.runId, streamName: r.value.streamName }
  }

  private async sample(): Promise<void> {
    if (!this.pc) return
    const { stats, sample } = readStats(await this.pc.getStats(), this.last)
    this.last = sample
    const since = this.connectedAt === undefined ? 0 : Date.now() - this.connectedAt
    const outputKbps = this.output.videoBitrateKbps
    this.started ||= startOver(stats, outputKbps, since)
    const before = this.size.policy
    if (this.started) this.size = sizeRule(this.size, stats.availableKbps, outputKbps)
    this.onStats({ ...stats, size: this.size.policy })
    if (!this.video || this.size.policy === before) return
    const p = this.video.getParameters()
    p.degradationPreference = PREFERENCE[this.size.policy]
    await this.video.setParameters(p).catch(() => undefined)
  }

  /** DELETE the session, then close the peer (the service ends the session in order). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    const id = this.runId
    this.runId = null
    if (id) await this.api.whipStop(id)
    this.pc?.close()
    this.pc = null
    this.onState('ended')
  }
}

/**
 * Resolves once the peer has a host candidate or its gathering is complete, at most `capMs` after
 * (listen before setLocalDescription). No trickle: the offer carries what is in by then.
 */
export function hostCandidateOrComplete(pc: RTCPeerConnection, capMs: number): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(t)
      pc.removeEventListener('icecandidate', seen)
      resolve()
    }
    const seen = (ev: RTCPeerConnectionIceEvent): void => {
      if (ev.candidate === null || ev.candidate.type === 'host') done()
    }
    const t = setTimeout(done, capMs)
    pc.addEventListener('icecandidate', seen)
  })
}

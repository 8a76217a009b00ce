// WebRTC in and out of the local studio, on werift (no DTLS or SRTP of our own).
//
// WHIP (publish): one session per stream key. Its RTP goes to a relay ffmpeg (relay.ts) that
// publishes to the studio's own RTMP ingest, so the session, recording, ladder and destinations are
// those of an RTMP publish. DELETE ends it in order (the session ends at once); ICE failure, a
// connection that never comes up, or a relay that ends drops it (the resume window applies).
//
// Lost video packets of a publisher are asked for again by the studio (NACK), or given up for a
// keyframe (loss.ts); the sender's congestion control reads the studio's own feedback (twcc.ts).
//
// WHEP (play): one peer per viewer of a stream that is published by WHIP; the publisher's RTP is sent
// on as it comes (no decode), and the publisher is asked for a keyframe (PLI) when a viewer joins or
// when a viewer asks for one.
import { randomBytes } from 'node:crypto'
import {
  RTCDtlsTransport,
  type RTCPeerConnection,
  type RTCRtpTransceiver,
  type RtpPacket
} from 'werift'
import { answer, makePeer, transceiversOf } from './peer'
import { answerWithTwcc } from './twcc'
import { LossRepair, repairLosses, type LossStats } from './loss'
import { Relay } from './relay'
import { startsH264Keyframe } from './sdp'
import { DEFAULT_GOP_S } from '../transcoder'

/**
 * A peer that has not connected (ICE and DTLS) this long after the answer is given up. Until then it
 * holds no relay ffmpeg (WHIP) and no viewer slot (WHEP): on one machine or a LAN a peer connects
 * in well under a second.
 */
export const CONNECT_TIMEOUT_MS = 10_000
/** A peer 'disconnected' this long (no ICE consent) is given up. */
export const DISCONNECTED_MS = 5_000
/**
 * Keyframe requests while the relay waits for its first keyframe. The first one goes with the first
 * packet of video: the sender's opening keyframe often comes before the relay's ffmpeg reads its port.
 */
const PLI_WHILE_STARTING_MS = 250
/**
 * A WebRTC encoder makes a keyframe only when asked (Chromium's went 16.7 s without one), and the
 * source recorder cuts its segments on keyframes, at the first one past each DEFAULT_GOP_S of media:
 * once the segment clock's last keyframe is a segment old, the publisher is asked for the next
 * (PLI), so the segments stay ~DEFAULT_GOP_S long. Checked this often.
 */
const SEGMENT_KEYFRAME_MS = DEFAULT_GOP_S * 1000
const SEGMENT_KEYFRAME_TICK_MS = 50
/** Lost packets are asked for again, or given up, this often. */
const LOSS_TICK_MS = 20
/** Losses and their repair are logged at most this often, when there were any. */
const LOSS_LOG_MS = 5_000
/** Connected viewers per stream: the studio is for one machine. */
export const MAX_VIEWERS = 20
/**
 * Viewers answered but not connected yet, per stream. A new offer past this many takes the place of
 * the oldest one (which had its chance to connect): unconnected offers hold no viewer slot.
 */
export const MAX_PENDING_VIEWERS = 20

export class WebRtcError extends Error {
  constructor(
    readonly status: number,
    message: string
  ) {
    super(message)
  }
}

export interface HubDeps {
  host: string
  ffmpeg: string
  log: (line: string) => void
  /** null = the key may publish; otherwise why not (unknown, deleted, suspended). */
  authorize(streamKey: string): string | null
  /** An RTMP publisher holds the key now. */
  rtmpPublishing(streamKey: string): boolean
  /** The studio's own ingest URL for the key (rtmp://127.0.0.1:P/live/KEY). */
  rtmpUrl(streamKey: string): string
  /** UDP ports for WHIP publishers' peers (viewers take any): see StudioOptions.whipPorts. */
  whipPorts?: [number, number]
}

type Kind = 'video' | 'audio'

interface Peer {
  id: string
  pc: RTCPeerConnection
  closed: boolean
  timers: Set<NodeJS.Timeout>
}

interface Publisher extends Peer {
  streamKey: string
  relay?: Relay
  /** The relay being started (once ICE and DTLS are up): ending the session waits for it. */
  relayStarting?: Promise<void>
  flowing: boolean
  /** The publisher's incoming transceivers (for PLI) and the SSRC of its video. */
  video?: RTCRtpTransceiver
  videoSsrc?: number
  /**
   * The segment clock: when its newest keyframe began to arrive (ms), and when the next was asked
   * for, until it comes. Keyframes asked for otherwise (a loss, a viewer) once the relay flows do
   * not move the clock: a keyframe 1.5 s into a segment cannot end it, and counted, it would put
   * the next 2 s after itself, making a 3.5 s segment (one run had a 3.7 s one).
   */
  lastKeyAt?: number
  segmentKeyAsked?: number
  /** NACKs and keyframe requests for the publisher's lost video packets. */
  loss?: LossRepair
  /** Keyframes asked for by viewers (their decoders gave up), for the log. */
  viewerKeyframeAsks: number
  viewers: Set<Viewer>
  /** Subscribers of each kind's RTP (viewers), as serialized packets. */
  listeners: Record<Kind, Set<(packet: Buffer) => void>>
  /** When each stage of the start was reached (ms after the offer came in), logged once flowing. */
  stages: StageTrace
}

interface Viewer extends Peer {
  source: Publisher
  /** ICE and DTLS are up: the viewer holds one of the stream's MAX_VIEWERS slots. */
  connected: boolean
  /** Stops taking the publisher's RTP. */
  detach?: () => void
}

const newId = (): string => randomBytes(16).toString('hex')

/**
 * The stages of a WHIP start, in ms after the offer came in, for one log line: where the time to the
 * first frame at the ingest goes (the bench reads it: scripts/bench/glass.ts).
 */
export class StageTrace {
  private readonly t0 = Date.now()
  private readonly at = new Map<string, number>()

  mark(stage: string): void {
    if (!this.at.has(stage)) this.at.set(stage, Date.now() - this.t0)
  }

  has(stage: string): boolean {
    return this.at.has(stage)
  }

  /** "(ms after the offer at <epoch ms>): answer 120, ice 300, ..." in the order reached. */
  line(): string {
    return `(ms after the offer at ${this.t0}): ${[...this.at].map(([k, v]) => `${k} ${v}`).join(', ')}`
  }
}

export class WebRtcHub {
  private readonly publishers = new Map<string, Publisher>()
  private readonly byKey = new Map<string, Publisher>()
  private readonly viewers = new Map<string, Viewer>()

  constructor(private readonly d: HubDeps) {
    // werift makes one DTLS certificate per process, on the first peer: make it now, so the first
    // WHIP offer is not answered half a second late.
    void RTCDtlsTransport.SetupCertificate().catch(() => undefined)
  }

  /** A WHIP session holds the key now. */
  publishing(streamKey: string): boolean {
    return this.byKey.has(streamKey)
  }

  /** WHIP: answers the offer and starts the relay. Returns the answer and the session's id. */
  async publish(streamKey: string, offer: string): Promise<{ id: string; answer: string }> {
    const why = this.d.authorize(streamKey)
    if (why) throw new WebRtcError(why === 'unknown stream key' ? 404 : 403, why)
    if (this.byKey.has(streamKey) || this.d.rtmpPublishing(streamKey))
      throw new WebRtcError(409, 'the stream already has a publisher')
    const pc = makePeer(this.d.host, this.d.whipPorts)
    const p: Publisher = {
      id: newId(),
      pc,
      closed: false,
      timers: new Set(),
      streamKey,
      flowing: false,
      viewers: new Set(),
      listeners: { video: new Set(), audio: new Set() },
      stages: new StageTrace(),
      viewerKeyframeAsks: 0
    }
    // Held from here, so a second offer for the key while this one is answered is refused.
    this.byKey.set(streamKey, p)
    this.publishers.set(p.id, p)
    try {
      pc.iceConnectionStateChange.subscribe((st) => {
        if (st === 'connected') p.stages.mark('ice')
      })
      pc.connectionStateChange.subscribe((st) => {
        if (st === 'connected') p.stages.mark('dtls')
      })
      const a = await answer(pc, offer)
      if ('error' in a) throw new WebRtcError(400, a.error)
      // The sender's congestion control reads the studio's feedback, not werift's (twcc.ts).
      const twcc = answerWithTwcc(pc)
      if (twcc) p.timers.add(twcc)
      p.stages.mark('answer')
      const { video, audio } = transceiversOf(pc)
      p.video = video
      if (video) this.repair(p, video)
      this.wire(p, video, 'video')
      this.wire(p, audio, 'audio')
      // The relay's ffmpeg starts once ICE and DTLS are up: an offer that never connects costs a
      // peer for CONNECT_TIMEOUT_MS, never an ffmpeg.
      this.watch(
        p,
        () => void this.endPublisher(p, false, 'the connection failed'),
        () => (p.relayStarting ??= this.startRelay(p, video, audio))
      )
      this.askKeyframesWhileStarting(p)
      this.askKeyframesEverySegment(p)
      this.d.log(`webrtc: WHIP session ${p.id.slice(0, 8)} answered on live/****`)
      return { id: p.id, answer: a.sdp }
    } catch (err) {
      await this.endPublisher(p, false, 'the offer was refused')
      throw err
    }
  }

  /** The WHIP session's relay (relay.ts), started when the peer has connected. */
  private async startRelay(
    p: Publisher,
    video: RTCRtpTransceiver | undefined,
    audio: RTCRtpTransceiver | undefined
  ): Promise<void> {
    try {
      const relay = await Relay.start({
        ffmpeg: this.d.ffmpeg,
        rtmpUrl: this.d.rtmpUrl(p.streamKey),
        video: video?.codecs[0],
        audio: audio?.codecs[0],
        secrets: [p.streamKey],
        log: this.d.log,
        mark: (stage) => p.stages.mark(stage),
        onFlowing: () => {
          p.flowing = true
          p.stages.mark('relay-progress')
          this.d.log(
            `webrtc: WHIP session ${p.id.slice(0, 8)} is live on the ingest; start stages ` +
              p.stages.line()
          )
        },
        onEnd: () => void this.endPublisher(p, false, 'the relay ended')
      })
      p.relay = relay
      p.stages.mark('relay-spawned')
      // Ended while ffmpeg started: endPublisher waited for this start, and stops it.
    } catch (err) {
      this.d.log(`webrtc: WHIP session ${p.id.slice(0, 8)}: relay not started: ${String(err)}`)
      void this.endPublisher(p, false, 'the relay could not start')
    }
  }

  /** WHIP DELETE: ends the session in order (the ingest sees a clean unpublish). */
  async unpublish(id: string): Promise<boolean> {
    const p = this.publishers.get(id)
    if (!p) return false
    await this.endPublisher(p, true, 'the publisher ended it')
    return true
  }

  /** WHEP: a viewer of the stream published by WHIP under this key. */
  async play(streamKey: string, offer: string): Promise<{ id: string; answer: string }> {
    const source = this.byKey.get(streamKey)
    if (!source || source.closed)
      throw new WebRtcError(
        404,
        'the stream is not being published by WebRTC (WHIP) now: play its HLS instead'
      )
    const all = [...source.viewers]
    if (all.filter((x) => x.connected).length >= MAX_VIEWERS)
      throw new WebRtcError(503, `at most ${MAX_VIEWERS} WebRTC viewers per stream`)
    // Offers that have not connected hold no slot: past MAX_PENDING_VIEWERS the oldest goes.
    const pending = all.filter((x) => !x.connected)
    if (pending.length >= MAX_PENDING_VIEWERS)
      await this.endViewer(pending[0]!, 'a newer offer took its place before it connected')
    const pc = makePeer(this.d.host)
    const v: Viewer = {
      id: newId(),
      pc,
      closed: false,
      timers: new Set(),
      source,
      connected: false
    }
    this.viewers.set(v.id, v)
    source.viewers.add(v)
    try {
      const a = await answer(pc, offer, true)
      if ('error' in a) throw new WebRtcError(400, a.error)
      const { video, audio } = transceiversOf(pc)
      const unsubscribe: (() => void)[] = []
      const feed = (t: RTCRtpTransceiver | undefined, kind: Kind): void => {
        if (!t) return
        const send = (packet: Buffer): void => void t.sender.sendRtp(packet).catch(() => undefined)
        source.listeners[kind].add(send)
        unsubscribe.push(() => source.listeners[kind].delete(send))
      }
      feed(video, 'video')
      feed(audio, 'audio')
      // A viewer's own keyframe request goes on to the publisher.
      video?.sender.onPictureLossIndication.subscribe(() => {
        source.viewerKeyframeAsks++
        this.keyframe(source)
      })
      this.watch(
        v,
        () => void this.endViewer(v, 'the connection failed'),
        () => {
          if (v.connected) return
          if ([...source.viewers].filter((x) => x.connected).length >= MAX_VIEWERS) {
            void this.endViewer(v, `the stream has ${MAX_VIEWERS} WebRTC viewers`)
            return
          }
          v.connected = true
          // A new viewer starts on a keyframe: ask the publisher for one as soon as it can decode.
          this.keyframe(source)
        }
      )
      v.detach = () => unsubscribe.forEach((u) => u())
      this.d.log(`webrtc: WHEP viewer ${v.id.slice(0, 8)} answered`)
      return { id: v.id, answer: a.sdp }
    } catch (err) {
      await this.endViewer(v, 'the offer was refused')
      throw err
    }
  }

  /** WHEP DELETE. */
  async stopPlaying(id: string): Promise<boolean> {
    const v = this.viewers.get(id)
    if (!v) return false
    await this.endViewer(v, 'the viewer ended it')
    return true
  }

  /** Ends every session (the studio stops): publishers in order, so their sessions end at once. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.viewers.values()].map((v) => this.endViewer(v, 'the studio stops')))
    await Promise.all(
      [...this.publishers.values()].map((p) => this.endPublisher(p, true, 'the studio stops'))
    )
  }

  /** Sessions open now (tests and logs). */
  counts(): { publishers: number; viewers: number } {
    return { publishers: this.publishers.size, viewers: this.viewers.size }
  }

  private wire(p: Publisher, t: RTCRtpTransceiver | undefined, kind: Kind): void {
    // The receiver's track exists once the offer is set (werift raises its track event then).
    const track = t?.receiver.track
    if (!track) return
    track.onReceiveRtp.subscribe((rtp: RtpPacket) => {
      if (kind === 'video' && p.videoSsrc === undefined) {
        p.videoSsrc = rtp.header.ssrc
        p.stages.mark('first-rtp')
        if (!p.flowing) this.keyframe(p)
      }
      const key = kind === 'video' && startsH264Keyframe(rtp.payload)
      if (key) {
        p.stages.mark('keyframe')
        if (!p.flowing || p.segmentKeyAsked !== undefined) {
          p.lastKeyAt = Date.now()
          p.segmentKeyAsked = undefined
        }
      }
      if (kind === 'video') p.loss?.received(rtp.header.sequenceNumber, key)
      const packet = rtp.serialize()
      p.relay?.send(kind, packet, key)
      for (const l of p.listeners[kind]) l(packet)
    })
  }

  /** Lost video packets: asked again, else a keyframe; a line in the log when there were any. */
  private repair(p: Publisher, video: RTCRtpTransceiver): void {
    const loss = repairLosses(
      video.receiver,
      () => p.videoSsrc,
      () => this.keyframe(p)
    )
    p.loss = loss
    const tick = setInterval(() => loss.tick(), LOSS_TICK_MS)
    p.timers.add(tick)
    let logged: LossStats = { ...loss.stats }
    let viewerAsks = 0
    const report = setInterval(() => {
      const s = loss.stats
      if (s.lost === logged.lost && p.viewerKeyframeAsks === viewerAsks) return
      const d = (k: keyof LossStats): number => s[k] - logged[k]
      this.d.log(
        `webrtc: WHIP session ${p.id.slice(0, 8)}: ${d('lost')} video packets lost in ` +
          `${LOSS_LOG_MS / 1000} s, ${d('repaired')} repaired by NACK, ${d('superseded')} passed by a ` +
          `keyframe, ${d('givenUp')} given up; keyframes asked: ${d('keyframesAsked')} by the ` +
          `studio, ${p.viewerKeyframeAsks - viewerAsks} by viewers`
      )
      logged = { ...s }
      viewerAsks = p.viewerKeyframeAsks
    }, LOSS_LOG_MS)
    p.timers.add(report)
  }

  private keyframe(p: Publisher): void {
    if (p.closed || !p.video || p.videoSsrc === undefined) return
    p.video.receiver.sendRtcpPLI(p.videoSsrc).catch(() => undefined)
  }

  private askKeyframesWhileStarting(p: Publisher): void {
    const t = setInterval(() => {
      if (p.flowing || p.closed) {
        clearInterval(t)
        p.timers.delete(t)
        return
      }
      this.keyframe(p)
    }, PLI_WHILE_STARTING_MS)
    p.timers.add(t)
  }

  /** The segment clock: a keyframe asked for whenever its last is a segment old. */
  private askKeyframesEverySegment(p: Publisher): void {
    const t = setInterval(() => {
      const now = Date.now()
      if (p.lastKeyAt === undefined) return
      if (p.segmentKeyAsked === undefined) {
        if (now - p.lastKeyAt < SEGMENT_KEYFRAME_MS) return
      } else if (now - p.segmentKeyAsked < SEGMENT_KEYFRAME_MS / 4) return // asked again if lost
      p.segmentKeyAsked = now
      this.keyframe(p)
    }, SEGMENT_KEYFRAME_TICK_MS)
    p.timers.add(t)
  }

  /** Connect timeout, ICE failure, a long 'disconnected': `lost` ends the peer. */
  private watch(peer: Peer, lost: () => void, connected?: () => void): void {
    const arm = (ms: number): NodeJS.Timeout => {
      const t = setTimeout(() => {
        peer.timers.delete(t)
        lost()
      }, ms)
      peer.timers.add(t)
      return t
    }
    let pending: NodeJS.Timeout | undefined = arm(CONNECT_TIMEOUT_MS)
    const clear = (): void => {
      if (pending) {
        clearTimeout(pending)
        peer.timers.delete(pending)
      }
      pending = undefined
    }
    peer.pc.connectionStateChange.subscribe((s) => {
      if (peer.closed) return
      if (s === 'connected') {
        clear()
        connected?.()
      } else if (s === 'disconnected') {
        clear()
        pending = arm(DISCONNECTED_MS)
      } else if (s === 'failed') {
        clear()
        lost()
      }
    })
  }

  private async endPublisher(p: Publisher, clean: boolean, why: string): Promise<void> {
    if (p.closed) return
    p.closed = true
    for (const t of p.timers) clearTimeout(t)
    p.timers.clear()
    this.publishers.delete(p.id)
    if (this.byKey.get(p.streamKey) === p) this.byKey.delete(p.streamKey)
    this.d.log(`webrtc: WHIP session ${p.id.slice(0, 8)} ended: ${why}`)
    await Promise.all([...p.viewers].map((v) => this.endViewer(v, 'the publisher left')))
    // The relay first, while RTP still arrives: ffmpeg reads its 'q' between packets, then
    // unpublishes in order (a clean end finalizes the session at once).
    await p.relayStarting
    await p.relay?.stop(clean)
    await p.pc.close().catch(() => undefined)
  }

  private async endViewer(v: Viewer, why: string): Promise<void> {
    if (v.closed) return
    v.closed = true
    for (const t of v.timers) clearTimeout(t)
    v.timers.clear()
    this.viewers.delete(v.id)
    v.source.viewers.delete(v)
    v.detach?.()
    this.d.log(`webrtc: WHEP viewer ${v.id.slice(0, 8)} ended: ${why}`)
    await v.pc.close().catch(() => undefined)
  }
}

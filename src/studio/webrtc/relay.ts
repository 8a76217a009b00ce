// The WHIP session's way into the existing pipeline: its RTP goes unchanged to local UDP ports, where
// one ffmpeg reads it by an SDP file, copies the H.264, turns Opus into AAC and publishes FLV to the
// studio's own RTMP ingest with the stream key. The ingest then makes the session, the recording, the
// ladder and the multistream pushes exactly as for an RTMP encoder.
import { createSocket, type Socket } from 'node:dgram'
import { rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { SupervisedFfmpeg, type FfmpegExit } from '../../node/ffmpeg/supervised'
import { quietWithProgress } from '../../node/ffmpeg/progress'
import { pushOutputArgs } from '../../node/ffmpeg/push'
import { forceKill, stopChild } from '../../node/process'
import { relaySdp, type CodecLike } from './sdp'
import { freePortPair } from './peer'

/** Media time not advancing for this long ends the relay (and so the WHIP session). */
export const RELAY_STALL_MS = 10_000
/** How often the relay asks whether ffmpeg has bound its ports yet, and how long it waits at most. */
const READY_PROBE_MS = 10
export const READY_CAP_MS = 3000
/** Packets held for ffmpeg while it starts (from the newest keyframe on): a bound, not a target. */
const MAX_HELD = 4000

/**
 * Whether the relay can tell when ffmpeg has bound its UDP ports: a connected UDP socket gets
 * ECONNREFUSED (ICMP port unreachable) from a closed local port on Linux and macOS. Windows reports
 * it on receive only, so there the relay starts at once and ffmpeg probes as before.
 */
export const canProbeReady = (platform: NodeJS.Platform = process.platform): boolean =>
  platform === 'linux' || platform === 'darwin'

/**
 * `fastStart`: ffmpeg's first packets are a keyframe's (the relay holds the RTP until ffmpeg is bound
 * and starts it at a keyframe), so probing can end as soon as that keyframe's SPS gave the size (no
 * analysis time: ffmpeg otherwise decodes 7 frames of H.264 to guess a reorder delay WebRTC never
 * has): measured here, ffmpeg published ~115 ms after the keyframe instead of ~257 ms. Without it,
 * probing keeps its analysis time (a probe that ended on P-frames alone would publish no size), and
 * so it does when there is sound (below).
 */
export function relayArgs(
  sdpFile: string,
  rtmpUrl: string,
  hasAudio: boolean,
  fastStart = false
): string[] {
  return [
    ...quietWithProgress(0.5),
    '-protocol_whitelist',
    'file,udp,rtp',
    // Start as soon as the first keyframe's SPS/PPS is in: the SDP already names the codecs.
    '-fflags',
    '+genpts+nobuffer',
    '-flags',
    'low_delay',
    // Probing ends once the first keyframe's SPS is in (no frame-rate guess: -fpsprobesize 0); the
    // slow limits only bound a publisher whose keyframe is late.
    '-probesize',
    '5000000',
    '-analyzeduration',
    // With sound, probing keeps its analysis time: ended at once, it sometimes left the Opus stream
    // unknown and ffmpeg exited ("Error initializing output stream 0:1"), ending the WHIP session a
    // second after it began (the integration test, 3 runs of 6 on a loaded machine).
    fastStart && !hasAudio ? '1' : '5000000',
    '-fpsprobesize',
    '0',
    '-reorder_queue_size',
    '64',
    '-f',
    'sdp',
    '-i',
    sdpFile,
    '-map',
    '0:v:0?',
    ...(hasAudio
      ? ['-map', '0:a:0?', '-c:a', 'aac', '-b:a', '128k', '-ar', '48000', '-ac', '2']
      : []),
    '-c:v',
    'copy',
    ...pushOutputArgs(rtmpUrl)
  ]
}

export interface RelayOptions {
  ffmpeg: string
  /** rtmp://127.0.0.1:P/live/KEY: the studio's own ingest (the key is in ffmpeg's argv only). */
  rtmpUrl: string
  video?: CodecLike
  audio?: CodecLike
  secrets: readonly string[]
  log: (line: string) => void
  /** The relay ended by itself (ffmpeg exited or stalled): the WHIP session ends with it. */
  onEnd: (exit: FfmpegExit) => void
  /** ffmpeg's media is flowing into the ingest. */
  onFlowing?: () => void
  /** A start stage reached: 'relay-bound' (ffmpeg took its ports), 'relay-fed' (RTP passes). */
  mark?: (stage: string) => void
}

export class Relay {
  private readonly socket: Socket
  private ff?: SupervisedFfmpeg
  private sdpFile?: string
  private ports: { video?: number; audio?: number } = {}
  private stopping = false
  private closed = false
  /** RTP passes straight to ffmpeg (it is bound and the flow began at a keyframe). */
  private started = false
  private bound = false
  /** What arrived while ffmpeg starts, from the newest keyframe on. */
  private held: { kind: 'video' | 'audio'; packet: Buffer }[] = []
  private prober?: Socket
  private readonly fastStart = canProbeReady()

  private constructor(private readonly o: RelayOptions) {
    this.socket = createSocket('udp4')
    this.socket.on('error', (err) => o.log(`webrtc: relay socket: ${err.message}`))
  }

  static async start(o: RelayOptions): Promise<Relay> {
    const r = new Relay(o)
    await r.begin()
    return r
  }

  private async begin(): Promise<void> {
    if (this.o.video) this.ports.video = await freePortPair()
    if (this.o.audio) this.ports.audio = await freePortPair()
    this.sdpFile = join(tmpdir(), `onair-whip-${process.pid}-${randomBytes(6).toString('hex')}.sdp`)
    await writeFile(
      this.sdpFile,
      relaySdp({
        ...(this.o.video ? { video: { port: this.ports.video!, codec: this.o.video } } : {}),
        ...(this.o.audio ? { audio: { port: this.ports.audio!, codec: this.o.audio } } : {})
      })
    )
    const args = relayArgs(this.sdpFile, this.o.rtmpUrl, this.o.audio !== undefined, this.fastStart)
    this.ff = new SupervisedFfmpeg({
      ffmpeg: this.o.ffmpeg,
      args: () => args,
      backoff: { initialMs: 1000, factor: 2, capMs: 8000, jitter: 0 },
      secrets: this.o.secrets,
      stallMs: RELAY_STALL_MS,
      // One attempt: an ended relay ends the WHIP session (the publisher reconnects, as an RTMP
      // encoder would, and the resume window keeps it one session).
      decide: () => 'give-up',
      onFlowing: () => this.o.onFlowing?.(),
      onExit: (exit, next) => {
        if (next) return
        if (!this.stopping) {
          const last = exit.stderr.filter((l) => l.trim()).pop()
          this.o.log(
            `webrtc: relay ffmpeg ended (${exit.stalled ? 'stalled' : `code ${exit.code}`})${last ? `: ${last}` : ''}`
          )
        }
        void this.cleanup()
        if (!this.stopping) this.o.onEnd(exit)
      }
    })
    this.ff.start()
    if (this.fastStart) void this.waitBound()
    else this.bound = true
  }

  /**
   * Asks ffmpeg's RTCP port (bound right after its RTP port) with an empty receiver report (which
   * ffmpeg ignores) every READY_PROBE_MS until one is not refused, at most READY_CAP_MS.
   */
  private async waitBound(): Promise<void> {
    const port = (this.ports.video ?? this.ports.audio)! + 1
    const probe = createSocket('udp4')
    this.prober = probe
    let refused = false
    probe.on('error', () => (refused = true))
    const rr = Buffer.from([0x80, 0xc9, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00])
    const tick = (): Promise<void> => new Promise((r) => setTimeout(r, READY_PROBE_MS))
    try {
      await new Promise<void>((r) => probe.connect(port, '127.0.0.1', r))
      const until = Date.now() + READY_CAP_MS
      while (!this.closed && Date.now() < until) {
        refused = false
        probe.send(rr)
        await tick()
        // After one more poll of the sockets: a loop held up past the tick runs timers before I/O,
        // and the refusal would be read too late (a false "bound").
        await new Promise<void>((r) => setImmediate(r))
        if (!refused) break
      }
    } catch {
      // No probe: the cap stands for it.
    } finally {
      this.prober = undefined
      try {
        probe.close()
      } catch {
        // closed by cleanup()
      }
    }
    this.bound = true
    this.o.mark?.('relay-bound')
    this.flush()
  }

  /** ffmpeg is bound: what is held goes, in order, if it begins at a keyframe (or there is no video). */
  private flush(): void {
    const first = this.held[0]
    if (!first || (this.o.video && !this.keyHeld)) return
    this.started = true
    this.o.mark?.('relay-fed')
    for (const h of this.held) this.write(h.kind, h.packet)
    this.held = []
  }

  private keyHeld = false

  /**
   * One RTP packet (as received) for ffmpeg's port of its kind. `keyStart`: the packet begins a
   * keyframe (sdp.ts startsH264Keyframe). Until ffmpeg is bound, packets are held from the newest
   * keyframe on (older ones, which ffmpeg could not decode from, are dropped); then they pass.
   */
  send(kind: 'video' | 'audio', packet: Buffer, keyStart = false): void {
    if (!this.ports[kind] || this.closed) return
    if (this.started) return this.write(kind, packet)
    if (kind === 'video' && keyStart) {
      this.held = []
      this.keyHeld = true
    } else if (this.o.video && !this.keyHeld) return
    if (this.held.length >= MAX_HELD) {
      // ffmpeg is very late: start again at the next keyframe.
      this.held = []
      this.keyHeld = false
      return
    }
    this.held.push({ kind, packet })
    if (this.bound) this.flush()
  }

  private write(kind: 'video' | 'audio', packet: Buffer): void {
    this.socket.send(packet, this.ports[kind]!, '127.0.0.1')
  }

  /**
   * Ends the relay. `clean`: ffmpeg gets 'q' and unpublishes in order (the session ends at once);
   * otherwise it is killed, and the ingest sees a dropped publisher (the resume window applies).
   */
  async stop(clean: boolean): Promise<void> {
    if (this.stopping) return this.ff?.done.then(() => undefined)
    this.stopping = true
    if (this.ff) {
      if (clean) await this.ff.stop(5000)
      else
        await this.ff.stopWith((child) =>
          stopChild(child, { graceful: () => forceKill(child), killAfterMs: 2000 })
        )
    }
    await this.cleanup()
  }

  private async cleanup(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.held = []
    try {
      this.prober?.close()
    } catch {
      // already closed
    }
    try {
      this.socket.close()
    } catch {
      // already closed
    }
    if (this.sdpFile) await rm(this.sdpFile, { force: true })
  }
}

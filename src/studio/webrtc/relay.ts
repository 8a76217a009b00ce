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

export function relayArgs(sdpFile: string, rtmpUrl: string, hasAudio: boolean): string[] {
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
    // limits only bound a publisher whose keyframe is late.
    '-probesize',
    '5000000',
    '-analyzeduration',
    '5000000',
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
}

export class Relay {
  private readonly socket: Socket
  private ff?: SupervisedFfmpeg
  private sdpFile?: string
  private ports: { video?: number; audio?: number } = {}
  private stopping = false
  private closed = false

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
    const args = relayArgs(this.sdpFile, this.o.rtmpUrl, this.o.audio !== undefined)
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
  }

  /** Sends one RTP packet (as received) to ffmpeg's port for its kind. */
  send(kind: 'video' | 'audio', packet: Buffer): void {
    const port = this.ports[kind]
    if (!port || this.closed) return
    this.socket.send(packet, port, '127.0.0.1')
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
    try {
      this.socket.close()
    } catch {
      // already closed
    }
    if (this.sdpFile) await rm(this.sdpFile, { force: true })
  }
}

// One encoding run: raw frames and sound in (raw-media messages), streamed Matroska out. The chosen
// video encoder opens first (a hardware one that fails falls back to x264, and says why); frames wait
// in a short queue while the encoder works, and past MAX_WAITING the oldest are skipped and counted
// (OBS's "encoder overloaded"). Frames go on a frame-rate grid from their capture times; the sound on
// its own clock from its first sample's capture time. Blocks are written as the encoders make them,
// the sound held back only until the picture has caught up with it (so a cluster holds one stretch of
// time), never longer than MAX_AUDIO_AHEAD_MS.
import type { HardwareFallback } from '../shared/contract'
import type { EncoderConfig, EncoderStats } from '../shared/encoder-channel'
import type { RawMessage } from '../shared/raw-media'
import { AudioEncoder, type AudioPacket } from './audio'
import { avcConfig, avcSample } from './avc'
import { AUDIO_TRACK, MatroskaBlocks, matroskaHeader, VIDEO_TRACK } from './matroska'
import { candidateOf, VideoEncoder, type VideoPacket } from './video'

/** Frames waiting for the encoder beyond this are skipped, oldest first. */
export const MAX_WAITING = 3
/** Sound is written at most this far ahead of the picture (a stalled picture does not hold it). */
const MAX_AUDIO_AHEAD_MS = 1000

export interface SessionOut {
  /** Matroska bytes, in order. */
  write(chunk: Buffer): void
  log(line: string): void
}

export interface Started {
  encoder: VideoEncoder
  fallback?: HardwareFallback
}

export class EncodeSession {
  private readonly queue: RawMessage[] = []
  private readonly mkv: MatroskaBlocks
  private audio: AudioEncoder | null = null
  private originUs: number | null = null
  private lastPts = -1
  private busy = false
  private ending: Promise<void> | null = null
  private endResolve: (() => void) | null = null
  private heldAudio: AudioPacket[] = []
  private lastVideoDtsMs = -Infinity
  private audioWarned = false
  private failed: Error | null = null
  readonly stats: EncoderStats = { framesIn: 0, encoded: 0, skipped: 0, encodeMs: 0, videoKbps: 0 }
  private window = { encodeMs: 0, frames: 0, videoBytes: 0, since: Date.now() }

  private constructor(
    private readonly config: EncoderConfig,
    private readonly video: VideoEncoder,
    private readonly out: SessionOut
  ) {
    this.mkv = new MatroskaBlocks((b) => out.write(b))
  }

  /**
   * Opens the encoders and writes the header. A hardware encoder that does not open falls back to
   * x264 (fallback says which and the encoder's words); x264 or AAC failing to open throws.
   */
  static async start(
    config: EncoderConfig,
    out: SessionOut
  ): Promise<{ session: EncodeSession; fallback?: HardwareFallback }> {
    const settings = {
      width: config.width,
      height: config.height,
      fps: config.fps,
      kbps: config.videoKbps,
      keyframeSec: config.keyframeSec,
      preset: config.preset,
      bframes: config.bframes
    }
    let video: VideoEncoder
    let fallback: HardwareFallback | undefined
    try {
      video = await VideoEncoder.open(candidateOf(config.encoder), settings)
    } catch (e) {
      if (config.encoder === 'x264') throw e
      const chosen = candidateOf(config.encoder)
      fallback = { tried: config.encoder, label: chosen.label, detail: (e as Error).message }
      out.log(`${chosen.label} could not start: ${fallback.detail}; x264 runs instead`)
      video = await VideoEncoder.open(candidateOf('x264'), settings)
    }
    const s = new EncodeSession(config, video, out)
    try {
      if (config.audio) s.audio = await AudioEncoder.open(config.audio)
      out.write(
        matroskaHeader(
          {
            width: config.width,
            height: config.height,
            fps: config.fps,
            avcC: avcConfig(video.extradata)
          },
          s.audio && config.audio
            ? {
                sampleRate: config.audio.sampleRate,
                channels: config.audio.channels,
                asc: s.audio.extradata
              }
            : undefined
        )
      )
    } catch (e) {
      video.close()
      s.audio?.close()
      throw e
    }
    return { session: s, ...(fallback ? { fallback } : {}) }
  }

  get encoderLabel(): string {
    return this.video.candidate.label
  }

  get encoderId(): EncoderConfig['encoder'] {
    return this.video.candidate.id
  }

  /** A failure inside the encoder (the run cannot go on). */
  get error(): Error | null {
    return this.failed
  }

  setBitrate(kbps: number): void {
    this.video.setBitrate(kbps)
  }

  requestKeyframe(): void {
    this.video.requestKeyframe()
  }

  /** One raw message (its payload must stay unchanged until it has been encoded). */
  take(m: RawMessage): void {
    if (this.ending || this.failed) return
    const h = m.header
    this.originUs ??= h.timestampUs
    if (h.kind === 'video') {
      this.stats.framesIn++
      if (h.width !== this.config.width || h.height !== this.config.height) {
        this.stats.skipped++
        this.out.log(
          `a ${h.width}x${h.height} frame skipped: the run encodes ${this.config.width}x${this.config.height}`
        )
        return
      }
      this.queue.push(m)
      while (this.queue.filter((q) => q.header.kind === 'video').length > MAX_WAITING) {
        const i = this.queue.findIndex((q) => q.header.kind === 'video')
        this.queue.splice(i, 1)
        this.stats.skipped++
      }
    } else {
      const a = this.config.audio
      if (!a || h.sampleRate !== a.sampleRate || h.channels !== a.channels) {
        if (!this.audioWarned)
          this.out.log(
            a
              ? `sound at ${h.sampleRate} Hz / ${h.channels} ch left out: the run encodes ${a.sampleRate} Hz / ${a.channels} ch`
              : 'sound left out: the run has no sound track'
          )
        this.audioWarned = true
        return
      }
      this.queue.push(m)
    }
    void this.pump()
  }

  private async pump(): Promise<void> {
    if (this.busy) return
    this.busy = true
    try {
      while (this.queue.length && !this.failed) {
        const m = this.queue.shift() as RawMessage
        await this.encodeOne(m)
      }
    } catch (e) {
      this.failed = e as Error
      this.out.log(`the encoder failed: ${(e as Error).message}`)
    } finally {
      this.busy = false
    }
    if (this.queue.length === 0) this.endResolve?.()
  }

  private async encodeOne(m: RawMessage): Promise<void> {
    const h = m.header
    const originUs = this.originUs ?? h.timestampUs
    if (h.kind === 'video') {
      // The frame-rate grid: the capture time's frame number, always after the last one.
      const pts = Math.max(
        this.lastPts + 1,
        Math.round(((h.timestampUs - originUs) * this.config.fps) / 1e6)
      )
      this.lastPts = pts
      const t0 = performance.now()
      const packets = await this.video.encode(m.payload, pts)
      this.window.encodeMs += performance.now() - t0
      this.window.frames++
      this.stats.encoded++
      this.writeVideo(packets)
    } else if (this.audio) {
      const sr = h.sampleRate
      const start = Math.round(((h.timestampUs - originUs) * sr) / 1e6)
      this.writeAudio(await this.audio.push(m.payload, h.frames, start))
    }
  }

  private writeVideo(packets: VideoPacket[]): void {
    for (const p of packets) {
      this.window.videoBytes += p.data.length
      this.lastVideoDtsMs = Math.max(this.lastVideoDtsMs, p.dtsMs)
      this.flushAudio(this.lastVideoDtsMs)
      this.mkv.block(VIDEO_TRACK, p.ptsMs, p.key, avcSample(p.data))
    }
  }

  private writeAudio(packets: AudioPacket[]): void {
    this.heldAudio.push(...packets)
    const newest = this.heldAudio[this.heldAudio.length - 1]
    if (newest && newest.ptsMs - MAX_AUDIO_AHEAD_MS > this.lastVideoDtsMs)
      this.flushAudio(newest.ptsMs - MAX_AUDIO_AHEAD_MS)
  }

  /** Writes the held sound up to upToMs. */
  private flushAudio(upToMs: number): void {
    while (this.heldAudio.length && (this.heldAudio[0] as AudioPacket).ptsMs <= upToMs) {
      const a = this.heldAudio.shift() as AudioPacket
      this.mkv.block(AUDIO_TRACK, Math.max(0, a.ptsMs), true, a.data)
    }
  }

  /** The stats of the period since the last call (about every 500 ms). */
  tick(): EncoderStats {
    const w = this.window
    const secs = Math.max(0.001, (Date.now() - w.since) / 1000)
    this.stats.encodeMs = w.frames ? Math.round((w.encodeMs / w.frames) * 10) / 10 : 0
    this.stats.videoKbps = Math.round((w.videoBytes * 8) / 1000 / secs)
    this.window = { encodeMs: 0, frames: 0, videoBytes: 0, since: Date.now() }
    return { ...this.stats }
  }

  /** Encodes what waits, empties the encoders, writes the rest. */
  end(): Promise<void> {
    this.ending ??= (async () => {
      if (this.busy || this.queue.length)
        await new Promise<void>((r) => {
          this.endResolve = r
          void this.pump()
        })
      if (!this.failed) {
        try {
          this.writeVideo(await this.video.flush())
          if (this.audio) this.writeAudio(await this.audio.flush())
          this.flushAudio(Infinity)
        } catch (e) {
          this.out.log(`the encoder's last frames were lost: ${(e as Error).message}`)
        }
      }
      this.video.close()
      this.audio?.close()
    })()
    return this.ending
  }
}

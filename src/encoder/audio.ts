// The sound: the mix's f32 planar samples to AAC (FFmpeg's native encoder) at the configured rate, in
// the 1024-sample frames AAC takes, collected in FFmpeg's audio FIFO. Its clock is the first sample's
// capture time plus the samples counted since, so the sound stays on the capture clock the picture
// uses and never drifts with message sizes.
import { AudioFifo, Codec, CodecContext, FFmpegError, Frame, Packet, Rational } from 'node-av/lib'
import { avChannelLayoutDefault } from 'node-av/lib'
import {
  AV_CODEC_FLAG_GLOBAL_HEADER,
  AV_SAMPLE_FMT_FLTP,
  type FFEncoderCodec
} from 'node-av/constants'
import type { EncoderAudioConfig } from '../shared/encoder-channel'

export interface AudioPacket {
  data: Buffer
  ptsMs: number
}

export class AudioEncoder {
  private readonly fifo = new AudioFifo()
  private readonly frame = new Frame()
  private readonly packet = new Packet()
  private readonly frameSize: number
  /** Sample number (since the stream's origin) of the FIFO's first sample; null before any sound. */
  private nextPts: number | null = null

  private constructor(
    private readonly ctx: CodecContext,
    readonly config: EncoderAudioConfig
  ) {
    this.frameSize = ctx.frameSize || 1024
    this.fifo.alloc(AV_SAMPLE_FMT_FLTP, config.channels, this.frameSize * 4)
    this.frame.alloc()
    this.packet.alloc()
  }

  static async open(config: EncoderAudioConfig): Promise<AudioEncoder> {
    const codec = Codec.findEncoderByName('aac' as FFEncoderCodec)
    if (!codec) throw new Error('FFmpeg has no AAC encoder in this build')
    const ctx = new CodecContext()
    ctx.allocContext3(codec)
    ctx.sampleFormat = AV_SAMPLE_FMT_FLTP
    ctx.sampleRate = config.sampleRate
    ctx.channelLayout = avChannelLayoutDefault(config.channels)
    ctx.timeBase = new Rational(1, config.sampleRate)
    ctx.bitRate = BigInt(Math.round(config.kbps * 1000))
    ctx.setFlags(AV_CODEC_FLAG_GLOBAL_HEADER)
    const r = await ctx.open2(codec, null)
    if (r < 0) {
      ctx.freeContext()
      throw new Error(`the AAC encoder did not open (${FFmpegError.strerror(r)})`)
    }
    return new AudioEncoder(ctx, config)
  }

  /** The AudioSpecificConfig. */
  get extradata(): Buffer {
    const x = this.ctx.extraData
    if (!x?.length) throw new Error('the AAC encoder gave no AudioSpecificConfig')
    return x
  }

  /**
   * Takes one message's samples (planar: each channel's `frames` floats one after the other).
   * startSample: where its first sample falls on the stream's clock (samples since the origin), used
   * for the first message only; later ones continue the count.
   */
  async push(planar: Uint8Array, frames: number, startSample: number): Promise<AudioPacket[]> {
    const ch = this.config.channels
    let skip = 0
    if (this.nextPts === null) {
      // Sound captured before the stream's origin is left out.
      skip = Math.max(0, -startSample)
      if (skip >= frames) return []
      this.nextPts = Math.max(0, startSample)
    }
    const n = frames - skip
    const bytes = Buffer.from(planar.buffer, planar.byteOffset, planar.byteLength)
    const planes: Buffer[] = []
    for (let c = 0; c < ch; c++)
      planes.push(bytes.subarray((c * frames + skip) * 4, (c * frames + frames) * 4))
    if (this.fifo.space < n) FFmpegError.throwIfError(this.fifo.realloc(this.fifo.size + n), 'fifo')
    const w = await this.fifo.write(planes, n)
    FFmpegError.throwIfError(w, 'fifo write')
    return this.encodeWhile(this.frameSize)
  }

  /** Whatever is left (a last, shorter frame) and the encoder's own delay, at the end. */
  async flush(): Promise<AudioPacket[]> {
    const out = await this.encodeWhile(1)
    await this.ctx.sendFrame(null)
    return [...out, ...this.drain()]
  }

  private async encodeWhile(min: number): Promise<AudioPacket[]> {
    const out: AudioPacket[] = []
    while (this.fifo.size >= min && this.fifo.size > 0) {
      const n = Math.min(this.frameSize, this.fifo.size)
      const f = this.frame
      f.unref()
      f.format = AV_SAMPLE_FMT_FLTP
      f.sampleRate = this.config.sampleRate
      f.channelLayout = avChannelLayoutDefault(this.config.channels)
      f.nbSamples = n
      FFmpegError.throwIfError(f.getBuffer(0), 'sound frame')
      const data = f.data
      if (!data) throw new Error('the sound frame has no data')
      const r = await this.fifo.read(data.slice(0, this.config.channels), n)
      FFmpegError.throwIfError(r, 'fifo read')
      f.pts = BigInt(this.nextPts ?? 0)
      this.nextPts = (this.nextPts ?? 0) + n
      FFmpegError.throwIfError(await this.ctx.sendFrame(f), 'encode sound')
      out.push(...this.drain())
    }
    return out
  }

  private drain(): AudioPacket[] {
    const out: AudioPacket[] = []
    const ms = 1000 / this.config.sampleRate
    for (;;) {
      if (this.ctx.receivePacketSync(this.packet) < 0) break
      const data = this.packet.data
      if (data) out.push({ data: Buffer.from(data), ptsMs: Number(this.packet.pts) * ms })
      this.packet.unref()
    }
    return out
  }

  close(): void {
    this.ctx.freeContext()
    this.fifo.free()
    this.frame.free()
    this.packet.free()
  }
}

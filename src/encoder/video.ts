// The video encoders Onair can run (#33), all through libavcodec (node-av): x264 as OBS runs it, or a
// hardware encoder this machine's FFmpeg offers. Opening one is the only honest probe: each either
// opens on a small picture or fails with FFmpeg's own words (no CUDA driver, no VA-API device, not in
// this build), and those words are what the creator sees.
import { existsSync } from 'node:fs'
import {
  Codec,
  CodecContext,
  Dictionary,
  FFmpegError,
  Frame,
  HardwareDeviceContext,
  HardwareFramesContext,
  Log,
  Packet,
  Rational
} from 'node-av/lib'
import {
  AV_CODEC_FLAG_GLOBAL_HEADER,
  AV_HWDEVICE_TYPE_VAAPI,
  AV_LOG_WARNING,
  AV_PICTURE_TYPE_I,
  AV_PICTURE_TYPE_NONE,
  AV_PIX_FMT_NV12,
  AV_PIX_FMT_VAAPI,
  AV_PIX_FMT_YUV420P,
  type AVPixelFormat,
  type FFEncoderCodec
} from 'node-av/constants'
import type { EncoderInfo, VideoEncoderId, X264Preset } from '../shared/contract'
import { i420Bytes } from '../shared/raw-media'

interface Candidate {
  id: VideoEncoderId
  codec: string
  label: string
  hardware: boolean
  /** Options as OBS sets them for this encoder: CBR at the given rate, profile High. */
  options(o: { preset: X264Preset; bframes: number }): Record<string, string>
}

/** Every encoder Onair asks for, software first (OBS's default). */
export const CANDIDATES: readonly Candidate[] = [
  {
    id: 'x264',
    codec: 'libx264',
    label: 'x264 (software)',
    hardware: false,
    // forced-idr: a keyframe asked for is an IDR frame (a clean start for a new viewer or ffmpeg).
    options: (o) => ({ preset: o.preset, profile: 'high', 'forced-idr': '1' })
  },
  {
    id: 'nvenc',
    codec: 'h264_nvenc',
    label: 'NVIDIA NVENC H.264',
    hardware: true,
    options: () => ({ preset: 'p5', tune: 'll', rc: 'cbr', profile: 'high', 'forced-idr': '1' })
  },
  {
    id: 'qsv',
    codec: 'h264_qsv',
    label: 'Intel Quick Sync H.264',
    hardware: true,
    options: () => ({ preset: 'veryfast', profile: 'high', forced_idr: '1' })
  },
  {
    id: 'amf',
    codec: 'h264_amf',
    label: 'AMD AMF H.264',
    hardware: true,
    options: () => ({ usage: 'lowlatency', rc: 'cbr', profile: 'high' })
  },
  {
    id: 'videotoolbox',
    codec: 'h264_videotoolbox',
    label: 'Apple VideoToolbox H.264',
    hardware: true,
    options: () => ({ profile: 'high', realtime: '1' })
  },
  {
    id: 'vaapi',
    codec: 'h264_vaapi',
    label: 'VA-API H.264',
    hardware: true,
    options: () => ({ profile: 'high', rc_mode: 'CBR' })
  },
  {
    id: 'mediafoundation',
    codec: 'h264_mf',
    label: 'Media Foundation H.264 (Windows)',
    hardware: true,
    options: () => ({ rate_control: 'cbr', scenario: 'live_streaming', hw_encoding: '1' })
  }
]

export const candidateOf = (id: VideoEncoderId): Candidate =>
  CANDIDATES.find((c) => c.id === id) ?? (CANDIDATES[0] as Candidate)

// FFmpeg's own words for a failure (it logs the cause, the return code is generic). The callback is
// delivered asynchronously: a failure's lines are read once they have come (settleLog).
const logLines: string[] = []
let logHooked = false
function hookLog(): void {
  if (logHooked) return
  logHooked = true
  Log.setCallback(
    (_level, message) => {
      const line = message.trim()
      if (!line) return
      logLines.push(line)
      if (logLines.length > 50) logLines.shift()
      process.stderr.write(`ffmpeg: ${line}\n`)
    },
    { maxLevel: AV_LOG_WARNING }
  )
}
const settleLog = (): Promise<void> => new Promise((r) => setTimeout(r, 30))

/** VA-API needs a render node on Linux; FFmpeg's default is the first one. */
const VAAPI_DEVICE = process.env.ONAIR_VAAPI_DEVICE ?? '/dev/dri/renderD128'

export interface VideoSettings {
  width: number
  height: number
  fps: number
  kbps: number
  keyframeSec: number
  preset: X264Preset
  bframes: number
}

export interface VideoPacket {
  data: Buffer
  /** Presentation and decode times in ms. */
  ptsMs: number
  dtsMs: number
  key: boolean
}

/** One open encoder, taking I420 frames on a frame-rate grid (pts = frame number). */
export class VideoEncoder {
  private readonly frame = new Frame()
  private readonly packet = new Packet()
  private hwFrame: Frame | null = null
  private nv12: Buffer | null = null
  private wantKey = false
  private pendingKbps: number | null = null

  private constructor(
    readonly candidate: Candidate,
    private readonly ctx: CodecContext,
    private readonly s: VideoSettings,
    private readonly pixFmt: AVPixelFormat,
    private readonly hw: { device: HardwareDeviceContext; frames: HardwareFramesContext } | null
  ) {
    this.frame.alloc()
    this.frame.format = pixFmt
    this.frame.width = s.width
    this.frame.height = s.height
    FFmpegError.throwIfError(this.frame.getBuffer(0), 'frame buffer')
    this.packet.alloc()
    if (hw) {
      this.hwFrame = new Frame()
      this.hwFrame.alloc()
    }
  }

  /** Opens the candidate, or throws an Error whose message is FFmpeg's reason. */
  static async open(candidate: Candidate, s: VideoSettings): Promise<VideoEncoder> {
    hookLog()
    const codec = Codec.findEncoderByName(candidate.codec as FFEncoderCodec)
    if (!codec) throw new Error(`${candidate.codec} is not in this build of FFmpeg`)
    const formats = codec.pixelFormats ?? []
    let hw: { device: HardwareDeviceContext; frames: HardwareFramesContext } | null = null
    const ctx = new CodecContext()
    ctx.allocContext3(codec)
    let pixFmt: AVPixelFormat = formats.includes(AV_PIX_FMT_YUV420P)
      ? AV_PIX_FMT_YUV420P
      : AV_PIX_FMT_NV12
    const seen = logLines.length
    const fail = async (what: string, code?: number): Promise<never> => {
      await settleLog()
      const said = logLines.slice(seen).filter((l) => !/^Supported pixel formats|^\w+$/.test(l))
      const why = [...new Set(said)].join('; ')
      ctx.freeContext()
      hw?.frames.free()
      hw?.device.free()
      const codeText = code !== undefined ? FFmpegError.strerror(code) : ''
      throw new Error(
        [why || what, codeText].filter(Boolean).join(' (') + (why && codeText ? ')' : '')
      )
    }
    if (candidate.id === 'vaapi') {
      if (process.platform === 'linux' && !existsSync(VAAPI_DEVICE))
        return fail(`no VA-API device at ${VAAPI_DEVICE}`)
      const device = new HardwareDeviceContext()
      const r = device.create(AV_HWDEVICE_TYPE_VAAPI, VAAPI_DEVICE, null)
      if (r < 0) return fail('the VA-API device could not be opened', r)
      const frames = new HardwareFramesContext()
      frames.alloc(device)
      frames.format = AV_PIX_FMT_VAAPI
      frames.swFormat = AV_PIX_FMT_NV12
      frames.width = s.width
      frames.height = s.height
      frames.initialPoolSize = 8
      hw = { device, frames }
      const fr = frames.init()
      if (fr < 0) return fail('VA-API frames could not be made', fr)
      ctx.hwFramesCtx = frames
      pixFmt = AV_PIX_FMT_NV12
      ctx.pixelFormat = AV_PIX_FMT_VAAPI
    } else ctx.pixelFormat = pixFmt
    ctx.width = s.width
    ctx.height = s.height
    ctx.timeBase = new Rational(1, s.fps)
    ctx.framerate = new Rational(s.fps, 1)
    ctx.gopSize = Math.max(1, Math.round(s.fps * s.keyframeSec))
    ctx.maxBFrames = s.bframes
    setRate(ctx, s.kbps)
    ctx.setFlags(AV_CODEC_FLAG_GLOBAL_HEADER)
    const opts = Dictionary.fromObject(candidate.options({ preset: s.preset, bframes: s.bframes }))
    const r = await ctx.open2(codec, opts)
    opts.free()
    if (r < 0) return fail(`${candidate.codec} did not open`, r)
    return new VideoEncoder(candidate, ctx, s, pixFmt, hw)
  }

  /** The encoder's SPS/PPS (Annex B or avcC). */
  get extradata(): Buffer {
    const x = this.ctx.extraData
    if (!x?.length) throw new Error(`${this.candidate.codec} gave no H.264 headers`)
    return x
  }

  /** Takes effect at the next frame: libx264 reconfigures its rate control (x264_encoder_reconfig). */
  setBitrate(kbps: number): void {
    this.pendingKbps = kbps
  }

  requestKeyframe(): void {
    this.wantKey = true
  }

  /** Encodes one I420 picture at frame number pts; the packets that came out. */
  async encode(i420: Uint8Array, pts: number): Promise<VideoPacket[]> {
    if (this.pendingKbps !== null) {
      setRate(this.ctx, this.pendingKbps)
      this.pendingKbps = null
    }
    const f = this.frame
    FFmpegError.throwIfError(f.makeWritable(), 'frame')
    const src = Buffer.from(i420.buffer, i420.byteOffset, i420.byteLength)
    FFmpegError.throwIfError(
      f.fromBuffer(this.pixFmt === AV_PIX_FMT_NV12 ? this.toNv12(src) : src),
      'frame data'
    )
    f.pts = BigInt(pts)
    f.pictType = this.wantKey ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
    this.wantKey = false
    let send: Frame = f
    if (this.hw && this.hwFrame) {
      const h = this.hwFrame
      h.unref()
      FFmpegError.throwIfError(this.hw.frames.getBuffer(h, 0), 'hardware frame')
      FFmpegError.throwIfError(await this.hw.frames.transferData(h, f, 0), 'upload')
      h.pts = f.pts
      h.pictType = f.pictType
      send = h
    }
    FFmpegError.throwIfError(await this.ctx.sendFrame(send), 'encode')
    return this.drain()
  }

  /** Everything still inside the encoder (its lookahead and B-frames), at the end. */
  async flush(): Promise<VideoPacket[]> {
    await this.ctx.sendFrame(null)
    return this.drain()
  }

  private drain(): VideoPacket[] {
    const out: VideoPacket[] = []
    const ms = 1000 / this.s.fps
    for (;;) {
      if (this.ctx.receivePacketSync(this.packet) < 0) break
      const data = this.packet.data
      if (data)
        out.push({
          data: Buffer.from(data),
          ptsMs: Number(this.packet.pts) * ms,
          dtsMs: Number(this.packet.dts) * ms,
          key: this.packet.isKeyframe
        })
      this.packet.unref()
    }
    return out
  }

  private toNv12(i420: Buffer): Buffer {
    const { width: w, height: h } = this.s
    const ySize = w * h
    const cw = Math.ceil(w / 2)
    const ch = Math.ceil(h / 2)
    const nv12 = (this.nv12 ??= Buffer.alloc(i420Bytes(w, h)))
    i420.copy(nv12, 0, 0, ySize)
    const u = ySize
    const v = ySize + cw * ch
    for (let i = 0, o = ySize; i < cw * ch; i++, o += 2) {
      nv12[o] = i420[u + i] ?? 0
      nv12[o + 1] = i420[v + i] ?? 0
    }
    return nv12
  }

  close(): void {
    this.ctx.freeContext()
    this.frame.free()
    this.hwFrame?.free()
    this.packet.free()
    this.hw?.frames.free()
    this.hw?.device.free()
  }
}

/** CBR as OBS sets it: the rate, the same maximum, and a one-second VBV buffer. */
function setRate(ctx: CodecContext, kbps: number): void {
  const bps = Math.round(kbps * 1000)
  ctx.bitRate = BigInt(bps)
  ctx.rcMaxRate = BigInt(bps)
  ctx.rcBufferSize = bps
}

/** Opens each candidate on a small picture: what runs here, and FFmpeg's reason for what does not. */
export async function probeEncoders(): Promise<EncoderInfo[]> {
  const out: EncoderInfo[] = []
  for (const c of CANDIDATES) {
    const info = { id: c.id, label: c.label, hardware: c.hardware }
    try {
      const e = await VideoEncoder.open(c, {
        width: 320,
        height: 240,
        fps: 30,
        kbps: 500,
        keyframeSec: 2,
        preset: 'veryfast',
        bframes: 0
      })
      try {
        const pic = new Uint8Array(i420Bytes(320, 240)).fill(128)
        await e.encode(pic, 0)
        await e.flush()
      } finally {
        e.close()
      }
      out.push({ ...info, available: true })
    } catch (err) {
      out.push({ ...info, available: false, reason: (err as Error).message })
    }
  }
  return out
}

// The typed message channel between main and Onair's encoder process (#33): child_process IPC, the
// same on Windows, macOS and Linux and under Electron's ELECTRON_RUN_AS_NODE. The raw frames and sound
// go on the child's stdin (raw-media.ts), its Matroska comes back on stdout; this channel carries the
// rest. Main says what to encode (config), changes the bitrate while running, asks for a keyframe and
// says end; the encoder answers ready (which encoder runs) or failed (why), then stats about every
// 500 ms. Both sides check what arrives instead of trusting a cast.
import {
  VIDEO_ENCODER_IDS,
  X264_PRESETS,
  type HardwareFallback,
  type VideoEncoderId,
  type X264Preset
} from './contract'

export interface EncoderAudioConfig {
  sampleRate: number
  channels: number
  kbps: number
}

export interface EncoderConfig {
  width: number
  height: number
  fps: number
  videoKbps: number
  /** A keyframe at least this often (OBS's keyframe interval). */
  keyframeSec: number
  encoder: VideoEncoderId
  /** x264's preset (hardware encoders keep their own defaults). */
  preset: X264Preset
  /** B-frames: 2 for RTMP (OBS's default), 0 for WebRTC / low latency. */
  bframes: number
  /** Absent: a picture without sound. */
  audio?: EncoderAudioConfig
}

export type HostToEncoder =
  | ({ type: 'config' } & EncoderConfig)
  | { type: 'bitrate'; kbps: number }
  | { type: 'keyframe' }
  | { type: 'end' }

export interface EncoderStats {
  /** Frames that reached the encoder process. */
  framesIn: number
  /** Frames handed to the encoder. */
  encoded: number
  /** Frames skipped before the encoder because it could not keep up ("encoder overloaded"). */
  skipped: number
  /** Mean time to encode one frame over the last period (ms). */
  encodeMs: number
  /** The video bitrate that came out over the last period (kbit/s). */
  videoKbps: number
}

export type EncoderToHost =
  | { type: 'ready'; encoder: VideoEncoderId; label: string; fallback?: HardwareFallback }
  | { type: 'failed'; reason: string }
  | ({ type: 'stats' } & EncoderStats)

/** Each side's limits on what the other may ask (the raw-media format has its own). */
export const ENCODER_LIMITS = {
  maxFps: 120,
  minKbps: 50,
  maxKbps: 100_000,
  maxKeyframeSec: 20,
  maxBframes: 4
} as const

type Rec = Record<string, unknown>
const isObj = (m: unknown): m is Rec => typeof m === 'object' && m !== null
const num = (v: unknown, lo: number, hi: number): v is number =>
  typeof v === 'number' && Number.isFinite(v) && v >= lo && v <= hi
const text = (v: unknown): v is string => typeof v === 'string' && v.length > 0
const isEncoderId = (v: unknown): v is VideoEncoderId =>
  (VIDEO_ENCODER_IDS as readonly unknown[]).includes(v)
const isPreset = (v: unknown): v is X264Preset => (X264_PRESETS as readonly unknown[]).includes(v)

/** What is wrong with a config, or undefined when it can be encoded. */
export function configProblem(c: unknown): string | undefined {
  if (!isObj(c)) return 'no encoder settings'
  const L = ENCODER_LIMITS
  if (!num(c.width, 2, 4096) || !num(c.height, 2, 2304) || c.width % 2 || c.height % 2)
    return `the picture size ${String(c.width)}x${String(c.height)} is not an even size up to 4096x2304`
  if (!num(c.fps, 1, L.maxFps)) return `a frame rate of ${String(c.fps)}`
  if (!num(c.videoKbps, L.minKbps, L.maxKbps))
    return `a video bitrate of ${String(c.videoKbps)} kbps`
  if (!num(c.keyframeSec, 0.1, L.maxKeyframeSec))
    return `a keyframe interval of ${String(c.keyframeSec)} s`
  if (!isEncoderId(c.encoder)) return `an unknown encoder ${String(c.encoder)}`
  if (!isPreset(c.preset)) return `an unknown x264 preset ${String(c.preset)}`
  if (!num(c.bframes, 0, L.maxBframes) || !Number.isInteger(c.bframes))
    return `${String(c.bframes)} B-frames`
  if (c.audio !== undefined) {
    const a = c.audio
    if (!isObj(a)) return 'sound settings that are not an object'
    if (!num(a.sampleRate, 8000, 96_000)) return `a sample rate of ${String(a.sampleRate)} Hz`
    if (!num(a.channels, 1, 2) || !Number.isInteger(a.channels))
      return `${String(a.channels)} sound channels (1 or 2)`
    if (!num(a.kbps, 16, 512)) return `a sound bitrate of ${String(a.kbps)} kbps`
  }
  return undefined
}

const pickConfig = (c: Rec): EncoderConfig => {
  const a = c.audio as Rec | undefined
  return {
    width: c.width as number,
    height: c.height as number,
    fps: c.fps as number,
    videoKbps: c.videoKbps as number,
    keyframeSec: c.keyframeSec as number,
    encoder: c.encoder as VideoEncoderId,
    preset: c.preset as X264Preset,
    bframes: c.bframes as number,
    ...(a
      ? {
          audio: {
            sampleRate: a.sampleRate as number,
            channels: a.channels as number,
            kbps: a.kbps as number
          }
        }
      : {})
  }
}

/** The encoder process's reading of main's messages; undefined for anything else. */
export function parseHostMessage(m: unknown): HostToEncoder | undefined {
  if (!isObj(m)) return undefined
  switch (m.type) {
    case 'config':
      return configProblem(m) === undefined ? { type: 'config', ...pickConfig(m) } : undefined
    case 'bitrate':
      return num(m.kbps, ENCODER_LIMITS.minKbps, ENCODER_LIMITS.maxKbps)
        ? { type: 'bitrate', kbps: m.kbps }
        : undefined
    case 'keyframe':
    case 'end':
      return { type: m.type }
    default:
      return undefined
  }
}

const isFallback = (f: unknown): f is HardwareFallback =>
  isObj(f) && isEncoderId(f.tried) && text(f.label) && text(f.detail)

/** Main's reading of the encoder's messages; undefined for anything else. */
export function parseEncoderMessage(m: unknown): EncoderToHost | undefined {
  if (!isObj(m)) return undefined
  if (m.type === 'ready' && isEncoderId(m.encoder) && text(m.label))
    return {
      type: 'ready',
      encoder: m.encoder,
      label: m.label,
      ...(isFallback(m.fallback)
        ? {
            fallback: { tried: m.fallback.tried, label: m.fallback.label, detail: m.fallback.detail }
          }
        : {})
    }
  if (m.type === 'failed' && text(m.reason)) return { type: 'failed', reason: m.reason }
  if (m.type === 'stats') {
    const n = (v: unknown): v is number => num(v, 0, Number.MAX_SAFE_INTEGER)
    if (n(m.framesIn) && n(m.encoded) && n(m.skipped) && n(m.encodeMs) && n(m.videoKbps))
      return {
        type: 'stats',
        framesIn: m.framesIn,
        encoded: m.encoded,
        skipped: m.skipped,
        encodeMs: m.encodeMs,
        videoKbps: m.videoKbps
      }
  }
  return undefined
}

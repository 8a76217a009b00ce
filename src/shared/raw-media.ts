// The raw media the page hands to Onair's encoder (#33): the compositor's frames (I420 at the Output's
// size) and the mix's sound (32-bit float, planar), each with its capture time. The page packs them
// with packRaw, main checks them with readRaw (one call may carry several, one after another) and
// hands the same bytes to the encoder process, which reads them with readRaw again. One format, one
// place: the renderer, main and the encoder process all use this file.
//
// Each message is a 24-byte header and its payload, little-endian:
//   0  u32  payload bytes
//   4  u8   kind: 1 video (I420), 2 audio (f32 planar)
//   5  u8   0
//   6  u16  audio: channels; video: 0
//   8  u32  video: width;  audio: sample rate
//  12  u32  video: height; audio: frames (samples per channel)
//  16  f64  capture time, microseconds (the page's clock: VideoFrame/AudioData timestamps)

export const RAW_HEADER_BYTES = 24
/** Electron: the channel main sends the preload its frames port on (electron/frame-port.ts). */
export const FRAMES_PORT_CHANNEL = 'onair:frames-port'
/** Largest picture the encoder takes (1080p and a little more, 4096 wide for odd shapes). */
export const RAW_MAX_WIDTH = 4096
export const RAW_MAX_HEIGHT = 2304
export const RAW_MAX_CHANNELS = 8
/** At most a second of sound in one message. */
export const RAW_MAX_AUDIO_FRAMES = 192_000

export interface RawVideo {
  kind: 'video'
  width: number
  height: number
  timestampUs: number
}

export interface RawAudio {
  kind: 'audio'
  sampleRate: number
  channels: number
  /** Samples per channel. */
  frames: number
  timestampUs: number
}

export type RawHeader = RawVideo | RawAudio

/** Bytes of an I420 picture: the full-size Y plane and two half-size (rounded up) chroma planes. */
export function i420Bytes(width: number, height: number): number {
  return width * height + 2 * Math.ceil(width / 2) * Math.ceil(height / 2)
}

export function payloadBytes(h: RawHeader): number {
  return h.kind === 'video' ? i420Bytes(h.width, h.height) : h.frames * h.channels * 4
}

/** Writes h's header at offset; the payload (payloadBytes(h) bytes) is the caller's to write after it. */
export function writeRawHeader(target: Uint8Array, offset: number, h: RawHeader): void {
  const v = new DataView(target.buffer, target.byteOffset + offset, RAW_HEADER_BYTES)
  v.setUint32(0, payloadBytes(h), true)
  v.setUint8(4, h.kind === 'video' ? 1 : 2)
  v.setUint8(5, 0)
  v.setUint16(6, h.kind === 'audio' ? h.channels : 0, true)
  v.setUint32(8, h.kind === 'video' ? h.width : h.sampleRate, true)
  v.setUint32(12, h.kind === 'video' ? h.height : h.frames, true)
  v.setFloat64(16, h.timestampUs, true)
}

/** One message: the header, then the payload (which must be payloadBytes(h) long). */
export function packRaw(h: RawHeader, payload: Uint8Array): Uint8Array {
  const n = payloadBytes(h)
  if (payload.byteLength !== n)
    throw new Error(`raw ${h.kind}: payload is ${payload.byteLength} bytes, not ${n}`)
  const out = new Uint8Array(RAW_HEADER_BYTES + n)
  writeRawHeader(out, 0, h)
  out.set(payload, RAW_HEADER_BYTES)
  return out
}

export interface RawMessage {
  header: RawHeader
  /** A view into the buffer read, not a copy. */
  payload: Uint8Array
}

export type RawRead =
  | { ok: true; message: RawMessage; next: number }
  | { ok: false; error: string }
  /** The buffer ends inside this message: read again once more bytes have come. */
  | { ok: 'partial'; need: number }

/**
 * The header at buf[offset..offset+24) (which must be there), checked: a header that breaks the format
 * (unknown kind, a size out of bounds, a payload length that does not match its picture or sound, a
 * time that is not a finite number) is an error.
 */
export function readRawHeader(
  buf: Uint8Array,
  offset = 0
): { ok: true; header: RawHeader; bytes: number } | { ok: false; error: string } {
  const v = new DataView(buf.buffer, buf.byteOffset + offset, RAW_HEADER_BYTES)
  const bytes = v.getUint32(0, true)
  const kind = v.getUint8(4)
  const a = v.getUint32(8, true)
  const b = v.getUint32(12, true)
  const timestampUs = v.getFloat64(16, true)
  if (!Number.isFinite(timestampUs))
    return { ok: false, error: 'raw media: the capture time is not a number' }
  let header: RawHeader
  if (kind === 1) {
    if (a < 2 || b < 2 || a > RAW_MAX_WIDTH || b > RAW_MAX_HEIGHT || a % 2 || b % 2)
      return {
        ok: false,
        error: `raw video: ${a}x${b} is not an even size up to ${RAW_MAX_WIDTH}x${RAW_MAX_HEIGHT}`
      }
    header = { kind: 'video', width: a, height: b, timestampUs }
  } else if (kind === 2) {
    const channels = v.getUint16(6, true)
    if (channels < 1 || channels > RAW_MAX_CHANNELS)
      return { ok: false, error: `raw audio: ${channels} channels (1 to ${RAW_MAX_CHANNELS})` }
    if (a < 8000 || a > 192_000) return { ok: false, error: `raw audio: a sample rate of ${a} Hz` }
    if (b < 1 || b > RAW_MAX_AUDIO_FRAMES)
      return { ok: false, error: `raw audio: ${b} frames in one message` }
    header = { kind: 'audio', sampleRate: a, channels, frames: b, timestampUs }
  } else {
    return { ok: false, error: `raw media: unknown kind ${kind}` }
  }
  if (bytes !== payloadBytes(header))
    return {
      ok: false,
      error: `raw ${header.kind}: ${bytes} payload bytes where ${payloadBytes(header)} belong`
    }
  return { ok: true, header, bytes }
}

/**
 * Reads the message at offset. A header that breaks the format (readRawHeader) is an error: the reader
 * must stop, since the next message's start cannot be known.
 */
export function readRaw(buf: Uint8Array, offset = 0): RawRead {
  const left = buf.byteLength - offset
  if (left < RAW_HEADER_BYTES) return { ok: 'partial', need: RAW_HEADER_BYTES - left }
  const h = readRawHeader(buf, offset)
  if (!h.ok) return h
  const end = offset + RAW_HEADER_BYTES + h.bytes
  if (end > buf.byteLength) return { ok: 'partial', need: end - buf.byteLength }
  return {
    ok: true,
    message: { header: h.header, payload: buf.subarray(offset + RAW_HEADER_BYTES, end) },
    next: end
  }
}

/** Every message of a buffer that must hold whole messages only (one pushFrames call). */
export function readAllRaw(
  buf: Uint8Array
): { ok: true; messages: RawMessage[] } | { ok: false; error: string } {
  const messages: RawMessage[] = []
  let at = 0
  while (at < buf.byteLength) {
    const r = readRaw(buf, at)
    if (r.ok === 'partial') return { ok: false, error: 'raw media: the last message is cut short' }
    if (!r.ok) return r
    messages.push(r.message)
    at = r.next
  }
  return { ok: true, messages }
}

// Streamed Matroska from encoded packets: what the page's own encoder hands main, in the shape main
// already reads from MediaRecorder (unknown-size clusters, written once, never seeked). Kept apart from
// the encoder so a Node test can feed it real packets and check main's MediaBuffer.
//
// Each packet is written the moment it is handed over, in the order it comes (each track's own
// timestamps rise; the two tracks are not interleaved by time, as MediaRecorder's are not), except
// sound more than AUDIO_LEAD_MS ahead of the latest picture, which waits for the pictures to catch
// up. A muxer that interleaves by time (mediabunny's, used here before) holds the sound until the
// next picture: main's ffmpeg writes a picture into FLV only once AAC at or past it is out, and its
// AAC encoder needs the sound past it, so every picture waited for the next one or two (#34, studio
// mode's transition at the ingest). The sound's encoder is quicker than the picture's, so written at
// once it is there before the picture that needs it.
import { EncodedPacket } from 'mediabunny'

/**
 * A cluster starts at a video keyframe only this long after the last one began: a restart's keyframes
 * close together would otherwise make clusters of a frame or two.
 */
const MIN_CLUSTER_MS = 100
/**
 * Sound goes out at most this far (ms) ahead of the latest picture. ffmpeg's AAC at or past a picture
 * needs ~65 ms of sound past it (a 1024-sample frame, as much again of encoder delay, and Opus's 20 ms
 * packets); the uplink's queue (media-feed.ts) hands ffmpeg at most LEAD_MS (300) of media ahead of
 * what it has sent, in stream order, so sound further ahead would hold back the pictures behind it.
 */
export const AUDIO_LEAD_MS = 200
/** A block's time is a signed 16-bit offset (ms) from its cluster's. */
const MAX_OFFSET_MS = 32_767
const MIN_OFFSET_MS = -32_768
const VIDEO_TRACK = 1
const AUDIO_TRACK = 2
/** Opus in Matroska: the decoder needs 80 ms of sound before a seek point (Matroska's Opus mapping). */
const OPUS_SEEK_PRE_ROLL_NS = 80_000_000

export interface LiveMux {
  /** Adds one video packet (decode order); `meta` must carry the decoder config on the first. */
  video(packet: EncodedPacket, meta?: EncodedVideoChunkMetadata): Promise<void>
  /** Adds one audio packet; `meta` with the decoder config may come with a packet that is dropped. */
  audio(packet: EncodedPacket, meta?: EncodedAudioChunkMetadata): Promise<void>
  /** Writes what is still queued and resolves once every byte went to `sink`. */
  finish(): Promise<void>
  cancel(): Promise<void>
}

/**
 * Starts a muxer whose bytes go to `sink` in order as they are written. A cluster starts at every
 * video keyframe at least MIN_CLUSTER_MS after the last one, with the keyframe as its first video
 * block: main's MediaBuffer restarts ffmpeg and drops media only at clusters that open on a keyframe.
 * So a cluster is one keyframe interval long (2 s by default), like MediaRecorder's.
 *
 * The header (the tracks, with the codecs' configs) goes out with the first picture, once the sound's
 * config is known too where there is sound; what comes before waits for it. The stream starts on the
 * first picture: sound from before it is dropped (a cluster with no video, where no decoder, nor main's
 * MediaBuffer, can start).
 */
export async function startLiveMux(
  tracks: { audio: boolean },
  sink: (bytes: Uint8Array) => void
): Promise<LiveMux> {
  let videoConfig: VideoDecoderConfig | undefined
  let audioConfig: AudioDecoderConfig | undefined
  let headerDone = false
  let closed = false
  /** Packets handed over before the header could be written, in order. */
  let early: { track: number; p: EncodedPacket }[] = []
  let firstVideoMs: number | undefined
  let lastVideoMs: number | undefined
  /** Sound more than AUDIO_LEAD_MS ahead of the latest picture, in order. */
  let aheadAudio: EncodedPacket[] = []
  let cluster: { ms: number } | undefined
  const lastMs = new Map<number, number>()

  const ready = (): boolean => !!videoConfig && (!tracks.audio || !!audioConfig)

  const writeHeader = (): void => {
    const v = videoConfig!
    const entries = [
      trackEntry(VIDEO_TRACK, 1, 'V_MPEG4/ISO/AVC', v.description, [
        el(0xe0, [uintEl(0xb0, v.codedWidth ?? 0), uintEl(0xba, v.codedHeight ?? 0)])
      ])
    ]
    if (tracks.audio) {
      const a = audioConfig!
      entries.push(
        trackEntry(
          AUDIO_TRACK,
          2,
          'A_OPUS',
          a.description,
          [el(0xe1, [floatEl(0xb5, a.sampleRate), uintEl(0x9f, a.numberOfChannels)])],
          [uintEl(0x56bb, OPUS_SEEK_PRE_ROLL_NS)]
        )
      )
    }
    sink(
      concat([
        // EBML header: Matroska, as mediabunny and MediaRecorder write it.
        el(0x1a45dfa3, [
          uintEl(0x4286, 1),
          uintEl(0x42f7, 1),
          uintEl(0x42f2, 4),
          uintEl(0x42f3, 8),
          strEl(0x4282, 'matroska'),
          uintEl(0x4287, 4),
          uintEl(0x4285, 2)
        ]),
        // Segment of unknown size: the stream has no end it knows of.
        id(0x18538067),
        UNKNOWN_SIZE,
        el(0x1549a966, [uintEl(0x2ad7b1, 1_000_000), strEl(0x4d80, 'Onair'), strEl(0x5741, 'Onair')]),
        el(0x1654ae6b, entries)
      ])
    )
    headerDone = true
  }

  const msOf = (p: EncodedPacket): number => Math.round(p.timestamp * 1000)
  const tooFarAhead = (p: EncodedPacket): boolean =>
    lastVideoMs !== undefined && msOf(p) > lastVideoMs + AUDIO_LEAD_MS

  /** A picture goes out at once, then the held sound it has caught up with. */
  const write = (track: number, p: EncodedPacket): void => {
    if (track === AUDIO_TRACK) {
      if (aheadAudio.length > 0 || tooFarAhead(p)) aheadAudio.push(p)
      else writeBlock(AUDIO_TRACK, p)
      return
    }
    writeBlock(VIDEO_TRACK, p)
    lastVideoMs = Math.max(lastVideoMs ?? msOf(p), msOf(p))
    while (aheadAudio.length > 0 && !tooFarAhead(aheadAudio[0]!))
      writeBlock(AUDIO_TRACK, aheadAudio.shift()!)
  }

  const writeBlock = (track: number, p: EncodedPacket): void => {
    const ms = msOf(p)
    if (track === VIDEO_TRACK) firstVideoMs ??= ms
    // Sound from before the first picture: nothing can start there.
    if (track === AUDIO_TRACK && (firstVideoMs === undefined || ms < firstVideoMs)) return
    // Each track's own time never goes back (a decoder would take it for a seek).
    const last = lastMs.get(track)
    if (last !== undefined && ms < last) return
    lastMs.set(track, ms)
    const key = p.type === 'key'
    const offset = cluster ? ms - cluster.ms : 0
    const newCluster =
      !cluster ||
      (track === VIDEO_TRACK && key && offset >= MIN_CLUSTER_MS) ||
      offset > MAX_OFFSET_MS ||
      offset < MIN_OFFSET_MS
    const parts: Uint8Array[] = []
    if (newCluster) {
      cluster = { ms }
      parts.push(id(0x1f43b675), UNKNOWN_SIZE, uintEl(0xe7, ms))
    }
    const head = new Uint8Array(4)
    head[0] = 0x80 | track
    new DataView(head.buffer).setInt16(1, ms - cluster!.ms)
    // SimpleBlock flags: keyframe (every Opus packet is one).
    head[3] = key || track === AUDIO_TRACK ? 0x80 : 0
    parts.push(id(0xa3), size(head.length + p.data.length), head, p.data)
    sink(concat(parts))
  }

  const add = (track: number, p: EncodedPacket): Promise<void> => {
    if (closed) return Promise.resolve()
    if (!headerDone) {
      if (!ready()) {
        // Sound before the first picture is dropped anyway; keep what can still be written.
        if (track === VIDEO_TRACK || early.some((e) => e.track === VIDEO_TRACK))
          early.push({ track, p })
        return Promise.resolve()
      }
      writeHeader()
      const waiting = early
      early = []
      for (const e of waiting) write(e.track, e.p)
    }
    write(track, p)
    return Promise.resolve()
  }

  return {
    video: (p, meta) => {
      if (meta?.decoderConfig) videoConfig ??= meta.decoderConfig
      return add(VIDEO_TRACK, p)
    },
    audio: (p, meta) => {
      if (!tracks.audio) return Promise.resolve()
      if (meta?.decoderConfig) audioConfig ??= meta.decoderConfig
      return add(AUDIO_TRACK, p)
    },
    // The sound still ahead of the last picture goes out; unknown sizes need nothing at the end.
    finish: () => {
      if (!closed) for (const p of aheadAudio) writeBlock(AUDIO_TRACK, p)
      aheadAudio = []
      closed = true
      return Promise.resolve()
    },
    cancel: () => {
      closed = true
      early = []
      aheadAudio = []
      return Promise.resolve()
    }
  }
}

/** A WebCodecs chunk as a packet at `timestampUs` (the stream's own clock, from 0). */
export function packetAt(
  chunk: EncodedVideoChunk | EncodedAudioChunk,
  timestampUs: number
): EncodedPacket {
  return EncodedPacket.fromEncodedChunk(chunk).clone({ timestamp: timestampUs / 1e6 })
}

// ---- EBML, the little of it a stream needs -------------------------------------------------------

/** An element's size as "unknown" (all ones, 8 bytes): live clusters and the segment. */
const UNKNOWN_SIZE = new Uint8Array([0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])

function trackEntry(
  num: number,
  uid: number,
  codec: string,
  codecPrivate: AllowSharedBufferSource | undefined,
  specific: Uint8Array[],
  extra: Uint8Array[] = []
): Uint8Array {
  return el(0xae, [
    uintEl(0xd7, num),
    uintEl(0x73c5, uid),
    uintEl(0x83, num === VIDEO_TRACK ? 1 : 2),
    uintEl(0x9c, 0),
    strEl(0x86, codec),
    ...(codecPrivate ? [el(0x63a2, [bytesOf(codecPrivate)])] : []),
    ...extra,
    ...specific
  ])
}

function bytesOf(b: AllowSharedBufferSource): Uint8Array {
  if (ArrayBuffer.isView(b)) return new Uint8Array(b.buffer, b.byteOffset, b.byteLength).slice()
  return new Uint8Array(b).slice()
}

/** An element id's bytes (ids carry their own length marker). */
function id(n: number): Uint8Array {
  const out: number[] = []
  for (let v = n; v > 0; v = Math.floor(v / 256)) out.unshift(v & 0xff)
  return new Uint8Array(out)
}

/** A size as an EBML variable-length integer, in the fewest bytes. */
function size(n: number): Uint8Array {
  let len = 1
  while (len < 8 && n >= 2 ** (7 * len) - 1) len++
  const out = new Uint8Array(len)
  let v = n
  for (let i = len - 1; i >= 0; i--) {
    out[i] = v & 0xff
    v = Math.floor(v / 256)
  }
  out[0]! |= 0x80 >> (len - 1)
  return out
}

function el(elementId: number, children: Uint8Array[]): Uint8Array {
  const body = concat(children)
  return concat([id(elementId), size(body.length), body])
}

function uintEl(elementId: number, n: number): Uint8Array {
  const out: number[] = []
  for (let v = n; v > 0; v = Math.floor(v / 256)) out.unshift(v & 0xff)
  if (out.length === 0) out.push(0)
  return el(elementId, [new Uint8Array(out)])
}

function floatEl(elementId: number, n: number): Uint8Array {
  const b = new Uint8Array(8)
  new DataView(b.buffer).setFloat64(0, n)
  return el(elementId, [b])
}

function strEl(elementId: number, s: string): Uint8Array {
  return el(elementId, [new TextEncoder().encode(s)])
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

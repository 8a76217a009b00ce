// The encoder's output: streamed Matroska (H.264 + AAC), written as the packets are made. The header
// (EBML, an unknown-size Segment, Info, Tracks) goes first; then clusters of unknown size, each video
// keyframe opening a new one, so main's MatroskaScanner / MediaFeed can start a new ffmpeg and drop
// media at any cluster. Every block is a SimpleBlock whose keyframe flag is set for video keyframes
// (and for every audio frame). ffmpeg's matroska muxer holds a whole cluster in memory until it closes;
// this writer never holds a block.

/** Matroska element ids (the ones this writer uses). */
const E = {
  EBML: 0x1a45dfa3,
  EBMLVersion: 0x4286,
  EBMLReadVersion: 0x42f7,
  EBMLMaxIDLength: 0x42f2,
  EBMLMaxSizeLength: 0x42f3,
  DocType: 0x4282,
  DocTypeVersion: 0x4287,
  DocTypeReadVersion: 0x4285,
  Segment: 0x18538067,
  Info: 0x1549a966,
  TimestampScale: 0x2ad7b1,
  MuxingApp: 0x4d80,
  WritingApp: 0x5741,
  Tracks: 0x1654ae6b,
  TrackEntry: 0xae,
  TrackNumber: 0xd7,
  TrackUID: 0x73c5,
  TrackType: 0x83,
  FlagLacing: 0x9c,
  CodecID: 0x86,
  CodecPrivate: 0x63a2,
  DefaultDuration: 0x23e383,
  Video: 0xe0,
  PixelWidth: 0xb0,
  PixelHeight: 0xba,
  Audio: 0xe1,
  SamplingFrequency: 0xb5,
  Channels: 0x9f,
  Cluster: 0x1f43b675,
  Timestamp: 0xe7,
  SimpleBlock: 0xa3
} as const

const idBytes = (id: number): Buffer => {
  const n = id > 0xffffff ? 4 : id > 0xffff ? 3 : id > 0xff ? 2 : 1
  const b = Buffer.alloc(n)
  b.writeUIntBE(id, 0, n)
  return b
}

/** An EBML size: the shortest vint that holds it (8 bytes at most). */
const sizeBytes = (size: number): Buffer => {
  for (let n = 1; n <= 8; n++) {
    if (size < 2 ** (7 * n) - 1) {
      const b = Buffer.alloc(n)
      let v = size
      for (let i = n - 1; i >= 0; i--) {
        b[i] = v % 256
        v = Math.floor(v / 256)
      }
      b[0] = (b[0] ?? 0) | (0x80 >> (n - 1))
      return b
    }
  }
  throw new Error(`an element of ${size} bytes`)
}

/** The 8-byte "unknown size": how a live writer opens the Segment and each Cluster. */
const UNKNOWN_SIZE = Buffer.from([0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])

const el = (id: number, body: Buffer): Buffer =>
  Buffer.concat([idBytes(id), sizeBytes(body.length), body])
const uint = (id: number, v: number): Buffer => {
  let n = 1
  while (n < 8 && v >= 2 ** (8 * n)) n++
  const b = Buffer.alloc(n)
  let x = v
  for (let i = n - 1; i >= 0; i--) {
    b[i] = x % 256
    x = Math.floor(x / 256)
  }
  return el(id, b)
}
const str = (id: number, s: string): Buffer => el(id, Buffer.from(s, 'utf8'))
const float = (id: number, v: number): Buffer => {
  const b = Buffer.alloc(8)
  b.writeDoubleBE(v)
  return el(id, b)
}

export interface VideoTrack {
  width: number
  height: number
  fps: number
  /** The AVCDecoderConfigurationRecord (avcC). */
  avcC: Buffer
}

export interface AudioTrack {
  sampleRate: number
  channels: number
  /** The AudioSpecificConfig. */
  asc: Buffer
}

export const VIDEO_TRACK = 1
export const AUDIO_TRACK = 2

/** The stream's header: EBML, an unknown-size Segment, Info (1 ms timestamps) and Tracks. */
export function matroskaHeader(video: VideoTrack, audio?: AudioTrack): Buffer {
  const ebml = el(
    E.EBML,
    Buffer.concat([
      uint(E.EBMLVersion, 1),
      uint(E.EBMLReadVersion, 1),
      uint(E.EBMLMaxIDLength, 4),
      uint(E.EBMLMaxSizeLength, 8),
      str(E.DocType, 'matroska'),
      uint(E.DocTypeVersion, 4),
      uint(E.DocTypeReadVersion, 2)
    ])
  )
  const info = el(
    E.Info,
    Buffer.concat([
      uint(E.TimestampScale, 1_000_000),
      str(E.MuxingApp, 'Onair'),
      str(E.WritingApp, 'Onair')
    ])
  )
  const videoEntry = el(
    E.TrackEntry,
    Buffer.concat([
      uint(E.TrackNumber, VIDEO_TRACK),
      uint(E.TrackUID, VIDEO_TRACK),
      uint(E.TrackType, 1),
      uint(E.FlagLacing, 0),
      str(E.CodecID, 'V_MPEG4/ISO/AVC'),
      el(E.CodecPrivate, video.avcC),
      uint(E.DefaultDuration, Math.round(1e9 / video.fps)),
      el(
        E.Video,
        Buffer.concat([uint(E.PixelWidth, video.width), uint(E.PixelHeight, video.height)])
      )
    ])
  )
  const audioEntry = audio
    ? el(
        E.TrackEntry,
        Buffer.concat([
          uint(E.TrackNumber, AUDIO_TRACK),
          uint(E.TrackUID, AUDIO_TRACK),
          uint(E.TrackType, 2),
          uint(E.FlagLacing, 0),
          str(E.CodecID, 'A_AAC'),
          el(E.CodecPrivate, audio.asc),
          el(
            E.Audio,
            Buffer.concat([
              float(E.SamplingFrequency, audio.sampleRate),
              uint(E.Channels, audio.channels)
            ])
          )
        ])
      )
    : Buffer.alloc(0)
  const tracks = el(E.Tracks, Buffer.concat([videoEntry, audioEntry]))
  return Buffer.concat([ebml, idBytes(E.Segment), UNKNOWN_SIZE, info, tracks])
}

/** A block's offset from its cluster is a signed 16-bit count of ms: past this a new cluster opens. */
const MAX_OFFSET_MS = 30_000

/**
 * Writes blocks in the order given (decode order per track), opening a cluster at each video keyframe,
 * at the first block, and where a block's time would not fit its cluster's 16-bit offset.
 */
export class MatroskaBlocks {
  private clusterMs: number | undefined

  constructor(private readonly out: (chunk: Buffer) => void) {}

  /** One frame. ms: its presentation time in ms. */
  block(track: number, ms: number, key: boolean, data: Buffer): void {
    const t = Math.round(ms)
    const opens =
      this.clusterMs === undefined ||
      (track === VIDEO_TRACK && key) ||
      Math.abs(t - this.clusterMs) > MAX_OFFSET_MS
    const parts: Buffer[] = []
    if (opens) {
      // Never before 0: a cluster's timestamp is unsigned.
      this.clusterMs = Math.max(0, t)
      parts.push(idBytes(E.Cluster), UNKNOWN_SIZE, uint(E.Timestamp, this.clusterMs))
    }
    const head = Buffer.alloc(4)
    head[0] = 0x80 | track
    head.writeInt16BE(Math.max(-32768, t - (this.clusterMs ?? 0)), 1)
    head[3] = key ? 0x80 : 0
    parts.push(idBytes(E.SimpleBlock), sizeBytes(head.length + data.length), head, data)
    this.out(Buffer.concat(parts))
  }
}

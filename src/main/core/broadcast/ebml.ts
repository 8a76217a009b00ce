// The few EBML primitives the Matroska scanner needs: element ids and sizes are variable-length
// integers whose first byte's leading zero bits give the length. No full demuxer on purpose.

export const ID = {
  EBML: 0x1a45dfa3,
  Segment: 0x18538067,
  Cluster: 0x1f43b675,
  Tracks: 0x1654ae6b,
  TrackEntry: 0xae,
  TrackNumber: 0xd7,
  TrackType: 0x83,
  SimpleBlock: 0xa3,
  BlockGroup: 0xa0,
  Block: 0xa1,
  ReferenceBlock: 0xfb,
  Info: 0x1549a966,
  TimestampScale: 0x2ad7b1,
  /** A Cluster's own timestamp, in TimestampScale units. */
  Timestamp: 0xe7
} as const

/** Segment children: an unknown-size Cluster ends where one of these (or a new EBML doc) begins. */
export const LEVEL1_IDS = new Set([
  ID.Cluster,
  0x114d9b74, // SeekHead
  ID.Info,
  ID.Tracks,
  0x1c53bb6b, // Cues
  0x1254c367, // Tags
  0x1043a770, // Chapters
  0x1941a469, // Attachments
  ID.EBML,
  ID.Segment
])

export interface VInt {
  value: number
  length: number
  /** All value bits set: the size is unknown (live streams write clusters this way). */
  unknown: boolean
}

/** Reads an element id (marker bit kept, 1-4 bytes). Undefined if more bytes are needed; throws if invalid. */
export function readId(buf: Buffer, at: number): VInt | undefined {
  const first = buf[at]
  if (first === undefined) return undefined
  const length = lengthOf(first, 4)
  if (at + length > buf.length) return undefined
  let value = 0
  for (let i = 0; i < length; i++) value = value * 256 + (buf[at + i] ?? 0)
  return { value, length, unknown: false }
}

/** Reads an element size (marker bit removed, 1-8 bytes). */
export function readSize(buf: Buffer, at: number): VInt | undefined {
  const first = buf[at]
  if (first === undefined) return undefined
  const length = lengthOf(first, 8)
  if (at + length > buf.length) return undefined
  let value = first & (0xff >> length)
  let allOnes = value === 0xff >> length
  for (let i = 1; i < length; i++) {
    const b = buf[at + i] ?? 0
    if (b !== 0xff) allOnes = false
    value = value * 256 + b
  }
  return { value, length, unknown: allOnes }
}

function lengthOf(first: number, max: number): number {
  for (let len = 1; len <= max; len++) if (first & (0x80 >> (len - 1))) return len
  throw new Error(`not an EBML stream (bad length marker 0x${first.toString(16)})`)
}

/** Big-endian unsigned integer payload (TrackNumber, TrackType). */
export function readUint(buf: Buffer, at: number, length: number): number {
  let v = 0
  for (let i = 0; i < length; i++) v = v * 256 + (buf[at + i] ?? 0)
  return v
}

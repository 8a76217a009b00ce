// A tiny EBML writer for hand-made live-style Matroska streams (unknown-size Segment and Clusters), as
// the page's encoders write them: for tests of the scanner, the buffer and the feed.

const UNKNOWN = Buffer.from([0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])
const idBytes = (id: number): Buffer => {
  const hex = id.toString(16)
  return Buffer.from(hex.length % 2 ? '0' + hex : hex, 'hex')
}
const sizeBytes = (n: number): Buffer =>
  n < 0x3fff
    ? Buffer.from([0x40 | (n >> 8), n & 0xff]) // 2-byte vint
    : Buffer.from([0x10, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]) // 4-byte vint
export const el = (id: number, ...body: Buffer[]): Buffer => {
  const b = Buffer.concat(body)
  return Buffer.concat([idBytes(id), sizeBytes(b.length), b])
}
export const open = (id: number): Buffer => Buffer.concat([idBytes(id), UNKNOWN])
export const uint = (id: number, v: number): Buffer => {
  const bytes: number[] = []
  let x = v
  do {
    bytes.unshift(x & 0xff)
    x = Math.floor(x / 256)
  } while (x > 0)
  return el(id, Buffer.from(bytes))
}
/** A SimpleBlock of `track` at `rel` ms from its cluster. */
export const block = (track: number, key: boolean, payload = 20, rel = 0): Buffer => {
  const head = Buffer.from([0x80 | track, 0, 0, key ? 0x80 : 0])
  head.writeInt16BE(rel, 1)
  return el(0xa3, head, Buffer.alloc(payload, 7))
}
export const groupBlock = (track: number, ref: boolean): Buffer =>
  el(
    0xa0,
    el(0xa1, Buffer.from([0x80 | track, 0, 0, 0]), Buffer.alloc(10, 1)),
    ...(ref ? [uint(0xfb, 1)] : [])
  )

/** EBML header, an open Segment, Info (TimestampScale in ns) and Tracks: video 1 (if any), audio 2. */
export function streamHeader(o: { timestampScale?: number; video?: boolean } = {}): Buffer {
  const entries = [
    ...(o.video === false ? [] : [el(0xae, uint(0xd7, 1), uint(0x83, 1))]),
    el(0xae, uint(0xd7, 2), uint(0x83, 2))
  ]
  return Buffer.concat([
    el(0x1a45dfa3, el(0x4282, Buffer.from('webm'))),
    open(0x18538067),
    el(0x1549a966, uint(0x2ad7b1, o.timestampScale ?? 1_000_000)),
    el(0x1654ae6b, ...entries)
  ])
}

/** An open Cluster at `timeMs` (TimestampScale 1 ms) with `frames` video blocks 1/fps apart. */
export function cluster(o: {
  timeMs: number
  key: boolean
  frames: number
  fps?: number
  payload?: number
}): Buffer {
  const step = 1000 / (o.fps ?? 30)
  const blocks: Buffer[] = []
  for (let i = 0; i < o.frames; i++)
    blocks.push(block(1, o.key && i === 0, o.payload ?? 1000, Math.round(i * step)))
  return Buffer.concat([open(0x1f43b675), uint(0xe7, o.timeMs), ...blocks])
}

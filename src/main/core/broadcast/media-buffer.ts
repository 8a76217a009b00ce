// Keeps what a new ffmpeg needs to pick up a running stream from the page's encoder: the Matroska
// header (everything before the first Cluster) and the clusters since the latest one that starts on a
// video keyframe. Memory is bounded: beyond maxBytes the oldest whole clusters go. Every byte it hands
// on says which cluster it belongs to, so the feed can drop whole clusters (media-feed.ts).
import { MatroskaScanner } from './matroska-scanner'
import { MEDIA_BUFFER_BYTES } from './uplink/tuning'

/** One Cluster of the stream, as far as it has arrived. */
export interface MediaUnit {
  chunks: Buffer[]
  /** For each chunk, the time of the block it begins, if it begins one (MediaPiece.blockMs). */
  blockMs: (number | undefined)[]
  bytes: number
  /** undefined until the cluster's first video block has been seen. */
  key: boolean | undefined
  /** The cluster's timestamp (ms), once read. */
  timeMs: number | undefined
}

/** Bytes in stream order, with the cluster they belong to (null: the stream's header). */
export interface MediaPiece {
  bytes: Buffer
  unit: MediaUnit | null
  /**
   * The media time (ms) of the SimpleBlock these bytes begin, when they begin one: the feed may cut a
   * cluster short there (never inside a block). Pieces are split at every block's start.
   */
  blockMs?: number
}

export class MediaBuffer {
  private scanner = new MatroskaScanner()
  /** Bytes received but not yet classified (an element header split across chunks). */
  private pending: Buffer = Buffer.alloc(0)
  private pendingStart = 0
  private header: Buffer[] = []
  private headerDone = false
  private units: MediaUnit[] = []
  private total = 0
  droppedUnits = 0
  /** The newest media time seen (ms): the latest block's, else the latest cluster's. */
  newestMs: number | undefined
  /** The newest video block's media time (ms): the picture's own clock. */
  newestVideoMs: number | undefined
  /** The latest SimpleBlock's start (stream offset) and time: the piece that begins there says so. */
  private blockAt: { at: number; ms: number } | undefined

  constructor(private readonly maxBytes = MEDIA_BUFFER_BYTES) {}

  /**
   * Takes the next chunk; returns the bytes it newly classified, in stream order, so a live ffmpeg
   * can be fed exactly the stream the buffer holds. Throws if the data is not Matroska/WebM.
   */
  push(chunk: Buffer): MediaPiece[] {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk
    const events = this.scanner.push(chunk)
    const upTo = this.scanner.consumed
    const out: MediaPiece[] = []
    let cursor = this.pendingStart
    const take = (to: number): void => {
      if (to <= cursor) return
      const piece = this.pending.subarray(cursor - this.pendingStart, to - this.pendingStart)
      const blockMs = this.blockAt?.at === cursor ? this.blockAt.ms : undefined
      const unit = this.append(piece, blockMs)
      out.push(blockMs === undefined ? { bytes: piece, unit } : { bytes: piece, unit, blockMs })
      cursor = to
    }
    for (const ev of events) {
      const unit = this.units[this.units.length - 1]
      if (ev.type === 'cluster') {
        take(ev.at)
        // A cluster that ended with no picture in it (sound only) is no place for a decoder to start:
        // left undecided, the feed skipping to a keyframe would wait on it for ever.
        if (unit && unit.key === undefined) unit.key = false
        this.headerDone = true
        this.units.push({ chunks: [], blockMs: [], bytes: 0, key: undefined, timeMs: undefined })
      } else if (ev.type === 'key') {
        if (unit && unit.key === undefined) unit.key = ev.key
      } else if (ev.type === 'time') {
        if (unit) unit.timeMs = ev.ms
        this.newestMs = Math.max(this.newestMs ?? ev.ms, ev.ms)
      } else {
        take(ev.at)
        this.blockAt = { at: ev.at, ms: ev.ms }
        this.newestMs = Math.max(this.newestMs ?? ev.ms, ev.ms)
        if (ev.video) this.newestVideoMs = Math.max(this.newestVideoMs ?? ev.ms, ev.ms)
      }
    }
    take(upTo)
    this.pending = this.pending.subarray(upTo - this.pendingStart)
    this.pendingStart = upTo
    this.trim()
    return out
  }

  private append(piece: Buffer, blockMs: number | undefined): MediaUnit | null {
    if (!this.headerDone) {
      this.header.push(piece)
      return null
    }
    const unit = this.units[this.units.length - 1]
    if (!unit) return null
    unit.chunks.push(piece)
    unit.blockMs.push(blockMs)
    unit.bytes += piece.length
    this.total += piece.length
    return unit
  }

  private trim(): void {
    // Only data from the newest keyframe cluster on can ever be fed again.
    const lastKey = this.lastKeyIndex()
    if (lastKey > 0) this.dropFront(lastKey)
    while (this.total > this.maxBytes && this.units.length > 1) this.dropFront(1)
    const only = this.units[0]
    if (only && this.units.length === 1 && this.total > this.maxBytes) {
      // A single cluster larger than the budget cannot be kept whole: give it up as a start point.
      this.total -= only.bytes
      only.chunks = []
      only.blockMs = []
      only.bytes = 0
      only.key = false
      this.droppedUnits++
    }
  }

  private dropFront(n: number): void {
    for (const u of this.units.splice(0, n)) {
      this.total -= u.bytes
      this.droppedUnits++
    }
  }

  private lastKeyIndex(): number {
    for (let i = this.units.length - 1; i >= 0; i--) if (this.units[i]?.key === true) return i
    return -1
  }

  /**
   * What a fresh ffmpeg must be fed first: the header, then every buffered byte from the newest
   * keyframe cluster on. Undefined while there is no such cluster yet (wait for the next one).
   */
  startPoint(): MediaPiece[] | undefined {
    if (!this.headerDone) return undefined
    const i = this.lastKeyIndex()
    if (i < 0) return undefined
    return [
      ...this.header.map((bytes) => ({ bytes, unit: null })),
      ...this.units.slice(i).flatMap((unit) =>
        unit.chunks.map((bytes, k): MediaPiece => {
          const blockMs = unit.blockMs[k]
          return blockMs === undefined ? { bytes, unit } : { bytes, unit, blockMs }
        })
      )
    ]
  }

  get bufferedBytes(): number {
    return this.total
  }
}

// Walks a Matroska/WebM byte stream as it arrives and reports where each Cluster starts, its timestamp,
// and whether its first video block is a keyframe. A reconnecting ffmpeg needs the stream header plus
// data that starts on a keyframe; the uplink's queue measures and drops media by cluster times. It
// reads element ids, sizes and those few numbers only, never decodes.
import { ID, LEVEL1_IDS, readId, readSize, readUint } from './ebml'

export type ScanEvent =
  | { type: 'cluster'; at: number }
  | { type: 'key'; key: boolean }
  /** The current cluster's timestamp in ms (from its Timestamp and the segment's TimestampScale). */
  | { type: 'time'; ms: number }
  /**
   * A SimpleBlock's media time in ms (its cluster's time plus its own offset), where it starts, and
   * whether it is the video track's.
   */
  | { type: 'block'; ms: number; at: number; video: boolean }

type Ctx =
  | { kind: 'segment'; end: number }
  | { kind: 'cluster'; end: number; decided: boolean; ms: number }
  | { kind: 'tracks'; end: number }
  | { kind: 'info'; end: number }
  | { kind: 'entry'; end: number; num: number; type: number }
  | { kind: 'group'; end: number; video: boolean; ref: boolean }

const VIDEO_TRACK_TYPE = 1
/** Track number vint (<= 8 bytes) + 2-byte timecode + flags. */
const BLOCK_PEEK = 11

export class MatroskaScanner {
  private win: Buffer = Buffer.alloc(0)
  /** Absolute stream offset of win[0]: everything before it has been classified. */
  private winStart = 0
  private skip = 0
  private stack: Ctx[] = []
  private videoTrack: number | undefined
  private tracksSeen = false
  /** Nanoseconds per timestamp unit: Matroska's default is 1 ms. */
  private timestampScale = 1_000_000

  /** Bytes classified so far (the scanner never needs to look back before this). */
  get consumed(): number {
    return this.winStart
  }

  push(chunk: Buffer): ScanEvent[] {
    this.win = this.win.length ? Buffer.concat([this.win, chunk]) : chunk
    const events: ScanEvent[] = []
    this.run(events)
    return events
  }

  private consume(n: number): void {
    this.win = this.win.subarray(n)
    this.winStart += n
  }

  private top(): Ctx | undefined {
    return this.stack[this.stack.length - 1]
  }

  private pop(events: ScanEvent[]): void {
    const ctx = this.stack.pop()
    if (ctx?.kind === 'entry' && ctx.type === VIDEO_TRACK_TYPE && this.videoTrack === undefined)
      this.videoTrack = ctx.num
    if (ctx?.kind === 'tracks') this.tracksSeen = true
    if (ctx?.kind === 'group' && ctx.video) this.decide(events, !ctx.ref)
  }

  /** The first video block of the current cluster decides whether a decoder can start there. */
  private decide(events: ScanEvent[], key: boolean): void {
    const cluster = this.stack.find((c) => c.kind === 'cluster')
    if (cluster?.kind !== 'cluster' || cluster.decided) return
    cluster.decided = true
    events.push({ type: 'key', key })
  }

  private run(events: ScanEvent[]): void {
    for (;;) {
      let top = this.top()
      while (top && this.winStart >= top.end) {
        this.pop(events)
        top = this.top()
      }
      if (this.skip > 0) {
        const n = Math.min(this.skip, this.win.length)
        this.consume(n)
        this.skip -= n
        if (this.skip > 0) return
        continue
      }
      const id = readId(this.win, 0)
      if (!id) return
      const size = readSize(this.win, id.length)
      if (!size) return
      const hdr = id.length + size.length
      // An unknown-size Cluster (how live writers stream) ends where the next Segment child begins.
      if (top?.kind === 'cluster' && top.end === Infinity && LEVEL1_IDS.has(id.value)) {
        this.pop(events)
        continue
      }
      if (top?.kind === 'segment' && top.end === Infinity && id.value === ID.EBML) {
        throw new Error('a second Matroska document started inside the stream')
      }
      if (size.unknown && id.value !== ID.Segment && id.value !== ID.Cluster) {
        throw new Error(`unknown-size element 0x${id.value.toString(16)} is not supported`)
      }
      const end = size.unknown ? Infinity : this.winStart + hdr + size.value
      if (!this.step(top, id.value, size.value, hdr, end, events)) return
    }
  }

  /** Handles one element whose header is complete; false when more bytes are needed. */
  private step(
    top: Ctx | undefined,
    id: number,
    size: number,
    hdr: number,
    end: number,
    events: ScanEvent[]
  ): boolean {
    const enter = (ctx: Ctx): true => {
      this.consume(hdr)
      this.stack.push(ctx)
      return true
    }
    const skipAll = (): true => {
      this.consume(hdr)
      this.skip = size
      return true
    }
    if (!top) return id === ID.Segment ? enter({ kind: 'segment', end }) : skipAll()
    switch (top.kind) {
      case 'segment':
        if (id === ID.Cluster) {
          events.push({ type: 'cluster', at: this.winStart })
          // No video track (audio only): any cluster is a clean place to start.
          const audioOnly = this.tracksSeen && this.videoTrack === undefined
          if (audioOnly) events.push({ type: 'key', key: true })
          return enter({ kind: 'cluster', end, decided: audioOnly, ms: 0 })
        }
        if (id === ID.Info) return enter({ kind: 'info', end })
        return id === ID.Tracks ? enter({ kind: 'tracks', end }) : skipAll()
      case 'info':
        if (id === ID.TimestampScale) {
          if (this.win.length < hdr + size) return false
          const v = readUint(this.win, hdr, size)
          if (v > 0) this.timestampScale = v
          this.consume(hdr + size)
          return true
        }
        return skipAll()
      case 'tracks':
        return id === ID.TrackEntry ? enter({ kind: 'entry', end, num: 0, type: 0 }) : skipAll()
      case 'entry':
        if (id === ID.TrackNumber || id === ID.TrackType) {
          if (this.win.length < hdr + size) return false
          const v = readUint(this.win, hdr, size)
          if (id === ID.TrackNumber) top.num = v
          else top.type = v
          this.consume(hdr + size)
          return true
        }
        return skipAll()
      case 'cluster':
        if (id === ID.Timestamp) {
          if (this.win.length < hdr + size) return false
          const units = readUint(this.win, hdr, size)
          top.ms = (units * this.timestampScale) / 1e6
          events.push({ type: 'time', ms: top.ms })
          this.consume(hdr + size)
          return true
        }
        if (id === ID.SimpleBlock) {
          const need = hdr + Math.min(size, BLOCK_PEEK)
          if (this.win.length < need) return false
          const track = readSize(this.win, hdr)
          if (track) {
            // The block's offset from its cluster: a signed 16-bit count of TimestampScale units.
            const rel = this.win.readInt16BE(hdr + track.length)
            events.push({
              type: 'block',
              ms: top.ms + (rel * this.timestampScale) / 1e6,
              at: this.winStart,
              video: track.value === this.videoTrack
            })
          }
          if (track && track.value === this.videoTrack && !top.decided) {
            const flags = this.win[hdr + track.length + 2] ?? 0
            this.decide(events, (flags & 0x80) !== 0)
          }
          return skipAll()
        }
        if (id === ID.BlockGroup && !top.decided) {
          return enter({ kind: 'group', end, video: false, ref: false })
        }
        return skipAll()
      case 'group':
        if (id === ID.Block) {
          const need = hdr + Math.min(size, BLOCK_PEEK)
          if (this.win.length < need) return false
          const track = readSize(this.win, hdr)
          top.video = track !== undefined && track.value === this.videoTrack
        } else if (id === ID.ReferenceBlock) top.ref = true
        return skipAll()
    }
  }
}

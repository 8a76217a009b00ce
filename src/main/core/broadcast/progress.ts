// Parses ffmpeg's `-progress pipe:1` output (blocks of key=value lines ending in `progress=continue|end`)
// and derives a congestion level. Pure: the supervisor feeds it bytes and a clock.

export interface ProgressBlock {
  frame: number
  fps: number
  /** Output bitrate in kbit/s (0 when ffmpeg reports N/A). */
  kbps: number
  totalSize: number
  outTimeUs: number
  dupFrames: number
  dropFrames: number
  /** Encoding speed relative to real time (1 = keeping up). */
  speed: number
  end: boolean
}

const num = (v: string | undefined): number => {
  if (v === undefined) return 0
  const n = parseFloat(v)
  return Number.isFinite(n) ? n : 0
}

export function toBlock(fields: Map<string, string>): ProgressBlock {
  return {
    frame: num(fields.get('frame')),
    fps: num(fields.get('fps')),
    kbps: num(fields.get('bitrate')), // "1234.5kbits/s" -> 1234.5
    totalSize: num(fields.get('total_size')),
    outTimeUs: num(fields.get('out_time_us') ?? fields.get('out_time_ms')),
    dupFrames: num(fields.get('dup_frames')),
    dropFrames: num(fields.get('drop_frames')),
    speed: num(fields.get('speed')), // "1.01x" -> 1.01
    end: fields.get('progress') === 'end'
  }
}

/** Incremental parser: push stdout bytes, get whole blocks back. */
export class ProgressParser {
  private partial = ''
  private fields = new Map<string, string>()

  push(chunk: Buffer | string): ProgressBlock[] {
    const text = this.partial + chunk.toString()
    const lines = text.split('\n')
    this.partial = lines.pop() ?? ''
    const out: ProgressBlock[] = []
    for (const raw of lines) {
      const line = raw.trim()
      const eq = line.indexOf('=')
      if (eq <= 0) continue
      const key = line.slice(0, eq)
      this.fields.set(key, line.slice(eq + 1).trim())
      if (key === 'progress') {
        out.push(toBlock(this.fields))
        this.fields = new Map()
      }
    }
    return out
  }
}

/**
 * "Live" means the ingest accepted the publish. ffmpeg's RTMP client only returns from opening the
 * output after the server answered NetStream.Publish.Start, and writes the FLV header and packets
 * after that; so a block with bytes written and media time advancing is proof of an accepted publish.
 */
export const showsMediaFlowing = (b: ProgressBlock): boolean => b.totalSize > 0 && b.outTimeUs > 0

export type Congestion = 0 | 1 | 2 | 3

/**
 * Congestion from a sliding window of recent blocks: encoder speed below real time, frames being
 * dropped, or the bitrate collapsing far under the target. The worst signal wins.
 */
export class CongestionMeter {
  private window: ProgressBlock[] = []

  constructor(
    private readonly targetKbps: number,
    private readonly size = 6
  ) {}

  add(b: ProgressBlock): Congestion {
    this.window.push(b)
    if (this.window.length > this.size) this.window.shift()
    return this.level()
  }

  /** Output rate over the window in kbit/s, or undefined until the window spans some media time. */
  recentKbps(): number | undefined {
    const first = this.window[0]
    const last = this.window[this.window.length - 1]
    return first && last ? windowKbps(first, last) : undefined
  }

  level(): Congestion {
    const w = this.window
    const last = w[w.length - 1]
    if (!last) return 0
    const first = w[0] ?? last
    let level: Congestion = 0
    const bump = (l: Congestion): void => {
      if (l > level) level = l
    }
    // Speed: the first seconds after start often read low while ffmpeg warms up; judge the window.
    if (w.length >= 3) {
      const speed = median(w.map((x) => x.speed))
      if (speed > 0 && speed < 0.75) bump(3)
      else if (speed > 0 && speed < 0.9) bump(2)
      else if (speed > 0 && speed < 0.97) bump(1)
    }
    const newDrops = last.dropFrames - first.dropFrames
    const frames = Math.max(1, last.frame - first.frame)
    const dropRatio = newDrops / (frames + newDrops)
    if (dropRatio > 0.2) bump(3)
    else if (dropRatio > 0.05) bump(2)
    else if (newDrops > 0) bump(1)
    const kbps = this.recentKbps()
    if (this.targetKbps > 0 && w.length >= 3 && kbps !== undefined) {
      const ratio = kbps / this.targetKbps
      if (ratio < 0.1) bump(3)
      else if (ratio < 0.25) bump(2)
    }
    return level
  }
}

/** ffmpeg's bitrate field is an average since the start; health wants the recent rate. */
export function windowKbps(first: ProgressBlock, last: ProgressBlock): number | undefined {
  const dt = (last.outTimeUs - first.outTimeUs) / 1e6
  if (dt <= 0.2) return undefined
  return ((last.totalSize - first.totalSize) * 8) / 1000 / dt
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2
}

// The broadcaster's congestion level, from a sliding window of ffmpeg progress blocks: encoder speed
// below real time, frames being dropped, or the bitrate collapsing far under the target.
import type { ProgressBlock } from '../../../node/ffmpeg/progress'

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

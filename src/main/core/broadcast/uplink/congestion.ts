// The broadcaster's congestion level, from a sliding window of ffmpeg progress blocks: encoder speed
// below real time, frames being dropped, or the bitrate collapsing far under the target.
import type { ProgressBlock } from '../../../../node/ffmpeg/progress'
import type { Shortfall } from '../../../../shared/shortfall'
import { kbitPerSecond } from '../../../../shared/sliding-window'
import {
  DROP_RATIO_LEVELS,
  METER_MIN_BLOCKS,
  MIN_FPS_MEDIA_S,
  MIN_RATE_MEDIA_S,
  RATE_RATIO_LEVELS,
  SHORT_FPS_SHARE,
  SHORT_SPEED,
  SPEED_LEVELS
} from './tuning'

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

  /** The blocks the level is judged on, oldest first. */
  get blocks(): readonly ProgressBlock[] {
    return this.window
  }

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
    if (w.length >= METER_MIN_BLOCKS) {
      const speed = median(w.map((x) => x.speed))
      if (speed > 0 && speed < SPEED_LEVELS[0]) bump(3)
      else if (speed > 0 && speed < SPEED_LEVELS[1]) bump(2)
      else if (speed > 0 && speed < SPEED_LEVELS[2]) bump(1)
    }
    const newDrops = last.dropFrames - first.dropFrames
    const frames = Math.max(1, last.frame - first.frame)
    const dropRatio = newDrops / (frames + newDrops)
    if (dropRatio > DROP_RATIO_LEVELS[0]) bump(3)
    else if (dropRatio > DROP_RATIO_LEVELS[1]) bump(2)
    else if (newDrops > 0) bump(1)
    const kbps = this.recentKbps()
    if (this.targetKbps > 0 && w.length >= METER_MIN_BLOCKS && kbps !== undefined) {
      const ratio = kbps / this.targetKbps
      if (ratio < RATE_RATIO_LEVELS[0]) bump(3)
      else if (ratio < RATE_RATIO_LEVELS[1]) bump(2)
    }
    return level
  }
}

/** ffmpeg's bitrate field is an average since the start; health wants the recent rate. */
export function windowKbps(first: ProgressBlock, last: ProgressBlock): number | undefined {
  const dt = (last.outTimeUs - first.outTimeUs) / 1e6
  if (dt <= MIN_RATE_MEDIA_S) return undefined
  return kbitPerSecond(last.totalSize - first.totalSize, dt * 1000)
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2
}

/**
 * Frames per second the source really delivered over the window: on the encode path ffmpeg holds the
 * target rate by duplicating frames, so duplicates are not counted; undefined for a window too short.
 * (ffmpeg's own fps field is an average since the start, which hides what happens now.)
 */
export function deliveredFps(
  window: readonly ProgressBlock[],
  path: 'copy' | 'encode'
): number | undefined {
  const first = window[0]
  const last = window[window.length - 1]
  if (!first || !last) return undefined
  const seconds = (last.outTimeUs - first.outTimeUs) / 1e6
  if (seconds <= MIN_FPS_MEDIA_S) return undefined
  const frames = last.frame - first.frame
  const dups = path === 'encode' ? last.dupFrames - first.dupFrames : 0
  return Math.max(0, frames - dups) / seconds
}

/**
 * Why the stream falls short of its target, from the same window, or undefined when it does not (the
 * renderer words it). The frame rate is judged against the target: on the encode path ffmpeg holds the
 * target rate by duplicating frames, so duplicates per second are frames the source did not deliver;
 * on the copy path the rate out is the camera's own.
 */
export function explainShortfall(
  window: readonly ProgressBlock[],
  path: 'copy' | 'encode',
  targetFps: number
): Shortfall | undefined {
  const first = window[0]
  const last = window[window.length - 1]
  if (!first || !last || window.length < METER_MIN_BLOCKS) return undefined
  const seconds = (last.outTimeUs - first.outTimeUs) / 1e6
  if (seconds <= MIN_FPS_MEDIA_S) return undefined
  const speed = median(window.map((x) => x.speed))
  const drops = last.dropFrames - first.dropFrames
  if (drops > 0 || (path === 'encode' && speed > 0 && speed < SHORT_SPEED))
    return { cause: 'encoder-slow' }
  if (path === 'copy' && speed > 0 && speed < SHORT_SPEED) return { cause: 'network-slow' }
  const delivered = deliveredFps(window, path) ?? targetFps
  if (targetFps > 0 && delivered < targetFps * SHORT_FPS_SHARE)
    return { cause: 'source-fps', deliveredFps: Math.round(delivered * 10) / 10, targetFps }
  return undefined
}

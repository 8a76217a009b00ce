import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  CongestionMeter,
  explainShortfall
} from '../../../src/main/core/broadcast/uplink/congestion'
import {
  FLOWING_AFTER_US,
  ProgressParser,
  showsMediaFlowing,
  type ProgressBlock
} from '../../../src/node/ffmpeg/progress'

// Recorded from a real ffmpeg 5.1 run: 3 s of 640x360 test pattern encoded to FLV (see fixture name).
const recorded = readFileSync(join(__dirname, '../../fixtures/core/progress-encode.txt'), 'utf8')

const block = (p: Partial<ProgressBlock>): ProgressBlock => ({
  frame: 0,
  fps: 30,
  kbps: 1000,
  totalSize: 0,
  outTimeUs: 0,
  dupFrames: 0,
  dropFrames: 0,
  speed: 1,
  end: false,
  ...p
})

describe('progress parser', () => {
  it('gives the same blocks for the recorded stream cut at every byte offset', () => {
    const bytes = Buffer.from(recorded, 'utf8')
    const whole = new ProgressParser().push(bytes)
    expect(whole.length).toBeGreaterThan(2)
    expect(whole.at(-1)?.end).toBe(true)
    for (let cut = 0; cut <= bytes.length; cut++) {
      const p = new ProgressParser()
      const blocks = [...p.push(bytes.subarray(0, cut)), ...p.push(bytes.subarray(cut))]
      expect(blocks, `cut at byte ${cut}`).toEqual(whole)
    }
  })

  it('parses the recorded output into blocks, also when split at odd places', () => {
    const whole = new ProgressParser().push(recorded)
    const split = new ProgressParser()
    const pieces: ProgressBlock[] = []
    for (let i = 0; i < recorded.length; i += 7)
      pieces.push(...split.push(recorded.slice(i, i + 7)))
    expect(pieces).toEqual(whole)
    expect(whole.length).toBeGreaterThan(3)
    const last = whole[whole.length - 1]!
    expect(last.end).toBe(true)
    expect(last.frame).toBe(90)
    expect(last.fps).toBeCloseTo(29.79)
    expect(last.kbps).toBeCloseTo(1173.5)
    expect(last.totalSize).toBe(441234)
    expect(last.outTimeUs).toBe(3008000)
    expect(last.speed).toBeCloseTo(0.996)
    expect(whole.slice(0, -1).every((b) => !b.end)).toBe(true)
  })

  it('treats N/A as 0 and sees flowing media only once half a second of media is out, never in the last block', () => {
    const [b] = new ProgressParser().push(
      'frame=0\nbitrate=N/A\nspeed=N/A\ntotal_size=N/A\nprogress=continue\n'
    )
    expect(b).toMatchObject({ frame: 0, kbps: 0, speed: 0, totalSize: 0 })
    expect(showsMediaFlowing(b!, 2)).toBe(false)
    expect(showsMediaFlowing(block({ totalSize: 400, outTimeUs: FLOWING_AFTER_US }), 2)).toBe(true)
    // The first block after the header (media time about 0) proves only that the output opened.
    expect(showsMediaFlowing(block({ totalSize: 400, outTimeUs: 1000 }), 2)).toBe(false)
    expect(showsMediaFlowing(block({ totalSize: 400, outTimeUs: FLOWING_AFTER_US - 1 }), 2)).toBe(
      false
    )
    // ffmpeg's final block counts a burst written before a refusal was noticed: never flowing.
    expect(
      showsMediaFlowing(block({ totalSize: 400_000, outTimeUs: 2_000_000, end: true }), 3)
    ).toBe(false)
  })

  it('never sees flowing media in the first block of an attempt, however much it counts (a burst in the socket buffer, not taken yet)', () => {
    expect(showsMediaFlowing(block({ totalSize: 400_000, outTimeUs: 2_000_000 }), 1)).toBe(false)
    expect(showsMediaFlowing(block({ totalSize: 400_000, outTimeUs: 2_000_000 }), 2)).toBe(true)
  })
})

describe('congestion', () => {
  const feed = (m: CongestionMeter, blocks: Partial<ProgressBlock>[]): number => {
    let l = 0
    blocks.forEach((p, i) => {
      l = m.add(
        block({ frame: (i + 1) * 30, outTimeUs: (i + 1) * 1e6, totalSize: (i + 1) * 125_000, ...p })
      )
    })
    return l
  }

  it('is 0 when keeping up at the target rate', () => {
    expect(feed(new CongestionMeter(1000), Array(6).fill({ speed: 1.0 }))).toBe(0)
  })

  it('rises with encoder speed under real time', () => {
    expect(feed(new CongestionMeter(1000), Array(6).fill({ speed: 0.93 }))).toBe(1)
    expect(feed(new CongestionMeter(1000), Array(6).fill({ speed: 0.85 }))).toBe(2)
    expect(feed(new CongestionMeter(1000), Array(6).fill({ speed: 0.5 }))).toBe(3)
  })

  it('rises when dropped frames keep growing', () => {
    const m = new CongestionMeter(1000)
    const level = feed(
      m,
      [0, 10, 20, 30, 40, 50].map((d) => ({ dropFrames: d }))
    )
    expect(level).toBeGreaterThanOrEqual(2)
  })

  it('flags a bitrate collapse from the recent rate, not the run average', () => {
    const m = new CongestionMeter(1000)
    // 125 kB per second of media = 1000 kbit/s, then almost nothing goes out.
    for (let i = 1; i <= 6; i++)
      m.add(block({ outTimeUs: i * 1e6, totalSize: i * 125_000, frame: i * 30 }))
    expect(m.level()).toBe(0)
    for (let i = 7; i <= 12; i++)
      m.add(block({ outTimeUs: i * 1e6, totalSize: 750_000 + i * 5000, frame: i * 30 }))
    expect(m.recentKbps()).toBeLessThan(100)
    expect(m.level()).toBe(3)
  })
  it('without a target (the H.264 copy path) a low but steady bitrate is not congestion', () => {
    // A still camera scene: 40 kbit/s out, keeping up in real time, nothing dropped.
    const blocks = Array.from({ length: 6 }, (_, i) => ({ totalSize: (i + 1) * 5000, speed: 1.0 }))
    expect(feed(new CongestionMeter(0), blocks)).toBe(0)
    // The same against a 2.5 Mbit/s target reads as collapse: why the copy path passes no target.
    expect(feed(new CongestionMeter(2500), blocks)).toBe(3)
  })
})

describe('shortfall explained by its cause (the renderer words it: health-text.test.ts)', () => {
  /** n one-second blocks at the given rates. */
  const run = (n: number, per: { frames: number; dups?: number; drops?: number; speed?: number }) =>
    Array.from({ length: n }, (_, i) =>
      block({
        frame: per.frames * (i + 1),
        dupFrames: (per.dups ?? 0) * (i + 1),
        dropFrames: (per.drops ?? 0) * (i + 1),
        outTimeUs: (i + 1) * 1e6,
        totalSize: (i + 1) * 300_000,
        speed: per.speed ?? 1
      })
    )

  it('names a camera that delivers fewer frames than the target', () => {
    expect(explainShortfall(run(6, { frames: 22 }), 'copy', 30)).toEqual({
      cause: 'source-fps',
      deliveredFps: 22,
      targetFps: 30
    })
    // Encoding at -r 30, ffmpeg duplicates the 8 missing frames a second.
    expect(explainShortfall(run(6, { frames: 30, dups: 8 }), 'encode', 30)).toEqual({
      cause: 'source-fps',
      deliveredFps: 22,
      targetFps: 30
    })
  })

  it('names an encoder that cannot keep up, and a slow network on the copy path', () => {
    expect(explainShortfall(run(6, { frames: 25, speed: 0.8 }), 'encode', 30)).toEqual({
      cause: 'encoder-slow'
    })
    expect(explainShortfall(run(6, { frames: 30, drops: 2 }), 'encode', 30)).toEqual({
      cause: 'encoder-slow'
    })
    expect(explainShortfall(run(6, { frames: 30, speed: 0.7 }), 'copy', 30)).toEqual({
      cause: 'network-slow'
    })
  })

  it('says nothing when the stream meets its target, or the window is too short', () => {
    expect(explainShortfall(run(6, { frames: 30 }), 'encode', 30)).toBeUndefined()
    expect(explainShortfall(run(6, { frames: 29 }), 'copy', 30)).toBeUndefined()
    expect(explainShortfall(run(2, { frames: 10 }), 'copy', 30)).toBeUndefined()
  })
})

// The uplink loop closed in a simulation (#33): the real supervisor, feed and controller between an
// encoder model and a link model (tests/helpers/uplink-sim.ts), on fake time. The scenarios are the
// uplink bench's (a full link, 40 % and 80 % of the stream's rate for a minute, then restored); the
// bounds are generous behaviour bounds, not the bench's goals.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { FLOOR_VIDEO_KBPS } from '../../../src/main/core/broadcast/uplink/tuning'
import { simulateUplink, type SimResult } from '../../helpers/uplink-sim'

const output = {
  width: 1280,
  height: 720,
  fps: 30,
  videoBitrateKbps: 2500,
  audioBitrateKbps: 128,
  keyframeIntervalSec: 2
}
const STREAM_KBPS = output.videoBitrateKbps + output.audioBitrateKbps
/** The link before and after a throttle: twice the stream. */
const FULL_KBPS = 2 * STREAM_KBPS
const STEADY_MS = 20_000
const THROTTLE_MS = 60_000
const RECOVER_MS = 30_000

const advance = (ms: number): Promise<void> => vi.advanceTimersByTimeAsync(ms).then(() => undefined)

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN
}

/** A steady start, `share` of the stream's rate for THROTTLE_MS, then the full link again. */
function throttled(share: number): Promise<SimResult> {
  return simulateUplink({
    output,
    capacityKbps: (ms) =>
      ms >= STEADY_MS && ms < STEADY_MS + THROTTLE_MS ? share * STREAM_KBPS : FULL_KBPS,
    durationMs: STEADY_MS + THROTTLE_MS + RECOVER_MS,
    advance
  })
}

/** Pictures delivered during the throttle: p95 of how far behind live (ms). */
const throttleP95 = (r: SimResult): number =>
  percentile(
    r.delivered
      .filter((d) => d.at >= STEADY_MS && d.at < STEADY_MS + THROTTLE_MS)
      .map((d) => d.behindMs),
    0.95
  )

/** ms from the restore until the target is back at 90 % of the creator's bitrate (Infinity: never). */
function backAfterRestore(r: SimResult): number {
  const restore = STEADY_MS + THROTTLE_MS
  for (let ms = restore; ms <= restore + RECOVER_MS; ms += 100)
    if (r.targetAt(ms) >= 0.9 * output.videoBitrateKbps) return ms - restore
  return Infinity
}

const drops = (r: SimResult): number => r.health[r.health.length - 1]?.uplink?.drops ?? 0

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 })
})
afterEach(() => {
  vi.useRealTimers()
})

describe('the uplink loop, simulated', () => {
  it("a full link: the creator's bitrate throughout, nothing dropped, little delay", async () => {
    const r = await simulateUplink({
      output,
      capacityKbps: () => FULL_KBPS,
      durationMs: 30_000,
      advance
    })
    const p95 = percentile(
      r.delivered.map((d) => d.behindMs),
      0.95
    )
    console.log(`full link: p95 behind live ${p95} ms, targets ${JSON.stringify(r.targets)}`)
    expect(r.delivered.length).toBeGreaterThan(30 * 30 * 0.95)
    expect(r.targets).toEqual([])
    expect(drops(r)).toBe(0)
    expect(p95).toBeLessThan(500)
  })

  // The bounds: behind live at p95 (the bench's goals are 2 s and 1 s), and the drops over the whole
  // run: a link that carries 80 % needs a lower bitrate, not dropping; at 40 % a drop every 6 s at
  // most (the shipped rules drop 5-7 times in the minute, 0 at 80 %, over seeds 1-5).
  for (const [share, p95Bound, maxDrops] of [
    [0.4, 2000, 10],
    [0.8, 1500, 2]
  ] as const)
    it(`${share * 100} % of the stream's rate for a minute: the delay stays bounded, the bitrate never under the floor, and back within 20 s of the restore`, async () => {
      const r = await throttled(share)
      const p95 = throttleP95(r)
      const back = backAfterRestore(r)
      const lowest = Math.min(...r.targets.map((x) => x.kbps))
      console.log(
        `${share * 100} %: p95 behind live ${p95} ms, back after ${back} ms, lowest ${lowest} kbit/s, ` +
          `${drops(r)} drops, ${r.keyframesAsked} keyframes asked, ${r.targets.length} targets`
      )
      // It was lowered to what the link carries, never below the floor, nor far below the link (a
      // controller that judges before its encoder got there took 80 % down to the floor).
      expect(lowest).toBeLessThan(share * STREAM_KBPS)
      expect(lowest).toBeGreaterThanOrEqual(FLOOR_VIDEO_KBPS)
      expect(lowest).toBeGreaterThanOrEqual(0.5 * share * STREAM_KBPS)
      expect(p95).toBeLessThan(p95Bound)
      expect(drops(r)).toBeLessThanOrEqual(maxDrops)
      expect(back).toBeLessThanOrEqual(20_000)
      // Before the throttle: the full rate, nothing dropped.
      expect(r.targets.filter((x) => x.at < STEADY_MS)).toEqual([])
    })
})

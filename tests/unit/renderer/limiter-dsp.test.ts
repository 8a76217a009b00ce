// A source's limiter (features/scenes/limiter-dsp.ts) on made-up signals: nothing goes out above the
// ceiling, sound under it goes out as it came (only later, by the look-ahead), and the gain comes back.
import { describe, expect, it } from 'vitest'
import { LOOKAHEAD_S, LimiterDsp } from '../../../src/renderer/src/features/scenes/limiter-dsp'

const RATE = 48_000
const BLOCK = 128
const tone = (db: number, seconds: number, hz = 440): Float32Array => {
  const a = Math.pow(10, db / 20)
  const out = new Float32Array(Math.round(seconds * RATE))
  for (let i = 0; i < out.length; i++) out[i] = a * Math.sin((2 * Math.PI * hz * i) / RATE)
  return out
}
const run = (dsp: LimiterDsp, signal: Float32Array): Float32Array => {
  const out = new Float32Array(signal.length)
  for (let at = 0; at + BLOCK <= signal.length; at += BLOCK)
    dsp.process([signal.subarray(at, at + BLOCK)], [out.subarray(at, at + BLOCK)])
  return out
}
const peakDb = (s: Float32Array, from = 0, to = s.length): number => {
  let p = 0
  for (let i = from; i < to; i++) p = Math.max(p, Math.abs(s[i]!))
  return 20 * Math.log10(p)
}

describe('the limiter', () => {
  it('lets nothing out above its ceiling, from the first sample of a loud tone', () => {
    const dsp = new LimiterDsp(RATE)
    dsp.set({ enabled: true, ceilingDb: -1, releaseMs: 60 })
    for (const db of [2, 8, 20]) {
      const out = run(dsp, tone(db, 0.5))
      expect(peakDb(out)).toBeLessThanOrEqual(-1 + 1e-6)
      // Held at the ceiling, not far under it.
      expect(peakDb(out, RATE * 0.25)).toBeGreaterThan(-1.5)
    }
  })

  it('passes sound under the ceiling unchanged, only later by its look-ahead', () => {
    const dsp = new LimiterDsp(RATE)
    dsp.set({ enabled: true, ceilingDb: -1, releaseMs: 60 })
    const input = tone(-12, 0.2)
    const out = run(dsp, input)
    const late = Math.round(LOOKAHEAD_S * RATE)
    for (let i = late; i < input.length - BLOCK; i += 97)
      expect(out[i]).toBeCloseTo(input[i - late]!, 6)
  })

  it('switched off, passes a loud tone as it is; after a loud burst, the gain comes back', () => {
    const off = new LimiterDsp(RATE)
    off.set({ enabled: false, ceilingDb: -1, releaseMs: 60 })
    expect(peakDb(run(off, tone(6, 0.2)))).toBeCloseTo(6, 1)

    const dsp = new LimiterDsp(RATE)
    dsp.set({ enabled: true, ceilingDb: -6, releaseMs: 50 })
    run(dsp, tone(0, 0.2))
    expect(dsp.reduction).toBeLessThan(0.6)
    const after = run(dsp, tone(-20, 0.5))
    // Half a second later (10 release times) a quiet tone is at its own level again.
    expect(peakDb(after, RATE * 0.4)).toBeCloseTo(-20, 1)
  })
})

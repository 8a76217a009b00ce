// The noise gate's sound work (features/scenes/gate-dsp.ts) on made-up signals: it shuts below the
// threshold, lets speech through, does not chatter at the threshold, and passes all when switched off.
import { describe, expect, it } from 'vitest'
import { NoiseGateDsp } from '../../../src/renderer/src/features/scenes/gate-dsp'

const RATE = 48_000
const BLOCK = 128
const tone = (db: number, seconds: number, hz = 440): Float32Array => {
  const a = Math.pow(10, db / 20)
  const n = Math.round(seconds * RATE)
  const out = new Float32Array(n)
  for (let i = 0; i < n; i++) out[i] = a * Math.sin((2 * Math.PI * hz * i) / RATE)
  return out
}
const cat = (...parts: Float32Array[]): Float32Array => {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) out.set(p, (at += p.length) - p.length)
  return out
}

/** Runs a signal through the gate in worklet-sized blocks; the output and each block's open state. */
function run(gate: NoiseGateDsp, signal: Float32Array): { out: Float32Array; open: boolean[] } {
  const out = new Float32Array(signal.length)
  const open: boolean[] = []
  for (let at = 0; at + BLOCK <= signal.length; at += BLOCK) {
    const o = out.subarray(at, at + BLOCK)
    gate.process([signal.subarray(at, at + BLOCK)], [o])
    open.push(gate.isOpen)
  }
  return { out, open }
}
const peakDb = (s: Float32Array): number =>
  20 * Math.log10(s.reduce((m, v) => Math.max(m, Math.abs(v)), 1e-12))

describe('NoiseGateDsp', () => {
  it('shuts a quiet signal below the threshold and lets a loud one through', () => {
    const gate = new NoiseGateDsp(RATE)
    gate.set({ enabled: true, thresholdDb: -30 })
    const { out } = run(gate, cat(tone(-6, 0.5), tone(-50, 1), tone(-6, 0.5)))
    const s = (from: number, to: number) =>
      out.subarray(Math.round(from * RATE), Math.round(to * RATE))
    expect(peakDb(s(0.1, 0.5))).toBeGreaterThan(-7)
    // After hold (120 ms) and release (80 ms time constant), the quiet part is 25 dB and more below itself.
    expect(peakDb(s(1.0, 1.5))).toBeLessThan(-75)
    // The loud part after it opens within a few milliseconds.
    expect(peakDb(s(1.51, 2.0))).toBeGreaterThan(-7)
  })

  it('does not chatter for a level hovering around the threshold', () => {
    const gate = new NoiseGateDsp(RATE)
    gate.set({ enabled: true, thresholdDb: -30 })
    // A tone swinging ±3 dB around the threshold, 8 times a second, after a first loud word.
    const parts = [tone(-10, 0.2)]
    for (let k = 0; k < 16; k++) parts.push(tone(k % 2 ? -33 : -27, 1 / 16))
    const { open } = run(gate, cat(...parts))
    const flips = open.slice(1).filter((o, i) => o !== open[i]).length
    expect(flips).toBe(0)
  })

  it('closes once, after the hold, when the level falls and stays well below', () => {
    const gate = new NoiseGateDsp(RATE)
    gate.set({ enabled: true, thresholdDb: -40 })
    const { open } = run(gate, cat(tone(-10, 0.3), tone(-70, 0.7)))
    const closedAt = (open.indexOf(false) * BLOCK) / RATE
    expect(closedAt).toBeGreaterThan(0.3 + 0.1)
    expect(closedAt).toBeLessThan(0.3 + 0.25)
    expect(open.slice(open.indexOf(false)).every((o) => !o)).toBe(true)
  })

  it('passes everything while switched off', () => {
    const gate = new NoiseGateDsp(RATE)
    gate.set({ enabled: false, thresholdDb: -10 })
    const signal = tone(-50, 0.3)
    const { out, open } = run(gate, signal)
    expect(open.every(Boolean)).toBe(true)
    expect(Math.abs(peakDb(out) - peakDb(signal))).toBeLessThan(0.01)
  })
})

// The one sliding window over timed samples (src/shared/sliding-window.ts): rates, counters and the
// CPU load over the last seconds are all measured from it.
import { describe, expect, it } from 'vitest'
import { SlidingWindow, kbitPerSecond } from '../../../src/shared/sliding-window'

const at = (...ts: number[]): { at: number }[] => ts.map((t) => ({ at: t }))

describe('SlidingWindow', () => {
  it('keeps the newest sample at or before the span start, to measure a whole span from', () => {
    const w = new SlidingWindow<{ at: number }>(1000)
    for (const s of at(0, 400, 800, 1200, 1600)) w.push(s)
    // 1600 − 1000 = 600: 400 is the newest at or before it.
    expect(w.samples.map((s) => s.at)).toEqual([400, 800, 1200, 1600])
    expect(w.first?.at).toBe(400)
    expect(w.last?.at).toBe(1600)
    expect(w.seenMs()).toBe(1200)
  })

  it("'within' keeps only what lies inside the span", () => {
    const w = new SlidingWindow<{ at: number }>(1000, 'within')
    for (const s of at(0, 400, 800, 1200, 1600)) w.push(s)
    expect(w.samples.map((s) => s.at)).toEqual([800, 1200, 1600])
    // One sample stays however old.
    w.push({ at: 9000 })
    expect(w.samples.map((s) => s.at)).toEqual([9000])
  })

  it('finds the newest sample at least some time back, else the first', () => {
    const w = new SlidingWindow<{ at: number }>(2000)
    for (const s of at(0, 500, 1000, 1500, 2000)) w.push(s)
    expect(w.back(1000)?.at).toBe(1000)
    expect(w.back(600)?.at).toBe(1000)
    expect(w.back(5000)?.at).toBe(0)
    expect(new SlidingWindow<{ at: number }>(1000).back(10)).toBeUndefined()
  })

  it('starts over when cleared', () => {
    const w = new SlidingWindow<{ at: number }>(1000)
    w.push({ at: 5 })
    w.clear()
    expect(w.samples).toEqual([])
    expect(w.seenMs()).toBe(0)
  })
})

describe('kbitPerSecond', () => {
  it('is bytes over milliseconds in kbit/s', () => {
    expect(kbitPerSecond(125_000, 1000)).toBe(1000)
    expect(kbitPerSecond(300_000, 2000)).toBe(1200)
  })
})

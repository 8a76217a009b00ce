// The computer's load (cpu-load.ts) from the OS's per-core counters: the share of time spent working
// over the last window, the same arithmetic on every platform (Windows reports irq, macOS and Linux
// nice; idle is the only mode that is not work).
import { describe, expect, it } from 'vitest'
import { CpuLoad } from '../../../src/main/core/broadcast/cpu-load'

describe('CpuLoad', () => {
  it('reads the busy share of all cores over the window, and nothing before half a window', () => {
    let t = 0
    // Two cores; each second core 0 works 900 of 1000 ms, core 1 works 1000 of 1000 ms.
    let s = 0
    const read = () => [
      { times: { user: 800 * s, nice: 0, sys: 100 * s, idle: 100 * s, irq: 0 } },
      { times: { user: 1000 * s, nice: 0, sys: 0, idle: 0, irq: 0 } }
    ]
    const cpu = new CpuLoad(read, () => t, 3000)
    expect(cpu.busy()).toBeUndefined()
    for (s = 1; s <= 5; s++) {
      t = s * 1000
      const share = cpu.busy()
      if (s >= 2) expect(share).toBeCloseTo(0.95, 5)
    }
    // The machine goes idle: within a window the share falls to what the last seconds were.
    const base = 5
    const idleRead = (k: number) => [
      {
        times: { user: 800 * base, nice: 0, sys: 100 * base, idle: 100 * base + 1000 * k, irq: 0 }
      },
      { times: { user: 1000 * base, nice: 0, sys: 0, idle: 1000 * k, irq: 0 } }
    ]
    let k = 0
    const later = new CpuLoad(
      () => idleRead(k),
      () => t,
      3000
    )
    for (k = 0; k <= 4; k++) {
      t = 10_000 + k * 1000
      const share = later.busy()
      if (k >= 2) expect(share).toBe(0)
    }
  })

  it('counts every mode but idle as work (Windows irq, Unix nice)', () => {
    let t = 0
    let s = 0
    const cpu = new CpuLoad(
      () => [{ times: { user: 0, nice: 300 * s, sys: 0, idle: 500 * s, irq: 200 * s } }],
      () => t,
      2000
    )
    for (s = 0; s <= 3; s++) {
      t = s * 1000
      const share = cpu.busy()
      if (s >= 1) expect(share).toBeCloseTo(0.5, 5)
    }
  })
})

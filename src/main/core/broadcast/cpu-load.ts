// How busy this computer is: the share of all its cores' time spent working over the last seconds,
// from the OS's own counters (os.cpus(): /proc/stat on Linux, host_processor_info on macOS,
// NtQuerySystemInformation on Windows), so it reads the same on every platform. The health strip uses
// it to tell a computer too busy to send in real time from an upload too slow to carry the stream
// (OBS's "skipped frames due to encoding lag" against "dropped frames" on the network).
import { cpus } from 'node:os'
import { SlidingWindow } from '../../../shared/sliding-window'
import { CPU_WINDOW_MS } from './uplink/tuning'

/** The OS's per-core counters (ms spent in each mode since boot), as os.cpus() gives them. */
export type CpuCounters = () => ReadonlyArray<{ times: Readonly<Record<string, number>> }>

interface Reading {
  at: number
  busy: number
  total: number
}

export class CpuLoad {
  private readonly readings: SlidingWindow<Reading>

  constructor(
    private readonly read: CpuCounters = cpus,
    private readonly now: () => number = Date.now,
    /** The share is judged over at least this much time. */
    private readonly windowMs = CPU_WINDOW_MS
  ) {
    // The newest reading that is at least a window old, and everything after it.
    this.readings = new SlidingWindow(windowMs)
  }

  /** The share of CPU time spent working (0..1) over the last window, or undefined until one. */
  busy(): number | undefined {
    const at = this.now()
    let busy = 0
    let total = 0
    for (const c of this.read()) {
      for (const [mode, ms] of Object.entries(c.times)) {
        total += ms
        if (mode !== 'idle') busy += ms
      }
    }
    this.readings.push({ at, busy, total })
    const first = this.readings.first!
    const dt = total - first.total
    if (at - first.at < this.windowMs / 2 || dt <= 0) return undefined
    return Math.min(1, Math.max(0, (busy - first.busy) / dt))
  }
}

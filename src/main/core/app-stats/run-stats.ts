// The run's numbers for the stats view (#34 §6), kept from the run's start whether the view is open or
// not: the rate leaving the computer, media dropped by the network before the socket (MediaFeed), and
// frames skipped before Onair's encoder, each over the last seconds and since the start. Read from the
// live events main already sends (live:state, live:health), so the broadcaster needs no change.
import { CounterWindow, type RunStatsView } from '../../../shared/app-stats'
import type { LiveHealthEvent, LiveStateEvent } from '../../../shared/contract'

interface Run {
  runId: string
  since: number
  lastAt?: number
  firstAt?: number
  kbits: number
  sent: CounterWindow
  drops: CounterWindow
  droppedMs: CounterWindow
  skipped?: CounterWindow
}

export class RunStats {
  private run: Run | null = null

  state(e: LiveStateEvent, now = Date.now()): void {
    if (this.run?.runId === e.runId) {
      if (e.liveSince !== undefined) this.run.since = Math.min(this.run.since, e.liveSince)
      return
    }
    const since = e.liveSince ?? now
    const fresh = (): CounterWindow => {
      const w = new CounterWindow()
      w.add(since, 0)
      return w
    }
    this.run = {
      runId: e.runId,
      since,
      kbits: 0,
      // The rate counts from the first health event, not from the start (nothing was measured before).
      sent: new CounterWindow(),
      drops: fresh(),
      droppedMs: fresh()
    }
  }

  health(h: LiveHealthEvent): void {
    const r = this.run
    if (!r || r.runId !== h.runId) return
    // The health's rate is what left over its last seconds: it stands for the time since the last event.
    if (r.lastAt !== undefined && h.at > r.lastAt) r.kbits += (h.kbps * (h.at - r.lastAt)) / 1000
    r.firstAt ??= h.at
    r.lastAt = Math.max(r.lastAt ?? h.at, h.at)
    r.sent.add(h.at, r.kbits)
    const up = h.uplink
    if (up) {
      r.drops.add(h.at, up.drops)
      r.droppedMs.add(h.at, up.droppedMs)
      if (up.encoderSkipped !== undefined) {
        if (!r.skipped) {
          r.skipped = new CounterWindow()
          r.skipped.add(r.since, 0)
        }
        r.skipped.add(h.at, up.encoderSkipped)
      }
    }
  }

  view(now = Date.now()): RunStatsView | null {
    const r = this.run
    if (!r) return null
    const recent = r.sent.recent(now)
    const sinceMs = r.lastAt !== undefined && r.firstAt !== undefined ? r.lastAt - r.firstAt : 0
    return {
      runId: r.runId,
      since: r.since,
      kbps: recent.ms > 0 ? (recent.delta * 1000) / recent.ms : 0,
      kbpsSinceStart: sinceMs > 0 ? (r.kbits * 1000) / sinceMs : 0,
      networkDrops: r.drops.view(now),
      networkDroppedMs: r.droppedMs.view(now),
      ...(r.skipped ? { encoderSkipped: r.skipped.view(now) } : {})
    }
  }
}

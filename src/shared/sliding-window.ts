// The one sliding window over timed samples: every "over the last seconds" in the app (the rate
// leaving the computer and its speed, what the page's encoder made, the CPU load, the stats view's
// counters, the encoder's recent skips) keeps its samples here.

/**
 * 'covers' keeps the newest sample at or before the span's start as well, so a figure can be measured
 * over a whole span once one has passed; 'within' keeps only the samples inside the span. Either way
 * the newest sample stays.
 */
export type WindowEdge = 'covers' | 'within'

export class SlidingWindow<T extends { at: number }> {
  private items: T[] = []

  constructor(
    /** How far back the window reaches from its newest sample (ms, in the samples' own clock). */
    readonly spanMs: number,
    private readonly edge: WindowEdge = 'covers'
  ) {}

  /** Adds the newest sample and lets go of those the span no longer needs. */
  push(item: T): void {
    this.items.push(item)
    const at = item.at
    const w = this.items
    if (this.edge === 'covers') while (w.length > 2 && at - w[1]!.at >= this.spanMs) w.shift()
    else while (w.length > 1 && at - w[0]!.at > this.spanMs) w.shift()
  }

  /** The samples held, oldest first. */
  get samples(): readonly T[] {
    return this.items
  }

  get first(): T | undefined {
    return this.items[0]
  }

  get last(): T | undefined {
    return this.items[this.items.length - 1]
  }

  /** The ms between the oldest and the newest sample held (less than the span early on). */
  seenMs(): number {
    const first = this.first
    const last = this.last
    return first && last ? last.at - first.at : 0
  }

  /** The newest sample at least `ms` before the newest one, else the oldest held. */
  back(ms: number): T | undefined {
    const last = this.last
    if (!last) return undefined
    for (let i = this.items.length - 1; i >= 0; i--)
      if (last.at - this.items[i]!.at >= ms) return this.items[i]
    return this.first
  }

  clear(): void {
    this.items = []
  }
}

/** A byte count over a span of ms, in kbit/s (bytes × 8 / ms). */
export const kbitPerSecond = (bytes: number, ms: number): number => (bytes * 8) / ms

// A source's limiter (#34 §5), plain TypeScript so it is tested without a browser; an AudioWorklet
// (worklets.ts) runs it on the audio thread. A look-ahead brick wall: the sound goes out
// LOOKAHEAD_S late, and the gain on each sample going out is the lowest any sample of the window
// ahead of it needs to stay at the ceiling, so no sample ever goes out above the ceiling. The gain
// comes down at once (inside the look-ahead, before the peak) and goes back up with the release time.
// Web Audio's DynamicsCompressorNode cannot do this: at 20:1 its detector lets a steady tone 9 dB over
// the ceiling out 1.3 dB above it.
export interface LimiterParams {
  enabled: boolean
  ceilingDb: number
  releaseMs: number
}

export const LOOKAHEAD_S = 0.005

export class LimiterDsp {
  private readonly lookahead: number
  /** The sound waiting to go out, per channel (a ring of `lookahead` samples). */
  private delay: Float32Array[] = []
  private at = 0
  /** The gains the window's samples need, oldest first, kept as a monotonic queue of the minimum. */
  private needs: Float64Array
  private stamps: Float64Array
  private head = 0
  private tail = 0
  private count = 0
  private gain = 1
  private ceiling = 1
  private releaseCoef = 0
  private enabled = false

  constructor(private readonly sampleRate: number) {
    this.lookahead = Math.max(1, Math.round(LOOKAHEAD_S * sampleRate))
    this.needs = new Float64Array(this.lookahead + 2)
    this.stamps = new Float64Array(this.lookahead + 2)
    this.set({ enabled: true, ceilingDb: -1, releaseMs: 60 })
  }

  set(p: LimiterParams): void {
    this.enabled = p.enabled
    this.ceiling = Math.pow(10, p.ceilingDb / 20)
    this.releaseCoef = p.releaseMs > 0 ? Math.exp(-1 / ((p.releaseMs / 1000) * this.sampleRate)) : 0
  }

  /** The gain applied to the last sample out (1: not limiting). */
  get reduction(): number {
    return this.gain
  }

  /** Limits one block; `output` may be the input itself. Every channel gets the same gain. */
  process(input: readonly Float32Array[], output: readonly Float32Array[]): void {
    const frames = output[0]?.length ?? 0
    const channels = output.length
    while (this.delay.length < channels) this.delay.push(new Float32Array(this.lookahead))
    const size = this.needs.length
    for (let i = 0; i < frames; i++) {
      let peak = 0
      for (let c = 0; c < channels; c++) {
        const src = input[c] ?? input[0]
        peak = Math.max(peak, Math.abs(src?.[i] ?? 0))
      }
      const need = this.enabled && peak > this.ceiling ? this.ceiling / peak : 1
      // The window's minimum: drop the needs it hides and the one that left the window.
      const t = this.count++
      while (this.tail !== this.head && this.needs[(this.tail - 1 + size) % size]! >= need)
        this.tail = (this.tail - 1 + size) % size
      this.needs[this.tail] = need
      this.stamps[this.tail] = t
      this.tail = (this.tail + 1) % size
      while (this.stamps[this.head]! <= t - this.lookahead - 1) this.head = (this.head + 1) % size
      const lowest = this.needs[this.head]!
      this.gain = lowest < this.gain ? lowest : lowest + (this.gain - lowest) * this.releaseCoef
      for (let c = 0; c < channels; c++) {
        const src = input[c] ?? input[0]
        const ring = this.delay[c]!
        const out = ring[this.at]!
        ring[this.at] = src?.[i] ?? 0
        output[c]![i] = out * this.gain
      }
      this.at = (this.at + 1) % this.lookahead
    }
  }
}

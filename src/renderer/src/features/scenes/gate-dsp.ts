// The noise gate's sound processing (#20), plain TypeScript so it is tested without a browser; the
// AudioWorklet (worklets.ts) runs it on the audio thread, block by block, where no timer or
// background throttling can delay it. A peak envelope follows the microphone; the gate opens when it
// reaches the threshold and closes only once it has stayed 6 dB below for the hold time (hysteresis
// and hold: a voice hovering at the threshold does not chatter). The gain then moves, never steps:
// a fast attack (3 ms, the first syllable is not cut) and a slower release (80 ms, no click).
export interface GateParams {
  enabled: boolean
  thresholdDb: number
}

/** How far below the threshold the level must fall to close (dB), and for how long (s). */
export const GATE_HYSTERESIS_DB = 6
export const GATE_HOLD_S = 0.12
const ENVELOPE_S = 0.02
const ATTACK_S = 0.003
const RELEASE_S = 0.08

const coef = (seconds: number, rate: number): number => Math.exp(-1 / (seconds * rate))

export class NoiseGateDsp {
  private env = 0
  private gain = 1
  private open = true
  private holdLeft = 0
  private params: GateParams = { enabled: false, thresholdDb: -50 }
  private openAt = 0
  private closeAt = 0
  private readonly envCoef: number
  private readonly attack: number
  private readonly release: number
  private readonly holdSamples: number

  constructor(private readonly sampleRate: number) {
    this.envCoef = coef(ENVELOPE_S, sampleRate)
    this.attack = coef(ATTACK_S, sampleRate)
    this.release = coef(RELEASE_S, sampleRate)
    this.holdSamples = Math.round(GATE_HOLD_S * sampleRate)
    this.set(this.params)
  }

  set(params: GateParams): void {
    this.params = params
    this.openAt = Math.pow(10, params.thresholdDb / 20)
    this.closeAt = Math.pow(10, (params.thresholdDb - GATE_HYSTERESIS_DB) / 20)
  }

  /** Whether the gate lets sound through now (always, while it is switched off). */
  get isOpen(): boolean {
    return !this.params.enabled || this.open
  }

  /**
   * Gates one block: every channel gets the same gain, found from the loudest. `output` may be the
   * input itself. With no input channel (a microphone not connected yet) the output is silence.
   */
  process(input: readonly Float32Array[], output: readonly Float32Array[]): void {
    const frames = output[0]?.length ?? 0
    for (let i = 0; i < frames; i++) {
      let peak = 0
      for (const ch of input) peak = Math.max(peak, Math.abs(ch[i] ?? 0))
      this.env = Math.max(peak, this.env * this.envCoef)
      if (!this.params.enabled) this.open = true
      else if (this.env >= this.openAt) {
        this.open = true
        this.holdLeft = this.holdSamples
      } else if (this.open && this.env < this.closeAt) {
        if (this.holdLeft > 0) this.holdLeft--
        else this.open = false
      } else if (this.open) this.holdLeft = this.holdSamples
      const target = this.open ? 1 : 0
      const c = target > this.gain ? this.attack : this.release
      this.gain = target + (this.gain - target) * c
      for (let ch = 0; ch < output.length; ch++) {
        const src = input[ch] ?? input[0]
        output[ch]![i] = src ? (src[i] ?? 0) * this.gain : 0
      }
    }
  }
}

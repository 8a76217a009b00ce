// Runs on the audio thread (one AudioWorklet module, loaded once by mixer.ts): the microphone's noise
// gate and each source's limiter. The sound work is gate-dsp.ts and limiter-dsp.ts; this only wires
// them to the worklet's block calls, takes their settings, and tells the page when the gate opens or
// shuts (the mixer shows it).
import { NoiseGateDsp, type GateParams } from './gate-dsp'
import { LimiterDsp, type LimiterParams } from './limiter-dsp'

// The AudioWorklet scope's names (not in TypeScript's DOM library).
declare abstract class AudioWorkletProcessor {
  readonly port: MessagePort
}
declare function registerProcessor(
  name: string,
  ctor: new () => AudioWorkletProcessor & {
    process(inputs: Float32Array[][], outputs: Float32Array[][]): boolean
  }
): void
declare const sampleRate: number

registerProcessor(
  'onair-noise-gate',
  class extends AudioWorkletProcessor {
    private dsp = new NoiseGateDsp(sampleRate)
    private wasOpen = true
    constructor() {
      super()
      this.port.onmessage = (e: MessageEvent<GateParams>) => this.dsp.set(e.data)
    }
    process(inputs: Float32Array[][], outputs: Float32Array[][]): boolean {
      this.dsp.process(inputs[0] ?? [], outputs[0] ?? [])
      const open = this.dsp.isOpen
      if (open !== this.wasOpen) this.port.postMessage({ open })
      this.wasOpen = open
      return true
    }
  }
)

registerProcessor(
  'onair-limiter',
  class extends AudioWorkletProcessor {
    private dsp = new LimiterDsp(sampleRate)
    constructor() {
      super()
      this.port.onmessage = (e: MessageEvent<LimiterParams>) => this.dsp.set(e.data)
    }
    process(inputs: Float32Array[][], outputs: Float32Array[][]): boolean {
      this.dsp.process(inputs[0] ?? [], outputs[0] ?? [])
      return true
    }
  }
)

// Runs on the audio thread (an AudioWorklet, loaded by mixer.ts): the microphone's noise gate. The
// sound work is gate-dsp.ts; this only wires it to the worklet's block calls and tells the page when
// the gate opens or shuts (the mixer shows it).
import { NoiseGateDsp, type GateParams } from './gate-dsp'

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

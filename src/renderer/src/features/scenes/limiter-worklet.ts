// Runs on the audio thread (an AudioWorklet, loaded by mixer.ts): a source's limiter. The sound work
// is limiter-dsp.ts; this only wires it to the worklet's block calls and takes its settings.
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

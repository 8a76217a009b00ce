// The capture's sound as Onair's encoder takes it (raw-pusher.ts): 48 kHz stereo, 32-bit float planar,
// in raw-media messages (shared/raw-media.ts), each with its capture time. A source of another rate (a
// 44.1 kHz microphone) is resampled (linear, carried from buffer to buffer), mono goes to both sides,
// more than two channels keep the first two, and sound the capture lost is filled with silence (as the
// WebCodecs path does, audioGapFrames), so the sound keeps the picture's clock. Pure: tested in Node.
import { packRaw, type RawAudio } from '../../../../../shared/raw-media'
import { audioGapFrames } from './encoder-plan'

/** What the encoder is given, whatever the capture has (the Output's sound, as the encoder is set up). */
export const RAW_SAMPLE_RATE = 48_000
export const RAW_CHANNELS = 2

/** One capture buffer: its time (µs), rate, and one Float32Array per channel, all the same length. */
export interface SoundIn {
  timestampUs: number
  sampleRate: number
  planes: readonly Float32Array[]
}

/** A piece of 48 kHz stereo sound: its start time (µs) and the left and right samples. */
export interface SoundPiece {
  timestampUs: number
  left: Float32Array
  right: Float32Array
}

export class SoundToRaw {
  /** Sound the capture lost and silence made up for (µs). */
  filledUs = 0
  /** Where the next buffer should start (µs): a later one leaves a gap. */
  private nextUs: number | undefined
  /** The read position for the next buffer, in its samples (-1..0: between the last buffer's end and it). */
  private phase = 0
  /** The last buffer's last sample, left and right: where the interpolation starts from. */
  private last: [number, number] | undefined

  take(input: SoundIn): SoundPiece[] {
    const out: SoundPiece[] = []
    const l = input.planes[0]
    if (!l || l.length === 0) return out
    const r = input.planes[1] ?? l
    const gap = audioGapFrames(this.nextUs, input.timestampUs, input.sampleRate)
    if (gap > 0) {
      // In pieces of at most a second (a message carries no more).
      const frames = Math.round((gap / input.sampleRate) * RAW_SAMPLE_RATE)
      for (let at = 0; at < frames; at += RAW_SAMPLE_RATE) {
        const n = Math.min(RAW_SAMPLE_RATE, frames - at)
        out.push({
          timestampUs: this.nextUs! + (at / RAW_SAMPLE_RATE) * 1e6,
          left: new Float32Array(n),
          right: new Float32Array(n)
        })
      }
      this.filledUs += (gap / input.sampleRate) * 1e6
      // After silence, the interpolation starts again at the new buffer's first sample.
      this.last = undefined
      this.phase = 0
    }
    this.nextUs = input.timestampUs + (l.length / input.sampleRate) * 1e6
    if (input.sampleRate === RAW_SAMPLE_RATE) {
      out.push({ timestampUs: input.timestampUs, left: l.slice(), right: r.slice() })
      return out
    }
    const piece = this.resample(input.timestampUs, input.sampleRate, l, r)
    if (piece.left.length > 0) out.push(piece)
    return out
  }

  /** Linear interpolation to 48 kHz, the position carried on to the next buffer. */
  private resample(ts: number, rate: number, l: Float32Array, r: Float32Array): SoundPiece {
    const n = l.length
    const step = rate / RAW_SAMPLE_RATE
    const [pl, pr] = this.last ?? [l[0]!, r[0]!]
    const start = this.phase
    const frames = Math.max(0, Math.floor((n - 1 - start) / step) + 1)
    const left = new Float32Array(frames)
    const right = new Float32Array(frames)
    for (let k = 0; k < frames; k++) {
      const p = start + k * step
      const i = Math.floor(p)
      const f = p - i
      const l0 = i < 0 ? pl : l[i]!
      const r0 = i < 0 ? pr : r[i]!
      const l1 = l[Math.min(i + 1, n - 1)]!
      const r1 = r[Math.min(i + 1, n - 1)]!
      left[k] = l0 + (l1 - l0) * f
      right[k] = r0 + (r1 - r0) * f
    }
    this.phase = start + frames * step - n
    this.last = [l[n - 1]!, r[n - 1]!]
    return { timestampUs: ts + (start / rate) * 1e6, left, right }
  }
}

/** A piece as one raw-media message (left plane, then right). */
export function packSound(p: SoundPiece): Uint8Array {
  const frames = p.left.length
  const header: RawAudio = {
    kind: 'audio',
    sampleRate: RAW_SAMPLE_RATE,
    channels: RAW_CHANNELS,
    frames,
    timestampUs: p.timestampUs
  }
  const planes = new Float32Array(frames * 2)
  planes.set(p.left, 0)
  planes.set(p.right, frames)
  return packRaw(header, new Uint8Array(planes.buffer))
}

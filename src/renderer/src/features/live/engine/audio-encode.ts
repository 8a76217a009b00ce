// The capture's sound as Opus, for the page's own encoder (webcodecs-pusher.ts). It runs in a worker
// (audio-worker.ts) so the sound is read on time whatever the page's thread is doing; where no worker
// can start, the pusher runs it on the page's thread. One place for what both do: configure on the
// first buffer, fill what the capture lost with silence, encode.
//
// For Onair's encoder (raw-pusher.ts) the same worker reads the sound and hands it over unencoded
// instead: rawSoundOf, 48 kHz stereo f32 planar raw-media messages (raw-sound.ts).
import { audioGapFrames } from './encoder-plan'
import { packSound, type SoundToRaw } from './raw-sound'

/** Encodes the capture's sound buffers in order, silence in place of any the capture lost. */
export class CaptureOpus {
  /** Sound the capture lost and silence made up for (µs). */
  filledUs = 0
  /** Where the next buffer should start: a later one leaves a gap. */
  private nextUs: number | undefined

  constructor(
    private readonly enc: AudioEncoder,
    private readonly bitrateKbps: number
  ) {}

  take(data: AudioData): void {
    const enc = this.enc
    if (enc.state === 'closed') return
    if (enc.state === 'unconfigured')
      enc.configure({
        codec: 'opus',
        sampleRate: data.sampleRate,
        numberOfChannels: data.numberOfChannels,
        bitrate: this.bitrateKbps * 1000
      })
    const gap = audioGapFrames(this.nextUs, data.timestamp, data.sampleRate)
    if (gap > 0) {
      // Sound the capture lost: silence in its place keeps the sound on the picture's clock.
      const silence = new AudioData({
        format: 'f32-planar',
        sampleRate: data.sampleRate,
        numberOfChannels: data.numberOfChannels,
        numberOfFrames: gap,
        timestamp: this.nextUs!,
        data: new Float32Array(gap * data.numberOfChannels)
      })
      enc.encode(silence)
      silence.close()
      this.filledUs += (gap / data.sampleRate) * 1e6
    }
    this.nextUs = data.timestamp + (data.numberOfFrames / data.sampleRate) * 1e6
    enc.encode(data)
  }
}

/** A capture buffer as raw-media messages (f32 planar copies, silence where the capture lost sound). */
export function rawSoundOf(
  data: AudioData,
  sound: SoundToRaw
): { bytes: Uint8Array; timestampUs: number }[] {
  const planes: Float32Array[] = []
  for (let c = 0; c < Math.min(2, data.numberOfChannels); c++) {
    const plane = new Float32Array(data.numberOfFrames)
    data.copyTo(plane, { planeIndex: c, format: 'f32-planar' })
    planes.push(plane)
  }
  return sound
    .take({ timestampUs: data.timestamp, sampleRate: data.sampleRate, planes })
    .map((p) => ({ bytes: packSound(p), timestampUs: p.timestampUs }))
}

/** What the page tells the audio worker. */
export type AudioWorkerIn =
  | { readable: ReadableStream<AudioData>; bitrateKbps: number }
  /** Onair's encoder: hand the sound back unencoded (rawSoundOf). */
  | { readable: ReadableStream<AudioData>; raw: true }

/** An encoded Opus packet as it crosses to the page. */
export interface PostedChunk {
  type: EncodedAudioChunkType
  timestamp: number
  duration: number | null
  data: ArrayBuffer
}

/** What the audio worker tells the page. */
export type AudioWorkerOut =
  /** Loaded: the page hands over the sound only now (a worker that cannot load gets none). */
  | { ready: true }
  | { chunk: PostedChunk; meta?: EncodedAudioChunkMetadata; filledUs: number }
  /** Raw sound for Onair's encoder: one raw-media message, and its start (µs). */
  | { raw: ArrayBuffer; timestampUs: number; filledUs: number }
  | { error: string }
  /** The stream ended and every packet was posted. */
  | { ended: true }

export function postedChunk(chunk: EncodedAudioChunk): PostedChunk {
  const data = new ArrayBuffer(chunk.byteLength)
  chunk.copyTo(data)
  return { type: chunk.type, timestamp: chunk.timestamp, duration: chunk.duration, data }
}

export function receivedChunk(p: PostedChunk): EncodedAudioChunk {
  return new EncodedAudioChunk({
    type: p.type,
    timestamp: p.timestamp,
    ...(p.duration === null ? {} : { duration: p.duration }),
    data: p.data
  })
}

// Synthetic raw media for the encoder tests: a moving I420 pattern with a patch of fresh noise (so
// x264 has to spend its bits and the rate control is what decides the size), and a tone, packed as
// the page packs them (raw-media.ts), with capture times on a 30 fps / 48 kHz clock.
import { i420Bytes, packRaw } from '../../../src/shared/raw-media'

export interface Synth {
  /** The raw message of frame i. */
  video(i: number): Uint8Array
  /** The raw message of the sound from frame i to frame i+1 (1600 samples at 48 kHz / 30 fps). */
  audio(i: number): Uint8Array
}

export function synth(width: number, height: number, fps: number, sampleRate = 48_000): Synth {
  const size = i420Bytes(width, height)
  const ySize = width * height
  const base = new Uint8Array(size)
  // A fixed texture (low-cost pseudo-random) the moving pattern is drawn over.
  let seed = 12345
  const rnd = (): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    return seed
  }
  for (let i = 0; i < size; i++) base[i] = i < ySize ? rnd() & 0xff : 128
  const pic = new Uint8Array(size)
  const samplesPerFrame = Math.round(sampleRate / fps)
  return {
    video(i) {
      // The texture slides by 3 px a frame; a band of fresh noise moves down the picture.
      const shift = (i * 3) % width
      for (let y = 0; y < height; y++) {
        const row = y * width
        pic.set(base.subarray(row + shift, row + width), row)
        pic.set(base.subarray(row, row + shift), row + width - shift)
      }
      const band = Math.floor(height / 6)
      const top = (i * 4) % (height - band)
      for (let y = top; y < top + band; y++)
        for (let x = 0; x < width; x += 2) {
          const r = rnd()
          pic[y * width + x] = r & 0xff
          pic[y * width + x + 1] = (r >> 8) & 0xff
        }
      pic.fill(64 + ((i * 2) % 128), ySize, ySize + (size - ySize) / 2)
      pic.fill(200 - ((i * 2) % 128), ySize + (size - ySize) / 2, size)
      return packRaw(
        { kind: 'video', width, height, timestampUs: (i * 1e6) / fps + 1_000_000 },
        pic
      )
    },
    audio(i) {
      const n = samplesPerFrame
      const f = new Float32Array(n * 2)
      for (let s = 0; s < n; s++) {
        const t = (i * n + s) / sampleRate
        f[s] = 0.3 * Math.sin(2 * Math.PI * 440 * t)
        f[n + s] = 0.3 * Math.sin(2 * Math.PI * 660 * t)
      }
      return packRaw(
        {
          kind: 'audio',
          sampleRate,
          channels: 2,
          frames: n,
          timestampUs: (i * 1e6) / fps + 1_000_000
        },
        new Uint8Array(f.buffer)
      )
    }
  }
}

/**
 * A real-time source: pushes n frames (and their sound) at fps through push, the pictures made once
 * (30 distinct ones, cycled: making 720p noise at 30 fps would load the machine more than the encoder
 * under test) with their capture times set per frame. before(i) runs before frame i is pushed.
 */
export async function playRealTime(
  s: Synth,
  o: {
    n: number
    fps: number
    push: (bytes: Uint8Array) => void
    before?: (i: number) => void
  }
): Promise<void> {
  const pics = Array.from({ length: 30 }, (_, i) => s.video(i).slice())
  const t0 = performance.now()
  for (let i = 0; i < o.n; i++) {
    const due = t0 + (i * 1000) / o.fps
    const wait = due - performance.now()
    if (wait > 0) await new Promise((r) => setTimeout(r, wait))
    o.before?.(i)
    const v = (pics[i % pics.length] as Uint8Array).slice()
    new DataView(v.buffer).setFloat64(16, (i * 1e6) / o.fps + 1_000_000, true)
    o.push(v)
    o.push(s.audio(i))
  }
}

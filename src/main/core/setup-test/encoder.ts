// The setup test's encoder part (#34 §1): which output sizes and frame rates this computer's encoder
// holds in real time. Each size runs for a short while in Onair's own encoder process (x264 veryfast,
// as a broadcast runs it: encoder/host.ts), fed synthetic pictures at the size's frame rate, paced by
// the clock; it holds when it skips (almost) nothing and keeps up with what it is given. Where the
// encoder process cannot start, ffmpeg's libx264 encodes the same kind of picture to nowhere, and the
// size holds when ffmpeg runs at least as fast as real time (the answer says which was used).
//
// The pictures: a diagonal ramp that moves every frame with noise over it, a few precomputed frames
// in turn: a camera's detail and motion, neither a still (which x264 skips through) nor pure noise.
import { EncoderHost } from '../encoder/host'
import type { ChildCommand } from '../child-command'
import { runChild } from '../../../node/process'
import { i420Bytes, packRaw } from '../../../shared/raw-media'
import type {
  EncoderHold,
  EncoderMeasure,
  EncoderStartFailure,
  SetupSizeRef
} from '../../../shared/contract'
import { TESTED_SIZES, type SetupSize } from '../../../shared/setup-test'

/** How long each size is measured (s), after a warm-up (x264 starting its threads and lookahead). */
export const SIZE_SECONDS = 2
const WARMUP_SECONDS = 1
/** A size holds when at most this share of the measured frames is skipped (before or in the encoder). */
const MAX_SKIPPED_SHARE = 0.05
/** How long to wait for the encoder's count to cover the last frames (it reports every ~500 ms). */
const SETTLE_MS = 1500
const FRAMES = 6

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

function pictures(width: number, height: number, fps: number): Uint8Array[] {
  const out: Uint8Array[] = []
  let seed = 12345
  const rnd = (): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) >>> 16) & 31
  for (let f = 0; f < FRAMES; f++) {
    const buf = new Uint8Array(i420Bytes(width, height))
    const shift = Math.round((f * 240) / fps)
    for (let y = 0; y < height; y++) {
      const row = y * width
      for (let x = 0; x < width; x++) buf[row + x] = ((x + y + shift) & 0xbf) + rnd()
    }
    buf.fill(128, width * height)
    for (let i = width * height; i < buf.length; i += 7) buf[i] = 112 + rnd()
    out.push(buf)
  }
  return out
}

async function holdInProcess(
  size: SetupSize,
  command: ChildCommand | undefined,
  signal: AbortSignal
): Promise<
  { hold: EncoderHold; label: string; id: EncoderMeasure['id'] } | { failed: EncoderStartFailure }
> {
  const host = new EncoderHost({ command })
  const started = await host.start({
    width: size.width,
    height: size.height,
    fps: size.fps,
    videoKbps: size.typicalKbps,
    keyframeSec: 2,
    encoder: 'x264',
    preset: 'veryfast',
    bframes: 2
  })
  if (!started.ok) return { failed: started.failure }
  try {
    const frames = pictures(size.width, size.height, size.fps)
    const warm = Math.round(size.fps * WARMUP_SECONDS)
    const n = warm + Math.round(size.fps * SIZE_SECONDS)
    const t0 = Date.now()
    // The counts when the warm-up ends (the encoder's may be up to one report old: a skip late in the
    // warm-up then counts against the size, never for it).
    let atWarm = host.stats()
    for (let i = 0; i < n && !signal.aborted; i++) {
      if (i === warm) atWarm = host.stats()
      const due = t0 + (i * 1000) / size.fps
      const wait = due - Date.now()
      if (wait > 0) await sleep(wait)
      const timestampUs = Math.round((i * 1e6) / size.fps)
      const { width, height } = size
      const r = host.pushRaw(
        packRaw({ kind: 'video', width, height, timestampUs }, frames[i % FRAMES]!)
      )
      if (!r.ok) return { failed: { kind: 'stopped', detail: r.error } }
    }
    const pushEnd = Date.now()
    // The encoder's own count comes about every 500 ms: wait for one that covers every frame sent.
    while (Date.now() - pushEnd < SETTLE_MS) {
      const s = host.stats()
      if (s.framesIn + s.hostSkipped >= n) break
      await sleep(50)
    }
    const s = host.stats()
    const measured = n - warm
    const skipped = Math.max(0, s.skipped - atWarm.skipped)
    // Frames that never reached the encoder's count (still in the pipe) count as not kept up with.
    const unaccounted = Math.max(0, n - (s.framesIn + s.hostSkipped))
    const holds = skipped + unaccounted <= MAX_SKIPPED_SHARE * measured
    return {
      id: started.encoder,
      label: started.label,
      hold: {
        width: size.width,
        height: size.height,
        fps: size.fps,
        // The frames it took of those it was given, per second of the measured stretch.
        fpsReached: Math.round(((measured - skipped - unaccounted) / SIZE_SECONDS) * 10) / 10,
        skipped,
        holds
      }
    }
  } finally {
    await host.stop(2000)
  }
}

async function holdInFfmpeg(ffmpeg: string, size: SetupSize): Promise<EncoderHold> {
  const r = await runChild(
    ffmpeg,
    [
      ...['-hide_banner', '-nostdin', '-loglevel', 'error', '-progress', 'pipe:1'],
      ...['-f', 'lavfi', '-i'],
      `testsrc2=size=${size.width}x${size.height}:rate=${size.fps},noise=alls=12:allf=t`,
      ...[
        '-t',
        String(SIZE_SECONDS + WARMUP_SECONDS),
        '-c:v',
        'libx264',
        '-preset',
        'veryfast',
        '-bf',
        '2'
      ],
      ...['-b:v', `${size.typicalKbps}k`, '-f', 'null', '-']
    ],
    { timeoutMs: SIZE_SECONDS * 10_000 }
  )
  // The last progress block's speed: the whole run's (1 = real time).
  const last = [...r.stdout.matchAll(/speed=\s*([\d.]+)x/g)].pop()
  const s = Number(last?.[1] ?? 0)
  return {
    width: size.width,
    height: size.height,
    fps: size.fps,
    fpsReached: Math.round(size.fps * s * 10) / 10,
    skipped: 0,
    holds: s >= 1
  }
}

export interface EncoderTestOptions {
  command?: ChildCommand
  ffmpeg: () => string
  signal: AbortSignal
  /** 0..1 of the sizes done, and the size being timed (null: every size is timed). */
  onProgress?: (fraction: number, size: SetupSizeRef | null) => void
}

/** Every tested size in turn, best first. */
export async function measureEncoder(o: EncoderTestOptions): Promise<EncoderMeasure> {
  const sizes: EncoderHold[] = []
  let id: EncoderMeasure['id'] = 'x264'
  let label = 'x264 (software)'
  let via: EncoderMeasure['via'] = 'encoder-process'
  let processFailure: EncoderStartFailure | undefined
  for (const [i, size] of TESTED_SIZES.entries()) {
    if (o.signal.aborted) break
    o.onProgress?.(i / TESTED_SIZES.length, { height: size.height, fps: size.fps })
    if (via === 'encoder-process') {
      const r = await holdInProcess(size, o.command, o.signal)
      if ('failed' in r) {
        processFailure = r.failed
        via = 'ffmpeg'
      } else {
        id = r.id
        label = r.label
        sizes.push(r.hold)
        continue
      }
    }
    sizes.push(await holdInFfmpeg(o.ffmpeg(), size))
  }
  o.onProgress?.(1, null)
  return { id, label, via, sizes, ...(processFailure ? { processFailure } : {}) }
}

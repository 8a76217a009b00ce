// The setup test's upload part (#34 §1): a short test stream pushed to the service's RTMP ingest at a
// rate above what a creator's upload is likely to carry, and what the upload carried, read from
// ffmpeg's own count of the bytes it wrote to the socket (-progress total_size) over the last seconds.
//
// The stream: ffmpeg's test picture with moving noise (640x360, cheap to make and to encode, so the
// computer is never what limits it), x264 ultrafast in constant bitrate (nal-hrd=cbr pads to the rate),
// and a tone; -re paces it in real time. Its socket's send buffer is small (as the broadcaster's:
// push.ts), so the bytes ffmpeg has written are, within a few KB, the bytes that left: once the link
// is full, ffmpeg's writes wait for it and total_size grows at the link's rate. The first seconds
// (TCP's start, the router's queue filling) are left out of the slope. The push is ended by the
// clock, not by its media's length: on a slow link 10 s of a 10 Mbit/s stream would take a minute.
//
// The stream key is in ffmpeg's arguments only; ffmpeg's error lines are redacted before they are
// kept or shown.
import { spawnChild, stopChild, terminate } from '../../../node/process'
import { ProgressParser } from '../../../node/ffmpeg/progress'
import { pushOutputArgs } from '../../../node/ffmpeg/push'
import { redact } from '../../../shared/redact'
import type { UploadMeasure } from '../../../shared/contract'

/** What the test stream pushes (kbit/s): video, plus the sound's 128. */
export const TEST_VIDEO_KBPS = 10_000
export const TEST_AUDIO_KBPS = 128
/** How long it pushes, and the last stretch the rate is read over. */
export const TEST_SECONDS = 10
export const SLOPE_SECONDS = 6
/** The socket's send buffer (the OS doubles it): 64 KB is 50 ms at 10 Mbit/s, 260 ms at 2. */
const SEND_BUFFER_BYTES = 32 * 1024

export interface UploadTestOptions {
  ffmpeg: string
  /** rtmp://host[:port]/app/<key>: the key is a secret. */
  url: string
  key: string
  signal: AbortSignal
  /** 0..1 of the push done. */
  onProgress?: (fraction: number, kbpsNow: number | null) => void
  seconds?: number
}

/** ffmpeg's arguments for the test stream (exported for the test of its shape). */
export function uploadTestArgs(url: string, seconds = TEST_SECONDS): string[] {
  const v = TEST_VIDEO_KBPS
  return [
    ...['-hide_banner', '-nostats', '-loglevel', 'error', '-nostdin'],
    ...['-re', '-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=30,noise=alls=40:allf=t+u'],
    ...['-re', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000'],
    // A bound in case the clock's stop never comes; the clock ends it first (measureUpload).
    ...['-t', String(seconds * 3), '-map', '0:v', '-map', '1:a'],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-pix_fmt', 'yuv420p'],
    ...['-g', '60', '-b:v', `${v}k`, '-minrate', `${v}k`, '-maxrate', `${v}k`],
    ...['-bufsize', `${v / 2}k`, '-x264-params', 'nal-hrd=cbr:force-cfr=1'],
    ...['-c:a', 'aac', '-b:a', `${TEST_AUDIO_KBPS}k`, '-ar', '48000'],
    ...['-progress', 'pipe:1', '-stats_period', '0.25'],
    ...pushOutputArgs(url, { sendBufferBytes: SEND_BUFFER_BYTES })
  ]
}

/** kbit/s of the bytes written over the samples' last `seconds` (a least-squares slope), or null. */
export function carriedKbps(
  samples: readonly { t: number; bytes: number }[],
  seconds = SLOPE_SECONDS
): number | null {
  if (samples.length < 3) return null
  const end = samples[samples.length - 1]!.t
  const w = samples.filter((s) => s.t >= end - seconds * 1000)
  if (w.length < 3 || end - w[0]!.t < 1000) return null
  const mt = w.reduce((a, s) => a + s.t, 0) / w.length
  const mb = w.reduce((a, s) => a + s.bytes, 0) / w.length
  let num = 0
  let den = 0
  for (const s of w) {
    num += (s.t - mt) * (s.bytes - mb)
    den += (s.t - mt) ** 2
  }
  // bytes per ms * 8 = kbit/s
  return den > 0 ? (num / den) * 8 : null
}

/** Pushes the test stream and answers what the upload carried; settles early when aborted. */
export function measureUpload(o: UploadTestOptions): Promise<UploadMeasure> {
  const seconds = o.seconds ?? TEST_SECONDS
  const pushedKbps = TEST_VIDEO_KBPS + TEST_AUDIO_KBPS
  return new Promise((resolve) => {
    const child = spawnChild(o.ffmpeg, uploadTestArgs(o.url, seconds), {
      stdio: ['ignore', 'pipe', 'pipe']
    })
    const parser = new ProgressParser()
    const samples: { t: number; bytes: number }[] = []
    let started = 0
    let stderr = ''
    let spawnError: Error | undefined
    child.stdout?.on('data', (d: Buffer) => {
      for (const b of parser.push(d)) {
        if (b.totalSize <= 0) continue
        const t = Date.now()
        started ||= t
        samples.push({ t, bytes: b.totalSize })
        o.onProgress?.(Math.min(1, (t - started) / (seconds * 1000)), carriedKbps(samples, 2))
      }
    })
    child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)))
    child.once('error', (e) => (spawnError = e))
    const end = (): void =>
      void stopChild(child, { graceful: () => terminate(child), killAfterMs: 2000 })
    const onAbort = (): void => end()
    o.signal.addEventListener('abort', onAbort, { once: true })
    // The clock ends the push: `seconds` after its first bytes (or after twice that if none came).
    let timeUp = false
    const spawnedAt = Date.now()
    const timer = setInterval(() => {
      const since = started ? Date.now() - started : 0
      if (since >= seconds * 1000 || (!started && Date.now() - spawnedAt > seconds * 2000)) {
        timeUp = true
        clearInterval(timer)
        end()
      }
    }, 100)
    child.once('close', (code) => {
      clearInterval(timer)
      o.signal.removeEventListener('abort', onAbort)
      const kbps = carriedKbps(samples)
      const lastLine = redact(stderr, [o.key]).trim().split('\n').pop()?.trim()
      if (o.signal.aborted)
        return resolve({ kbps: null, pushedKbps, failure: { kind: 'cancelled' } })
      if (kbps === null || (!timeUp && code !== 0 && samples.length < 3))
        return resolve({
          kbps: null,
          pushedKbps,
          failure: spawnError
            ? { kind: 'no-ffmpeg', detail: spawnError.message }
            : { kind: 'refused', detail: lastLine || null, exitCode: code }
        })
      resolve({ kbps: Math.round(kbps), pushedKbps })
    })
  })
}

// Shared bits of the broadcaster's integration tests: a Broadcaster wired to collect its events,
// a camera-like Matroska H.264+Opus file made by ffmpeg, and a paced feeder for it.
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Broadcaster, type BroadcastTuning } from '../../../src/main/core/broadcaster'
import type { LiveHealthEvent, LiveStateEvent, OutputSettings } from '../../../src/shared/contract'
import { makeMediaFile } from '../../helpers/studio'
import { waitUntil } from '../../helpers/wait-until'

export const OUTPUT: OutputSettings = {
  width: 640,
  height: 360,
  fps: 25,
  videoBitrateKbps: 800,
  audioBitrateKbps: 96,
  keyframeIntervalSec: 2
}

/** Short backoff so fault tests stay bounded; the schedule itself is unit-tested. */
export const FAST: BroadcastTuning = {
  backoff: { initialMs: 300, capMs: 1500 },
  preset: 'ultrafast'
}

export function liveBroadcaster(tuning: BroadcastTuning = FAST) {
  const states: LiveStateEvent[] = []
  const health: LiveHealthEvent[] = []
  const b = new Broadcaster({
    tuning,
    onState: (s) => states.push(s),
    onHealth: (h) => health.push(h)
  })
  const waitState = async (
    want: string,
    timeoutMs = 30_000,
    after = 0
  ): Promise<LiveStateEvent> => {
    const t0 = Date.now()
    for (;;) {
      const hit = states.slice(after).find((s) => s.state === want)
      if (hit) return hit
      if (Date.now() - t0 > timeoutMs)
        throw new Error(
          `no '${want}' state within ${timeoutMs} ms; saw ${states.map((s) => s.state).join(',')}`
        )
      await sleep(50)
    }
  }
  return { b, states, health, waitState }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/** A camera-like recording: Matroska with H.264 (keyframe every second, no B-frames) + Opus. */
export function makeCameraFile(dir: string, seconds: number): string {
  return makeMediaFile(join(dir, `camera-${seconds}s.mkv`), [
    '-f',
    'lavfi',
    '-i',
    `testsrc2=size=640x360:rate=25`,
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=330:sample_rate=48000',
    '-t',
    String(seconds),
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-g',
    '25',
    '-bf',
    '0',
    '-pix_fmt',
    'yuv420p',
    '-b:v',
    '800k',
    '-c:a',
    'libopus',
    '-b:a',
    '64k',
    '-f',
    'matroska',
    '-live',
    '1',
    '-cluster_time_limit',
    '1000'
  ])
}

/**
 * Pushes the file like MediaRecorder would: chunks in order, paced so the byte position follows the
 * media clock. Stops early when `stop()` is called. Resolves with the bytes pushed.
 */
export function feedPaced(
  push: (chunk: Uint8Array) => Promise<void>,
  file: string,
  seconds: number,
  chunkMs = 250
) {
  const bytes = readFileSync(file)
  let stopped = false
  let pushed = 0
  const done = (async () => {
    const t0 = Date.now()
    const per = Math.ceil((bytes.length * chunkMs) / (seconds * 1000))
    let at = 0
    while (at < bytes.length && !stopped) {
      const chunk = bytes.subarray(at, at + per)
      await push(new Uint8Array(chunk))
      at += chunk.length
      pushed = at
      const due = t0 + (at / bytes.length) * seconds * 1000
      await sleep(Math.max(0, due - Date.now()))
    }
    return at
  })()
  return {
    done,
    stop: () => (stopped = true),
    /** Seconds of media pushed so far (the file's share of its length). */
    pushedSeconds: () => (pushed / bytes.length) * seconds
  }
}

/**
 * The broadcaster's ffmpeg children still alive (pgrep on the parent pid). Only those pushing FLV: a test
 * studio runs in this same process, and its transcoders (HLS out) finish on their own clock.
 * (A zombie has no command line, so it does not match either.)
 */
export function ffmpegChildren(): Promise<number[]> {
  return new Promise((resolve) => {
    execFile('pgrep', ['-P', String(process.pid), '-f', 'ffmpeg .*-f flv '], (_e, out) =>
      resolve(out.split('\n').filter(Boolean).map(Number))
    )
  })
}

/**
 * Starts the stand-in for the app's main process (tests/fixtures/app/live-app.ts) with these arguments
 * and environment: its process (kill it when the test fails), all it printed so far, and `live`, which
 * resolves once it says LIVE (or has exited).
 */
export function startLiveApp(
  args: string[],
  env: NodeJS.ProcessEnv
): { app: ChildProcess; out: () => string; live: Promise<void> } {
  const root = resolve(__dirname, '../../..')
  const app = spawn(
    process.execPath,
    ['--import', 'tsx', join(root, 'tests/fixtures/app/live-app.ts'), ...args],
    { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] }
  )
  let out = ''
  app.stdout!.on('data', (d: Buffer) => (out += d.toString()))
  app.stderr!.on('data', (d: Buffer) => (out += d.toString()))
  const live = waitUntil(
    () => out.includes('LIVE ') || app.exitCode !== null,
    'the app to go live',
    90_000
  )
  return { app, out: () => out, live }
}

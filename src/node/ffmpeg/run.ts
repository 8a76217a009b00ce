// One ffmpeg child, supervised: started through the process-control module (tracked, no console
// window), its `-progress pipe:1` output parsed into blocks, its stderr kept as a redacted ring, and a
// stop that is graceful first ('q' on stdin: ffmpeg closes its outputs and playlists) and forced after.
// The studio's transcoders run through here; the broadcaster's supervisor uses the same parts.
import type { ChildProcess } from 'node:child_process'
import { spawnChild, stopChild, type ProcessPlatform } from '../process'
import { ProgressParser, type ProgressBlock } from './progress'
import { RedactedRing } from './stderr-ring'

export interface FfmpegRunOptions {
  /** Strings that must never appear in kept stderr (stream keys in URLs are redacted anyway). */
  secrets?: readonly string[]
  onProgress?: (b: ProgressBlock) => void
  ringLines?: number
  platform?: ProcessPlatform
}

export interface FfmpegExit {
  code: number | null
  signal: NodeJS.Signals | null
  /** Set when the binary could not be started at all (ENOENT, EACCES). */
  spawnError?: Error
}

export interface FfmpegRun {
  child: ChildProcess
  /** Resolves once ffmpeg has exited (or could not start). */
  done: Promise<FfmpegExit>
  /** The last stderr lines, redacted. */
  stderr(): string[]
  /** Graceful ('q'), then forced after graceMs. Resolves when it has exited. */
  stop(graceMs?: number): Promise<void>
}

export function runFfmpeg(
  ffmpeg: string,
  args: readonly string[],
  o: FfmpegRunOptions = {}
): FfmpegRun {
  const child = spawnChild(ffmpeg, args, {
    // stdin is ffmpeg's command line ('q' ends it in order on every OS: Windows has no SIGINT for it).
    stdio: ['pipe', 'pipe', 'pipe'],
    platform: o.platform
  })
  const ring = new RedactedRing(o.secrets ?? [], o.ringLines ?? 50)
  const parser = new ProgressParser()
  child.stderr?.on('data', (d: Buffer) => ring.write(d))
  child.stdout?.on('data', (d: Buffer) => {
    for (const b of parser.push(d)) o.onProgress?.(b)
  })
  // EPIPE on a dying ffmpeg: its exit tells what happened.
  child.stdin?.on('error', () => undefined)
  const done = new Promise<FfmpegExit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }))
    child.once('error', (spawnError) => {
      if (child.pid === undefined) resolve({ code: null, signal: null, spawnError })
    })
  })
  return {
    child,
    done,
    stderr: () => ring.snapshot(),
    async stop(graceMs = 5000) {
      if (child.pid === undefined) return
      await stopChild(child, {
        graceful: () => {
          if (child.stdin?.writable) child.stdin.end('q')
        },
        killAfterMs: graceMs,
        platform: o.platform
      })
    }
  }
}

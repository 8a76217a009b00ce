// Why an ffmpeg run ended, in words a person understands, and how long to wait before the next try.
import type { AppError } from '../../../shared/result'

export interface Backoff {
  initialMs: number
  factor: number
  capMs: number
  /** ± fraction of the delay, so many clients do not retry in lockstep. */
  jitter: number
}

/** attempt is 1-based: 1 s, 1.5 s, 2.25 s ... capped, each ± jitter (and never above the cap). */
export function backoffDelay(attempt: number, b: Backoff, random: () => number): number {
  const base = Math.min(b.capMs, b.initialMs * Math.pow(b.factor, Math.max(0, attempt - 1)))
  const jittered = base * (1 + b.jitter * (random() * 2 - 1))
  return Math.round(Math.max(0, Math.min(b.capMs, jittered)))
}

const NETWORK =
  /connection refused|connection reset|broken pipe|timed out|end of file|input\/output error|network is unreachable|no route to host|cannot open connection|server error|error writing|error number -\d+ occurred|failed to update header/i

/** ffmpeg's stderr shows trouble with the ingest rather than with the input or the arguments. */
export const looksLikeNetwork = (tail: string): boolean => NETWORK.test(tail)

export function describeExit(x: {
  spawnError?: Error
  code: number | null
  signal: NodeJS.Signals | null
  tail: string
}): AppError {
  if (x.spawnError) {
    const missing = (x.spawnError as NodeJS.ErrnoException).code === 'ENOENT'
    return missing
      ? {
          code: 'ffmpeg-missing',
          message: 'ffmpeg could not be started: the binary was not found.',
          hint: 'Set FFMPEG_PATH to an ffmpeg binary, or reinstall Onair.'
        }
      : { code: 'ffmpeg-failed', message: `ffmpeg could not be started: ${x.spawnError.message}` }
  }
  const last = x.tail.split('\n').filter(Boolean).pop()
  const how = x.signal ? `was stopped by ${x.signal}` : `exited with code ${x.code ?? '?'}`
  const network = looksLikeNetwork(x.tail)
  return {
    code: network ? 'network' : 'ffmpeg-failed',
    message: last ? `ffmpeg ${how}: ${last}` : `ffmpeg ${how}.`,
    hint: network ? 'The ingest server dropped or refused the connection.' : undefined
  }
}

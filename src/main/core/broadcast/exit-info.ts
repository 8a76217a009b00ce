// Why a broadcast's ffmpeg run ended, in words a person understands (the wait before the next try is
// shared/backoff.ts).
import type { AppError } from '../../../shared/result'

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

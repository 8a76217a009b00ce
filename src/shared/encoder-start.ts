// Why Onair's encoder process could not start, in words: main sends the cause as a state
// (EncoderStartFailure) with the OS's, the process's or its stderr's own words; the live bar
// (features/live/encoder-text.ts) and the setup guide (features/setup/setup-text.ts) put this clause
// in their sentences, and so does main's own call failure when a local recording cannot start its
// encoder (recorder.ts). Pure: both sides use it.
import type { EncoderStartFailure } from './contract'

/** "the encoder process exited (code 3): first | no x264": a clause, for a sentence around it. */
export function encoderStartText(f: EncoderStartFailure): string {
  switch (f.kind) {
    case 'busy':
      return 'the encoder is already running'
    case 'timeout':
      return 'the encoder process did not start in time'
    case 'spawn-failed':
      return `the encoder process could not start: ${f.detail}`
    case 'exited': {
      const said = f.stderr.length ? `: ${f.stderr.join(' | ')}` : ''
      return `the encoder process exited (${f.signal ?? `code ${f.code}`})${said}`
    }
    case 'refused':
    case 'stopped':
      return f.detail
  }
}

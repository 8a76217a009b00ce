// Why Onair's encoder process could not start, in words (shared/encoder-start.ts), for each state
// main sends (tests/integration/encoder/host-failures.test.ts checks the host sends them); the live
// bar and the setup guide put it in their sentences (encoder-text and setup-text tests).
import { describe, expect, it } from 'vitest'
import { encoderStartText } from '../../../src/shared/encoder-start'

describe("why Onair's encoder could not start, in words", () => {
  it('names each cause as before, with the OS, the process or its stderr words', () => {
    expect(encoderStartText({ kind: 'busy' })).toBe('the encoder is already running')
    expect(encoderStartText({ kind: 'timeout' })).toBe('the encoder process did not start in time')
    expect(encoderStartText({ kind: 'spawn-failed', detail: 'spawn /x/encoder ENOENT' })).toBe(
      'the encoder process could not start: spawn /x/encoder ENOENT'
    )
    expect(
      encoderStartText({ kind: 'exited', signal: null, code: 3, stderr: ['first', 'no x264'] })
    ).toBe('the encoder process exited (code 3): first | no x264')
    expect(encoderStartText({ kind: 'exited', signal: 'SIGKILL', code: null, stderr: [] })).toBe(
      'the encoder process exited (SIGKILL)'
    )
    expect(encoderStartText({ kind: 'refused', detail: 'x264 would not open' })).toBe(
      'x264 would not open'
    )
    expect(encoderStartText({ kind: 'stopped', detail: 'the encoder is not running' })).toBe(
      'the encoder is not running'
    )
  })
})

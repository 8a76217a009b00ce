// The local studio's trouble in words (features/connection/connection-text.ts) for each state main
// sends (tests/unit/core/studio-host-tree.test.ts checks the host sends them).
import { describe, expect, it } from 'vitest'
import { localProblemText } from '../../../src/renderer/src/features/connection/connection-text'

describe('why the local studio is down, in words', () => {
  it('says a crash with its signal or exit code, and that it restarts', () => {
    expect(localProblemText({ kind: 'crashed', signal: 'SIGKILL', code: null })).toBe(
      'The local studio stopped unexpectedly (SIGKILL); restarting.'
    )
    expect(localProblemText({ kind: 'crashed', signal: null, code: 3 })).toBe(
      'The local studio stopped unexpectedly (code 3); restarting.'
    )
  })

  it("names a studio that could not be started with the OS's words, and passes a start's failure on", () => {
    expect(localProblemText({ kind: 'not-spawned', message: 'spawn onair ENOENT.' })).toBe(
      'The local studio could not start: spawn onair ENOENT.'
    )
    const failed = 'The local studio could not start: it did not become ready in time.'
    expect(localProblemText({ kind: 'start-failed', message: failed })).toBe(failed)
  })

  it('says the studio could not start when main gave no cause', () => {
    expect(localProblemText(undefined)).toBe('The local studio could not start.')
  })
})

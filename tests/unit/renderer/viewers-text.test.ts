// The viewer count's tooltip (features/viewers/viewers-text.ts) for each state main sends
// (tests/unit/core/viewers-unavailable.test.ts checks main sends them).
import { describe, expect, it } from 'vitest'
import { unavailableText } from '../../../src/renderer/src/features/viewers/viewers-text'

describe('why the viewer count is unknown, in words', () => {
  it('names a service without counts, a key that may not read them, and passes a failure on', () => {
    expect(unavailableText({ kind: 'not-counted' })).toBe('This service does not count viewers.')
    expect(unavailableText({ kind: 'key-refused' })).toBe(
      'This API key may not read viewer counts (Livepeer gives them to private keys only).'
    )
    expect(unavailableText({ kind: 'failed', message: 'The service had a problem.' })).toBe(
      'The service had a problem.'
    )
  })
})

// A clip's state in words (features/clips/clip-text.ts) for each state main sends
// (tests/unit/core/clip-view.test.ts checks main sends them).
import { describe, expect, it } from 'vitest'
import type { ClipView } from '../../../src/shared/contract'
import { clipFailureText, clipStateText } from '../../../src/renderer/src/features/clips/clip-text'

const clip = (v: Partial<ClipView>): ClipView => ({
  id: 'c1',
  name: 'goal',
  createdAt: 1,
  state: 'waiting',
  ...v
})

describe("a clip's state, in words", () => {
  it('says waiting, cutting and ready with its length', () => {
    expect(clipStateText(clip({}))).toBe('Waiting for the last seconds to reach the service…')
    expect(clipStateText(clip({ state: 'processing' }))).toBe('Cutting…')
    expect(clipStateText(clip({ state: 'ready' }))).toBe('Ready')
    expect(clipStateText(clip({ state: 'ready', duration: 31 }))).toBe('Ready, 0:31')
  })

  it("says why it failed: the service's words, its odd phase, or that it is gone", () => {
    const failed = (failure: ClipView['failure']): string =>
      clipStateText(clip({ state: 'failed', ...(failure ? { failure } : {}) }))
    expect(failed({ kind: 'service', message: 'no media in range' })).toBe(
      'Failed: no media in range'
    )
    expect(failed({ kind: 'phase', phase: 'deleting' })).toBe(
      'Failed: The service says the clip is deleting.'
    )
    expect(failed({ kind: 'gone' })).toBe('Failed: The service says the clip is gone.')
    expect(failed(undefined)).toBe('Failed: the service gave no reason')
    // The player's words for a clip that could not be processed use the same cause.
    expect(clipFailureText({ kind: 'service', message: 'bad input' })).toBe('bad input')
  })
})

// A clip as the renderer sees it (toClipView): why a clip failed comes as a state (the service's own
// words, a phase Onair does not know, or no status at all), never main's sentence; the clips' screens
// word it (tests/unit/renderer/clip-text.test.ts).
import { describe, expect, it } from 'vitest'
import { toClipView, type ApiAsset } from '../../../src/main/core/view-models'

const asset = (status?: ApiAsset['status']): ApiAsset =>
  ({
    id: 'a1',
    name: 'goal',
    source: { type: 'clip', sourceId: 's1', sessionId: 'sess1' },
    createdAt: 1,
    ...(status ? { status } : {})
  }) as ApiAsset

describe('a failed clip, as a state', () => {
  it("carries the service's words when it gave them", () => {
    const v = toClipView(asset({ phase: 'failed', updatedAt: 2, errorMessage: 'no media in range' }))
    expect(v.state).toBe('failed')
    expect(v.failure).toEqual({ kind: 'service', message: 'no media in range' })
  })

  it('names a phase Onair does not know, and an asset with no status', () => {
    const odd = toClipView(asset({ phase: 'deleting' as 'failed', updatedAt: 2 }))
    expect(odd).toMatchObject({ state: 'failed', failure: { kind: 'phase', phase: 'deleting' } })
    expect(toClipView(asset())).toMatchObject({ state: 'failed', failure: { kind: 'gone' } })
  })

  it('has no failure while it is being made or once ready', () => {
    expect(toClipView(asset({ phase: 'processing', updatedAt: 2 })).failure).toBeUndefined()
    expect(toClipView(asset({ phase: 'ready', updatedAt: 2 })).failure).toBeUndefined()
  })
})

// The words of a session's "On this computer" row for a copy Onair's death cut off (issue 32 §4).
import { describe, expect, it } from 'vitest'
import { localCopyNote } from '../../../src/renderer/src/features/sessions/local-copy-words'

const at = (ms: number): string => `<${ms}>`

describe('localCopyNote', () => {
  it('says when the copy was cut off and, once finished, how far it plays', () => {
    expect(localCopyNote({ state: 'interrupted', cutAt: 5, durationSec: 192.4 }, at)).toBe(
      'interrupted at <5>, plays to 3:12'
    )
    expect(localCopyNote({ state: 'interrupted', cutAt: 5 }, at)).toBe(
      'interrupted at <5>, being finished'
    )
    // An index from before cutAt was kept: the words do without the time.
    expect(localCopyNote({ state: 'interrupted', durationSec: 61 }, at)).toBe(
      'interrupted when Onair closed, plays to 1:01'
    )
  })

  it('says nothing of a copy that ended in order', () => {
    expect(localCopyNote({ state: 'saved', durationSec: 10 }, at)).toBeUndefined()
    expect(localCopyNote({ state: 'recording' }, at)).toBeUndefined()
  })
})

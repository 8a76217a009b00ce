// The comparison of a session's local copy with the service's recording (#35).
import { describe, expect, it } from 'vitest'
import { compareRecording, SHORT_BY_SEC } from '../../../src/shared/uploads'

const local = 3 * 3600 + 2 * 60 + 55 // 3:02:55

describe('compareRecording', () => {
  it('calls a ready recording short when the local copy is longer by more than a few seconds', () => {
    const v = compareRecording({ record: true, recordingStatus: 'ready', durationSec: 6250 }, local)
    expect(v).toEqual({ kind: 'short', recordedSec: 6250, localSec: local })
  })

  it('calls it complete within the slack', () => {
    const near = local - SHORT_BY_SEC + 0.5
    expect(
      compareRecording({ record: true, recordingStatus: 'ready', durationSec: near }, local).kind
    ).toBe('complete')
  })

  it('names a missing, failed or pending recording', () => {
    const at = (recordingStatus: string | undefined, record = true) =>
      compareRecording({ record, recordingStatus, durationSec: 0 }, local).kind
    expect(at('failed')).toBe('failed')
    expect(at('none')).toBe('missing')
    expect(at('deleted')).toBe('missing')
    expect(at(undefined)).toBe('missing')
    expect(at('ready', false)).toBe('missing')
    expect(at('waiting')).toBe('pending')
  })
})

// The microphone's saved settings (shared/audio.ts) and the schemas that guard them and the keys
// (main/core/contract-schema.ts): what is kept, what gets its default, what is refused at the door.
import { describe, expect, it } from 'vitest'
import { DEFAULT_MIC, readMic, unapplied } from '../../../src/shared/audio'
import { CALL_ARGS } from '../../../src/main/core/contract-schema'
import { DEFAULT_HOTKEYS } from '../../../src/shared/hotkeys'

describe('microphone settings', () => {
  it('keeps what fits and gives the default for the rest', () => {
    expect(readMic(undefined)).toEqual(DEFAULT_MIC)
    const m = readMic({
      processing: { noiseSuppression: false, echoCancellation: 'no' },
      gate: { enabled: true, thresholdDb: -200 },
      pushToTalk: true
    })
    expect(m.processing).toEqual({
      noiseSuppression: false,
      echoCancellation: true,
      autoGainControl: true
    })
    expect(m.gate).toEqual({ enabled: true, thresholdDb: -80 })
    expect(m.pushToTalk).toBe(true)
  })

  it('names the switches the browser did not apply (and trusts what it does not report)', () => {
    const asked = { noiseSuppression: false, echoCancellation: false, autoGainControl: true }
    expect(unapplied(asked, { noiseSuppression: true, echoCancellation: false })).toEqual([
      'noiseSuppression'
    ])
  })

  it('is checked at the door: a threshold out of range or an unknown field is refused', () => {
    const ok = CALL_ARGS.saveSettings.safeParse([{ mic: DEFAULT_MIC }])
    expect(ok.success).toBe(true)
    const loud = { ...DEFAULT_MIC, gate: { enabled: true, thresholdDb: 5 } }
    expect(CALL_ARGS.saveSettings.safeParse([{ mic: loud }]).success).toBe(false)
    expect(CALL_ARGS.saveSettings.safeParse([{ mic: { ...DEFAULT_MIC, extra: 1 } }]).success).toBe(
      false
    )
  })
})

describe('keys at the door', () => {
  it('takes the keys of the known actions, bounded, and refuses anything else', () => {
    expect(CALL_ARGS.setHotkeys.safeParse([DEFAULT_HOTKEYS]).success).toBe(true)
    const unknown = { ...DEFAULT_HOTKEYS, bindings: { ...DEFAULT_HOTKEYS.bindings, fly: 'Alt+F' } }
    expect(CALL_ARGS.setHotkeys.safeParse([unknown]).success).toBe(false)
    const long = {
      ...DEFAULT_HOTKEYS,
      bindings: { ...DEFAULT_HOTKEYS.bindings, clip: 'Alt+'.repeat(30) + 'K' }
    }
    expect(CALL_ARGS.setHotkeys.safeParse([long]).success).toBe(false)
    expect(CALL_ARGS.setHotkeys.safeParse([{ ...DEFAULT_HOTKEYS, global: 'yes' }]).success).toBe(
      false
    )
  })
})

// The Keys panel's words for a key main could not take for the background (features/keys/key-text.ts),
// from main's answers as tests/unit/core/global-hotkeys.test.ts sees GlobalHotkeys give them.
import { describe, expect, it } from 'vitest'
import type { HotkeyFailure } from '../../../src/shared/contract'
import { describeKeyFailure } from '../../../src/renderer/src/features/keys/key-text'

describe('a key main could not take, in words', () => {
  it('names a key another app holds, with the way out', () => {
    const taken: HotkeyFailure = { action: 'mic-mute', accelerator: 'Alt+M', cause: 'taken' }
    expect(describeKeyFailure(taken, 'windows')).toBe(
      "Another app or the system already uses Alt+M, so it cannot work while Onair is in the background. Pick another key for Mute / unmute the microphone, or close the app that holds it; it still works while Onair's window is in front."
    )
  })

  it("names a key Electron cannot take on this OS, quoting Electron's words", () => {
    const refused: HotkeyFailure = {
      action: 'clip',
      accelerator: 'F24',
      cause: 'refused',
      detail: 'conversion failed'
    }
    expect(describeKeyFailure(refused, 'mac')).toBe(
      "F24 cannot be used in the background here (conversion failed). Pick another key for Clip the last 30 s, or close the app that holds it; it still works while Onair's window is in front."
    )
  })

  it('writes the key as the OS shows it', () => {
    const taken: HotkeyFailure = {
      action: 'golive-toggle',
      accelerator: 'CommandOrControl+Shift+L',
      cause: 'taken'
    }
    expect(describeKeyFailure(taken, 'mac')).toMatch(/already uses Cmd\+Shift\+L,/)
    expect(describeKeyFailure(taken, 'windows')).toMatch(/already uses Ctrl\+Shift\+L,/)
  })
})

// The Keys panel's words for a key main could not take for the background (KeysPanel.tsx shows them):
// main says which key, for which action, and why ('taken' or 'refused' with Electron's own words).
// Pure, so tested in Node. (Keys chosen twice are worded by describeConflict in shared/hotkeys.ts.)
import type { HotkeyFailure } from '../../../../shared/contract'
import { HOTKEY_INFO, displayAccelerator, type KeyPlatform } from '../../../../shared/hotkeys'

/** Why the key does not work in the background, with the way out. */
export function describeKeyFailure(f: HotkeyFailure, os: KeyPlatform): string {
  const shown = displayAccelerator(f.accelerator, os)
  const why =
    f.cause === 'taken'
      ? `Another app or the system already uses ${shown}, so it cannot work while Onair is in the background.`
      : `${shown} cannot be used in the background here (${f.detail}).`
  return `${why} Pick another key for ${HOTKEY_INFO[f.action].label}, or close the app that holds it; it still works while Onair's window is in front.`
}

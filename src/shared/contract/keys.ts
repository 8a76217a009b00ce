// Types only: how the chosen keys stand (the table of actions and the rules for keys are in
// shared/hotkeys.ts).
import type { HotkeyAction, HotkeySettings, KeyPlatform } from '../hotkeys'

/**
 * A key main could not take for the background, and why: 'taken' (another app or the system holds it)
 * or 'refused' (Electron could not take it here; detail: its own words). The Keys panel words it
 * (features/keys/key-text.ts).
 */
export type HotkeyFailure = { action: HotkeyAction; accelerator: string } & (
  { cause: 'taken' } | { cause: 'refused'; detail: string }
)

/** How the chosen keys stand: which work in the background (Electron's globalShortcut) and which not. */
export interface HotkeyStatus {
  /** The OS family keys are read for (Cmd on macOS, Ctrl elsewhere). */
  os: KeyPlatform
  /**
   * 'unavailable': this shell cannot hear keys in the background (the web shell): they work while the
   * page has focus. 'off': the creator keeps them to the focused window. 'on': registered globally.
   */
  background: 'unavailable' | 'off' | 'on'
  /** The keys registered globally (normalised accelerators), for the page not to act on them twice. */
  registered: { action: HotkeyAction; accelerator: string }[]
  failed: HotkeyFailure[]
}

export interface HotkeysView {
  settings: HotkeySettings
  status: HotkeyStatus
}

/** A key pressed while Onair was in the background (Electron's globalShortcut). */
export interface HotkeyActionEvent {
  action: HotkeyAction
}

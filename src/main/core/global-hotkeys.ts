// Keys that work while Onair is in the background (#20): the chosen keys registered with something
// shaped like Electron's globalShortcut, which the Electron shell passes in (core imports no Electron;
// the web shell passes none, and its keys work while the page has focus). Each key pressed becomes a
// 'hotkey:action' event for the renderer's hub. A key another app or the OS holds (register answers
// false, or throws for a key Electron cannot take) is reported as such (the Keys panel names it with
// the way out); keys are registered again from scratch on every change, and all of ours are let go on
// quit.
import type { HotkeyFailure, HotkeyStatus } from '../../shared/contract'
import {
  HOTKEY_ACTIONS,
  HOTKEY_INFO,
  actionsByKey,
  type HotkeyAction,
  type HotkeySettings,
  type KeyPlatform
} from '../../shared/hotkeys'

/** The part of Electron's globalShortcut used here. */
export interface GlobalShortcutLike {
  register(accelerator: string, callback: () => void): boolean
  unregister(accelerator: string): void
  unregisterAll(): void
}

export class GlobalHotkeys {
  /** The accelerators we registered (and only those are unregistered). */
  private mine: string[] = []
  private status: HotkeyStatus

  constructor(
    private readonly shortcut: GlobalShortcutLike | null,
    private readonly os: KeyPlatform,
    private readonly emit: (action: HotkeyAction) => void
  ) {
    this.status = { os, background: shortcut ? 'off' : 'unavailable', registered: [], failed: [] }
  }

  current(): HotkeyStatus {
    return structuredClone(this.status)
  }

  /** Lets go of our keys, then registers the settings' keys (when the background is asked for). */
  apply(settings: HotkeySettings): HotkeyStatus {
    this.release()
    const gs = this.shortcut
    if (!gs) return (this.status = { ...this.status, registered: [], failed: [] })
    if (!settings.global)
      return (this.status = { os: this.os, background: 'off', registered: [], failed: [] })
    const registered: HotkeyStatus['registered'] = []
    const failed: HotkeyFailure[] = []
    // Keys chosen for two actions are left out (the Keys panel names them); so are the held keys:
    // a background key has no key-up, so push-to-talk and push-to-mute work only in the window.
    for (const [accelerator, action] of actionsByKey(settings.bindings, this.os)) {
      if (HOTKEY_INFO[action].hold) continue
      let ok = false
      let refused: string | null = null
      try {
        ok = gs.register(accelerator, () => this.emit(action))
      } catch (e) {
        refused = e instanceof Error ? e.message : String(e)
      }
      if (ok) {
        this.mine.push(accelerator)
        registered.push({ action, accelerator })
      } else
        failed.push(
          refused === null
            ? { action, accelerator, cause: 'taken' }
            : { action, accelerator, cause: 'refused', detail: refused }
        )
    }
    // In the table's order, so the panel lists them as it lists the actions.
    const order = (a: HotkeyAction): number => HOTKEY_ACTIONS.indexOf(a)
    registered.sort((a, b) => order(a.action) - order(b.action))
    failed.sort((a, b) => order(a.action) - order(b.action))
    return (this.status = { os: this.os, background: 'on', registered, failed })
  }

  private release(): void {
    for (const a of this.mine) {
      try {
        this.shortcut?.unregister(a)
      } catch {
        // Already gone (the app quitting): nothing to let go.
      }
    }
    this.mine = []
  }

  /** On quit: every key this app registered is let go. */
  dispose(): void {
    this.release()
    try {
      this.shortcut?.unregisterAll()
    } catch {
      // Electron may already be tearing down.
    }
  }
}

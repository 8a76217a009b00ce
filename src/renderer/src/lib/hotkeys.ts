// The renderer's one hotkey hub (#20): every key action arrives here, from the page's own keys while it
// has focus (keydown/keyup, both shells) and from Electron's background keys ('hotkey:action' events),
// and goes to the handlers features registered with useHotkey (use-hotkeys.tsx). Newest handler first:
// one that answers false passes the key on to the one before it. Keys typed into a text field are the
// field's; a key main already hears in the background is not acted on twice.
import {
  HOTKEY_INFO,
  acceleratorFromEvent,
  actionsByKey,
  normaliseAccelerator,
  releases,
  type Bindings,
  type HotkeyAction,
  type KeyPlatform
} from '../../../shared/hotkeys'

export type HotkeySource = 'page' | 'background'

export interface HotkeyEvent {
  action: HotkeyAction
  /** 'down' for every action; held actions (push-to-talk, push-to-mute) also get 'up'. */
  phase: 'down' | 'up'
  source: HotkeySource
}

/** Answers false when it did not act (the key then goes to the handler registered before it). */
export type HotkeyHandler = (e: HotkeyEvent) => boolean | void

/** Where a key is typing, not a command: text fields, text areas, selects, editable content. */
export function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null
  if (!el || typeof el.tagName !== 'string') return false
  if (el.isContentEditable) return true
  if (el.tagName === 'TEXTAREA' || el.tagName === 'SELECT') return true
  if (el.tagName !== 'INPUT') return false
  const type = (el as HTMLInputElement).type
  return !['checkbox', 'radio', 'range', 'button', 'submit', 'reset', 'color', 'file'].includes(
    type
  )
}

export class HotkeyHub {
  os: KeyPlatform = 'linux'
  private byKey = new Map<string, HotkeyAction>()
  private background = new Set<string>()
  private handlers = new Map<HotkeyAction, HotkeyHandler[]>()
  /** Held actions and the key holding them. */
  private held = new Map<HotkeyAction, string>()
  /** While the Keys panel records a key, the hub acts on none. */
  recording = false

  /** The chosen keys (conflicting ones act on nothing), and the keys main registered in the background. */
  setBindings(bindings: Bindings, os: KeyPlatform, backgroundKeys: readonly string[] = []): void {
    this.releaseAll()
    this.os = os
    this.byKey = actionsByKey(bindings, os)
    this.background = new Set(
      backgroundKeys.map((k) => normaliseAccelerator(k, os)).filter((k): k is string => !!k)
    )
  }

  /** Registers a handler for an action; returns the way to remove it. */
  on(action: HotkeyAction, handler: HotkeyHandler): () => void {
    const list = this.handlers.get(action) ?? []
    this.handlers.set(action, [...list, handler])
    return () => {
      const now = this.handlers.get(action) ?? []
      this.handlers.set(
        action,
        now.filter((h) => h !== handler)
      )
    }
  }

  /** Gives an action to its handlers, newest first; true when one acted. */
  dispatch(action: HotkeyAction, phase: 'down' | 'up', source: HotkeySource): boolean {
    const list = this.handlers.get(action) ?? []
    for (let i = list.length - 1; i >= 0; i--)
      if (list[i]!({ action, phase, source }) !== false) return true
    return false
  }

  keydown(e: KeyboardEvent): void {
    if (this.recording || e.isComposing) return
    const key = acceleratorFromEvent(e, this.os)
    const action = key ? this.byKey.get(key) : undefined
    if (!key || !action || isTyping(e.target)) return
    // Main hears it in the background (and gives it as a 'hotkey:action' event): not twice.
    if (this.background.has(key)) return
    if (HOTKEY_INFO[action].hold) {
      e.preventDefault()
      if (e.repeat || this.held.has(action)) return
      this.held.set(action, key)
      this.dispatch(action, 'down', 'page')
      return
    }
    if (e.repeat) return e.preventDefault()
    if (this.dispatch(action, 'down', 'page')) e.preventDefault()
  }

  keyup(e: KeyboardEvent): void {
    for (const [action, key] of [...this.held])
      if (releases(key, e, this.os)) {
        this.held.delete(action)
        this.dispatch(action, 'up', 'page')
      }
  }

  /** The window lost focus: a held key's release will not be heard, so it counts as released now. */
  releaseAll(): void {
    for (const action of [...this.held.keys()]) {
      this.held.delete(action)
      this.dispatch(action, 'up', 'page')
    }
  }

  /** Listens on a window; returns the way to stop. */
  attach(win: Window): () => void {
    const down = (e: KeyboardEvent): void => this.keydown(e)
    const up = (e: KeyboardEvent): void => this.keyup(e)
    const blur = (): void => this.releaseAll()
    win.addEventListener('keydown', down)
    win.addEventListener('keyup', up)
    win.addEventListener('blur', blur)
    return () => {
      win.removeEventListener('keydown', down)
      win.removeEventListener('keyup', up)
      win.removeEventListener('blur', blur)
    }
  }
}

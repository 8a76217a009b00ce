// Keys in the background (core/global-hotkeys.ts) with a globalShortcut-shaped fake: what Electron's
// own globalShortcut would be told, and what the creator is told when a key is taken (main says which
// and why; the Keys panel's words for these answers: tests/unit/renderer/key-text.test.ts). Only Electron can
// prove that the OS delivers the key while another app has focus (see docs/architecture.md#keys).
import { describe, expect, it } from 'vitest'
import { GlobalHotkeys, type GlobalShortcutLike } from '../../../src/main/core/global-hotkeys'
import {
  DEFAULT_BINDINGS,
  type HotkeyAction,
  type HotkeySettings
} from '../../../src/shared/hotkeys'

class FakeShortcut implements GlobalShortcutLike {
  held = new Map<string, () => void>()
  /** Keys another app holds: register answers false for them, as Electron's does. */
  takenElsewhere = new Set<string>()
  calls: string[] = []
  register(accelerator: string, cb: () => void): boolean {
    this.calls.push(`register ${accelerator}`)
    if (accelerator === 'F24') throw new Error('conversion failed')
    if (this.takenElsewhere.has(accelerator) || this.held.has(accelerator)) return false
    this.held.set(accelerator, cb)
    return true
  }
  unregister(accelerator: string): void {
    this.calls.push(`unregister ${accelerator}`)
    this.held.delete(accelerator)
  }
  unregisterAll(): void {
    this.calls.push('unregisterAll')
    this.held.clear()
  }
  press(accelerator: string): void {
    this.held.get(accelerator)?.()
  }
}

const settings = (patch: Partial<HotkeySettings['bindings']>, global = true): HotkeySettings => ({
  bindings: { ...DEFAULT_BINDINGS, ...patch },
  global
})

describe('GlobalHotkeys', () => {
  it('registers the chosen keys and sends their actions', () => {
    const gs = new FakeShortcut()
    const heard: HotkeyAction[] = []
    const keys = new GlobalHotkeys(gs, 'linux', (a) => heard.push(a))
    const status = keys.apply(settings({ 'golive-toggle': 'CommandOrControl+Shift+L' }))
    expect(status.background).toBe('on')
    expect(status.failed).toEqual([])
    expect([...gs.held.keys()].sort()).toEqual(
      [
        'Alt+1',
        'Alt+2',
        'Alt+3',
        'Alt+4',
        'Alt+5',
        'Alt+6',
        'Alt+7',
        'Alt+8',
        'Alt+9',
        'Alt+M',
        'CommandOrControl+Shift+L'
      ].sort()
    )
    gs.press('CommandOrControl+Shift+L')
    gs.press('Alt+3')
    expect(heard).toEqual(['golive-toggle', 'scene-3'])
  })

  it('names a key another app holds, with the way out, and keeps the others', () => {
    const gs = new FakeShortcut()
    gs.takenElsewhere.add('Alt+M')
    const keys = new GlobalHotkeys(gs, 'windows', () => undefined)
    const status = keys.apply(settings({}))
    expect(status.failed).toHaveLength(1)
    // States, not words: the panel writes the sentence.
    expect(status.failed[0]).toEqual({ action: 'mic-mute', accelerator: 'Alt+M', cause: 'taken' })
    expect(status.registered.map((r) => r.action)).toContain('scene-1')
  })

  it('names a key Electron cannot take on this OS (register throws), and keeps the others', () => {
    const gs = new FakeShortcut()
    const keys = new GlobalHotkeys(gs, 'mac', () => undefined)
    const status = keys.apply(settings({ clip: 'F24' }))
    expect(status.failed).toEqual([
      { action: 'clip', accelerator: 'F24', cause: 'refused', detail: 'conversion failed' }
    ])
    expect(status.registered).toHaveLength(10)
  })

  it('leaves held keys and keys chosen twice out of the background', () => {
    const gs = new FakeShortcut()
    const keys = new GlobalHotkeys(gs, 'linux', () => undefined)
    keys.apply(settings({ 'push-to-talk': 'Alt+T', 'push-to-mute': 'Alt+Y', marker: 'Alt+2' }))
    expect(gs.held.has('Alt+T')).toBe(false)
    expect(gs.held.has('Alt+Y')).toBe(false)
    expect(gs.held.has('Alt+2')).toBe(false)
    expect(gs.held.has('Alt+1')).toBe(true)
  })

  it('lets go of the old keys and takes the new ones on a change, and of all of them on quit', () => {
    const gs = new FakeShortcut()
    const heard: HotkeyAction[] = []
    const keys = new GlobalHotkeys(gs, 'linux', (a) => heard.push(a))
    keys.apply(settings({}))
    keys.apply(settings({ 'mic-mute': 'F9' }))
    expect(gs.calls).toContain('unregister Alt+M')
    expect(gs.held.has('Alt+M')).toBe(false)
    gs.press('F9')
    expect(heard).toEqual(['mic-mute'])
    // Background keys switched off: nothing held.
    expect(keys.apply(settings({}, false)).background).toBe('off')
    expect(gs.held.size).toBe(0)
    keys.apply(settings({}))
    keys.dispose()
    expect(gs.held.size).toBe(0)
    expect(gs.calls.at(-1)).toBe('unregisterAll')
  })

  it('says the background is unavailable without a globalShortcut (the web shell)', () => {
    const keys = new GlobalHotkeys(null, 'linux', () => undefined)
    expect(keys.apply(settings({})).background).toBe('unavailable')
    expect(keys.current().registered).toEqual([])
    keys.dispose()
  })
})

// The keys' pure rules (shared/hotkeys.ts): reading and normalising accelerators on each OS, showing
// them, refusing keys that type, naming conflicts, and a page's key events turned into keys.
import { describe, expect, it } from 'vitest'
import {
  DEFAULT_BINDINGS,
  acceleratorFromEvent,
  actionsByKey,
  describeConflict,
  displayAccelerator,
  findConflicts,
  keyPlatform,
  keyProblem,
  normaliseAccelerator,
  readHotkeys,
  releases,
  reservedBy,
  sceneNumber,
  type Bindings,
  type KeyEventLike
} from '../../../src/shared/hotkeys'

const ev = (code: string, mods: Partial<KeyEventLike> = {}, key = ''): KeyEventLike => ({
  key,
  code,
  ctrlKey: false,
  altKey: false,
  shiftKey: false,
  metaKey: false,
  ...mods
})

describe('accelerators', () => {
  it('maps process.platform to the key family', () => {
    expect(keyPlatform('darwin')).toBe('mac')
    expect(keyPlatform('win32')).toBe('windows')
    expect(keyPlatform('linux')).toBe('linux')
    expect(keyPlatform('MacIntel')).toBe('mac')
  })

  it('normalises aliases and modifier order', () => {
    expect(normaliseAccelerator('shift+cmdorctrl+m', 'linux')).toBe('CommandOrControl+Shift+M')
    expect(normaliseAccelerator('Option+Return', 'mac')).toBe('Alt+Enter')
    expect(normaliseAccelerator('Ctrl++', 'windows')).toBe('CommandOrControl+Plus')
    expect(normaliseAccelerator('Alt+num5', 'linux')).toBe('Alt+num5')
    expect(normaliseAccelerator('F13', 'mac')).toBe('F13')
  })

  it('reads Ctrl and Cmd as the OS does: one key on Windows and Linux, two on macOS', () => {
    expect(normaliseAccelerator('Ctrl+K', 'windows')).toBe('CommandOrControl+K')
    expect(normaliseAccelerator('Ctrl+K', 'mac')).toBe('Control+K')
    expect(normaliseAccelerator('Cmd+K', 'mac')).toBe('CommandOrControl+K')
    expect(normaliseAccelerator('Cmd+K', 'windows')).toBe('Super+K')
  })

  it('refuses what is not a key', () => {
    for (const bad of ['', 'Ctrl+', 'Ctrl+Ctrl+K', 'Hyper+K', 'Alt+F25', 'x'.repeat(61), 'Alt+Foo'])
      expect(normaliseAccelerator(bad, 'linux')).toBeNull()
  })

  it('shows a key in the words of each OS', () => {
    expect(displayAccelerator('CommandOrControl+Shift+M', 'mac')).toBe('Cmd+Shift+M')
    expect(displayAccelerator('CommandOrControl+Shift+M', 'windows')).toBe('Ctrl+Shift+M')
    expect(displayAccelerator('Alt+1', 'mac')).toBe('Option+1')
    expect(displayAccelerator('Super+Up', 'windows')).toBe('Win+↑')
  })

  it('refuses keys that type without a modifier, allows function keys alone', () => {
    expect(keyProblem('M', 'linux')).toMatch(/M types text: hold Ctrl or Alt/)
    expect(keyProblem('Shift+M', 'mac')).toMatch(/Cmd, Ctrl or Option/)
    expect(keyProblem('F9', 'windows')).toBeNull()
    expect(keyProblem('Alt+M', 'windows')).toBeNull()
    expect(keyProblem('Hyper+M', 'windows')).toMatch(/not a key/)
  })

  it('names keys the OS or the browser keeps', () => {
    expect(reservedBy('Cmd+Q', 'mac')).toMatch(/quits/)
    expect(reservedBy('Ctrl+W', 'linux')).toMatch(/closes the tab/)
    expect(reservedBy('Alt+M', 'linux')).toBeNull()
  })

  it('knows which scene a scene action puts on air', () => {
    expect(sceneNumber('scene-7')).toBe(7)
    expect(sceneNumber('marker')).toBeNull()
  })
})

describe('conflicts', () => {
  const withKeys = (patch: Partial<Bindings>): Bindings => ({ ...DEFAULT_BINDINGS, ...patch })

  it('has none in the defaults', () => {
    for (const os of ['mac', 'windows', 'linux'] as const)
      expect(findConflicts(DEFAULT_BINDINGS, os)).toEqual([])
  })

  it('finds one key chosen for two actions, however it is spelled, and names both', () => {
    const b = withKeys({ 'scene-2': 'Alt+Shift+2', marker: 'shift+alt+2' })
    const c = findConflicts(b, 'linux')
    expect(c).toEqual([{ accelerator: 'Alt+Shift+2', actions: ['scene-2', 'marker'] }])
    expect(describeConflict(c[0]!, 'linux')).toBe(
      'Alt+Shift+2 is chosen for both Scene 2 and Add a marker, so it does neither: pick another key for one of them, or clear it.'
    )
    // Neither acts on it; the others still do.
    const map = actionsByKey(b, 'linux')
    expect(map.has('Alt+Shift+2')).toBe(false)
    expect(map.get('Alt+1')).toBe('scene-1')
  })

  it('finds Ctrl and CmdOrCtrl as one key on Windows only', () => {
    const b = withKeys({ clip: 'Ctrl+K', marker: 'CmdOrCtrl+K' })
    expect(findConflicts(b, 'windows')).toHaveLength(1)
    expect(findConflicts(b, 'mac')).toHaveLength(0)
  })
})

describe('key events', () => {
  it('reads the physical key, with Cmd on macOS and Ctrl elsewhere as CommandOrControl', () => {
    expect(acceleratorFromEvent(ev('KeyM', { metaKey: true, shiftKey: true }), 'mac')).toBe(
      'CommandOrControl+Shift+M'
    )
    expect(acceleratorFromEvent(ev('KeyM', { ctrlKey: true }), 'mac')).toBe('Control+M')
    expect(acceleratorFromEvent(ev('KeyM', { ctrlKey: true }), 'windows')).toBe(
      'CommandOrControl+M'
    )
    expect(acceleratorFromEvent(ev('KeyM', { metaKey: true }), 'linux')).toBe('Super+M')
    // Option+1 types "¡" on a Mac: still Alt+1.
    expect(acceleratorFromEvent(ev('Digit1', { altKey: true }, '¡'), 'mac')).toBe('Alt+1')
    expect(acceleratorFromEvent(ev('F5'), 'linux')).toBe('F5')
    expect(acceleratorFromEvent(ev('ArrowUp', { altKey: true }), 'linux')).toBe('Alt+Up')
    expect(acceleratorFromEvent(ev('Numpad3', { ctrlKey: true }), 'linux')).toBe(
      'CommandOrControl+num3'
    )
  })

  it('gives nothing for a modifier pressed alone', () => {
    expect(acceleratorFromEvent(ev('ShiftLeft', { shiftKey: true }, 'Shift'), 'linux')).toBeNull()
    expect(acceleratorFromEvent(ev('MetaLeft', { metaKey: true }, 'Meta'), 'mac')).toBeNull()
  })

  it('ends a held key when its key or one of its modifiers is let go', () => {
    expect(releases('Alt+T', ev('KeyT'), 'linux')).toBe(true)
    expect(releases('Alt+T', ev('AltLeft', {}, 'Alt'), 'linux')).toBe(true)
    expect(releases('Alt+T', ev('ShiftLeft', {}, 'Shift'), 'linux')).toBe(false)
    expect(releases('CommandOrControl+T', ev('MetaLeft', {}, 'Meta'), 'mac')).toBe(true)
    expect(releases('CommandOrControl+T', ev('ControlLeft', {}, 'Control'), 'windows')).toBe(true)
    expect(releases('Alt+T', ev('KeyR'), 'linux')).toBe(false)
  })

  it("reads a real event's fields, which are getters on its prototype (not own properties)", () => {
    class FakeEvent {
      get key() {
        return 't'
      }
      get code() {
        return 'KeyT'
      }
      ctrlKey = false
      altKey = true
      shiftKey = false
      metaKey = false
    }
    expect(releases('Alt+T', new FakeEvent(), 'linux')).toBe(true)
    expect(acceleratorFromEvent(new FakeEvent(), 'linux')).toBe('Alt+T')
  })
})

describe('saved keys', () => {
  it('keeps defaults for what the file does not name, keeps a cleared key cleared', () => {
    const s = readHotkeys({
      bindings: { 'scene-1': null, marker: 'Alt+K', clip: 'Nope+X' },
      global: true
    })
    expect(s.global).toBe(true)
    expect(s.bindings['scene-1']).toBeNull()
    expect(s.bindings['scene-2']).toBe('Alt+2')
    expect(s.bindings.marker).toBe('Alt+K')
    expect(s.bindings.clip).toBeNull()
  })

  it('gives the defaults for nothing or junk', () => {
    expect(readHotkeys(undefined)).toEqual({ bindings: DEFAULT_BINDINGS, global: false })
    expect(readHotkeys('x').bindings['mic-mute']).toBe('Alt+M')
  })
})

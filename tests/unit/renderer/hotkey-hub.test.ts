// The renderer's hotkey hub (lib/hotkeys.ts) with plain objects for key events: which handler acts,
// held keys (down and up, released on blur), repeats, typing in a field, and keys main hears itself.
import { describe, expect, it } from 'vitest'
import { HotkeyHub, isTyping, type HotkeyEvent } from '../../../src/renderer/src/lib/hotkeys'
import { DEFAULT_BINDINGS, type Bindings } from '../../../src/shared/hotkeys'

interface FakeKey {
  key: string
  code: string
  ctrlKey: boolean
  altKey: boolean
  shiftKey: boolean
  metaKey: boolean
  repeat: boolean
  isComposing: boolean
  target: unknown
  prevented: boolean
  preventDefault(): void
}
const key = (code: string, mods: Partial<FakeKey> = {}): FakeKey & KeyboardEvent =>
  ({
    key: code.replace(/^(Key|Digit)/, '').toLowerCase(),
    code,
    ctrlKey: false,
    altKey: false,
    shiftKey: false,
    metaKey: false,
    repeat: false,
    isComposing: false,
    target: null,
    prevented: false,
    preventDefault(this: FakeKey) {
      this.prevented = true
    },
    ...mods
  }) as unknown as FakeKey & KeyboardEvent

function hub(
  bindings: Bindings = { ...DEFAULT_BINDINGS, 'push-to-talk': 'Alt+T' },
  background: string[] = []
) {
  const h = new HotkeyHub()
  h.setBindings(bindings, 'linux', background)
  const heard: string[] = []
  const log = (tag: string) => (e: HotkeyEvent) =>
    void heard.push(`${tag}:${e.action}:${e.phase}:${e.source}`)
  return { h, heard, log }
}

describe('HotkeyHub', () => {
  it('gives a key to the newest handler, which may pass it on with false', () => {
    const { h, heard, log } = hub()
    h.on('scene-2', log('old'))
    const off = h.on('scene-2', (e) => (log('new')(e), false))
    const e = key('Digit2', { altKey: true })
    h.keydown(e)
    expect(heard).toEqual(['new:scene-2:down:page', 'old:scene-2:down:page'])
    expect(e.prevented).toBe(true)
    off()
    h.keydown(key('Digit2', { altKey: true }))
    expect(heard.at(-1)).toBe('old:scene-2:down:page')
  })

  it('leaves a key no handler takes to the browser, and ignores repeats of a press', () => {
    const { h, heard, log } = hub()
    const free = key('Digit5', { altKey: true })
    h.keydown(free)
    expect(free.prevented).toBe(false)
    h.on('mic-mute', log('m'))
    h.keydown(key('KeyM', { altKey: true }))
    h.keydown(key('KeyM', { altKey: true, repeat: true }))
    expect(heard).toEqual(['m:mic-mute:down:page'])
  })

  it('holds push-to-talk from key-down to key-up, and lets go when the window loses focus', () => {
    const { h, heard, log } = hub()
    h.on('push-to-talk', log('t'))
    h.keydown(key('KeyT', { altKey: true }))
    h.keydown(key('KeyT', { altKey: true, repeat: true }))
    h.keyup(key('AltLeft'))
    expect(heard).toEqual(['t:push-to-talk:down:page', 't:push-to-talk:up:page'])
    h.keydown(key('KeyT', { altKey: true }))
    h.releaseAll()
    expect(heard.slice(2)).toEqual(['t:push-to-talk:down:page', 't:push-to-talk:up:page'])
  })

  it('leaves keys typed into a text field to the field', () => {
    const { h, heard, log } = hub()
    h.on('scene-1', log('s'))
    h.keydown(key('Digit1', { altKey: true, target: { tagName: 'INPUT', type: 'text' } }))
    h.keydown(key('Digit1', { altKey: true, target: { tagName: 'INPUT', type: 'range' } }))
    expect(heard).toEqual(['s:scene-1:down:page'])
    expect(isTyping({ tagName: 'DIV', isContentEditable: true } as unknown as EventTarget)).toBe(
      true
    )
    expect(isTyping({ tagName: 'TEXTAREA' } as unknown as EventTarget)).toBe(true)
    expect(isTyping({ tagName: 'BUTTON' } as unknown as EventTarget)).toBe(false)
  })

  it('does not act twice on a key main hears in the background, and acts on its event', () => {
    const { h, heard, log } = hub(DEFAULT_BINDINGS, ['Alt+1'])
    h.on('scene-1', log('s'))
    h.keydown(key('Digit1', { altKey: true }))
    expect(heard).toEqual([])
    h.dispatch('scene-1', 'down', 'background')
    expect(heard).toEqual(['s:scene-1:down:background'])
  })

  it('acts on no key while the Keys screen records one, nor on a key chosen twice', () => {
    const { h, heard, log } = hub({ ...DEFAULT_BINDINGS, marker: 'Alt+2' })
    h.on('scene-2', log('s'))
    h.on('marker', log('m'))
    h.keydown(key('Digit2', { altKey: true }))
    h.on('scene-1', log('s'))
    h.recording = true
    h.keydown(key('Digit1', { altKey: true }))
    expect(heard).toEqual([])
  })
})

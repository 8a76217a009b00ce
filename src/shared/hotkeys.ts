// Keys (#20): the one table of actions a key can do, the keys chosen for them (in Electron's
// accelerator syntax, "CommandOrControl+Shift+M"), and the pure rules around them: reading, normalising
// and showing a key on each OS, naming conflicts, and turning a KeyboardEvent into a key. The Electron
// shell registers these keys with globalShortcut (main/core/global-hotkeys.ts); the renderer's hub
// (renderer/src/lib/hotkeys.ts) hears them while the page has focus. No DOM, no Node.

/** The scene keys, scene 1 to scene 9. */
export const SCENE_ACTIONS = [
  'scene-1',
  'scene-2',
  'scene-3',
  'scene-4',
  'scene-5',
  'scene-6',
  'scene-7',
  'scene-8',
  'scene-9'
] as const

export const HOTKEY_ACTIONS = [
  'golive-toggle',
  'record-toggle',
  ...SCENE_ACTIONS,
  'transition',
  'mic-mute',
  'push-to-talk',
  'push-to-mute',
  'marker',
  'clip'
] as const
export type HotkeyAction = (typeof HOTKEY_ACTIONS)[number]

/** What each action is called on the Keys panel, and whether it acts while held (press and release). */
export const HOTKEY_INFO: Record<HotkeyAction, { label: string; hold?: true }> = {
  'golive-toggle': { label: 'Go live / Stop' },
  'record-toggle': { label: 'Record / Stop recording' },
  'scene-1': { label: 'Scene 1' },
  'scene-2': { label: 'Scene 2' },
  'scene-3': { label: 'Scene 3' },
  'scene-4': { label: 'Scene 4' },
  'scene-5': { label: 'Scene 5' },
  'scene-6': { label: 'Scene 6' },
  'scene-7': { label: 'Scene 7' },
  'scene-8': { label: 'Scene 8' },
  'scene-9': { label: 'Scene 9' },
  transition: { label: 'Studio mode: Transition (preview to program)' },
  'mic-mute': { label: 'Mute / unmute the microphone' },
  'push-to-talk': { label: 'Push to talk (hold)', hold: true },
  'push-to-mute': { label: 'Push to mute (hold)', hold: true },
  marker: { label: 'Add a marker' },
  clip: { label: 'Clip the last 30 s' }
}

/** The scene a scene-N action puts on air (1-based), or null for other actions. */
export function sceneNumber(action: HotkeyAction): number | null {
  const m = /^scene-(\d)$/.exec(action)
  return m ? Number(m[1]) : null
}

export type Bindings = Record<HotkeyAction, string | null>

export interface HotkeySettings {
  /** The key of each action (an accelerator), or null when it has none. */
  bindings: Bindings
  /**
   * Electron only: the keys also work while Onair is in the background (globalShortcut). Off by
   * default: a background key is taken from every other app while Onair runs.
   */
  global: boolean
}

/** Alt+1..9 for the scenes (as before #20) and Alt+M for the microphone; the rest are the creator's. */
export const DEFAULT_BINDINGS: Bindings = {
  'golive-toggle': null,
  'record-toggle': null,
  'scene-1': 'Alt+1',
  'scene-2': 'Alt+2',
  'scene-3': 'Alt+3',
  'scene-4': 'Alt+4',
  'scene-5': 'Alt+5',
  'scene-6': 'Alt+6',
  'scene-7': 'Alt+7',
  'scene-8': 'Alt+8',
  'scene-9': 'Alt+9',
  transition: null,
  'mic-mute': 'Alt+M',
  'push-to-talk': null,
  'push-to-mute': null,
  marker: null,
  clip: null
}

export const DEFAULT_HOTKEYS: HotkeySettings = { bindings: DEFAULT_BINDINGS, global: false }

/** The longest accelerator kept (Electron's longest real one is far shorter). */
export const MAX_ACCELERATOR = 60

// ---- accelerators --------------------------------------------------------------------------------

/** The OS families whose keys differ: Command on macOS, Control elsewhere. */
export type KeyPlatform = 'mac' | 'windows' | 'linux'

/** process.platform (or a browser's guess) to the key family. */
export const keyPlatform = (platform: string): KeyPlatform =>
  platform === 'darwin' || /^mac/i.test(platform)
    ? 'mac'
    : platform === 'win32' || /^win/i.test(platform)
      ? 'windows'
      : 'linux'

export type Modifier = 'CommandOrControl' | 'Control' | 'Alt' | 'Shift' | 'Super'
/** The order modifiers are written in. */
const MODIFIER_ORDER: readonly Modifier[] = ['CommandOrControl', 'Control', 'Alt', 'Shift', 'Super']

export interface ParsedKey {
  modifiers: Modifier[]
  /** The key itself, in Electron's spelling: "M", "1", "F5", "Space", "Up", "num1"... */
  key: string
}

/**
 * A modifier's spelling to what it means on an OS. Cmd/Command is Command on macOS and Super (the
 * Windows or Super key) elsewhere; Ctrl/Control is Control on macOS and the same as CommandOrControl
 * elsewhere, so "Ctrl+K" and "CmdOrCtrl+K" are one key on Windows and Linux but two on macOS.
 */
function modifierOf(word: string, os: KeyPlatform): Modifier | null {
  switch (word.toLowerCase()) {
    case 'commandorcontrol':
    case 'cmdorctrl':
      return 'CommandOrControl'
    case 'command':
    case 'cmd':
    case 'super':
    case 'meta':
      return os === 'mac' ? 'CommandOrControl' : 'Super'
    case 'control':
    case 'ctrl':
      return os === 'mac' ? 'Control' : 'CommandOrControl'
    case 'alt':
    case 'option':
    case 'altgr':
      return 'Alt'
    case 'shift':
      return 'Shift'
    default:
      return null
  }
}

const NAMED_KEYS: Record<string, string> = {
  plus: 'Plus',
  space: 'Space',
  tab: 'Tab',
  capslock: 'Capslock',
  numlock: 'Numlock',
  scrolllock: 'Scrolllock',
  backspace: 'Backspace',
  delete: 'Delete',
  insert: 'Insert',
  return: 'Enter',
  enter: 'Enter',
  up: 'Up',
  down: 'Down',
  left: 'Left',
  right: 'Right',
  home: 'Home',
  end: 'End',
  pageup: 'PageUp',
  pagedown: 'PageDown',
  escape: 'Escape',
  esc: 'Escape',
  volumeup: 'VolumeUp',
  volumedown: 'VolumeDown',
  volumemute: 'VolumeMute',
  medianexttrack: 'MediaNextTrack',
  mediaprevioustrack: 'MediaPreviousTrack',
  mediastop: 'MediaStop',
  mediaplaypause: 'MediaPlayPause',
  printscreen: 'PrintScreen',
  numdec: 'numdec',
  numadd: 'numadd',
  numsub: 'numsub',
  nummult: 'nummult',
  numdiv: 'numdiv'
}
const PUNCTUATION = new Set([...')!@#$%^&*(:;<>=,-_.?/~`{}[]|\\\'"'])

function keyOf(word: string): string | null {
  if (/^[a-z]$/i.test(word)) return word.toUpperCase()
  if (/^[0-9]$/.test(word)) return word
  if (/^f([1-9]|1[0-9]|2[0-4])$/i.test(word)) return word.toUpperCase()
  if (/^num[0-9]$/i.test(word)) return word.toLowerCase()
  if (PUNCTUATION.has(word)) return word
  return NAMED_KEYS[word.toLowerCase()] ?? null
}

/** An accelerator read for an OS (aliases resolved, modifiers ordered), or null when it is not one. */
export function parseAccelerator(text: string, os: KeyPlatform): ParsedKey | null {
  if (typeof text !== 'string' || !text || text.length > MAX_ACCELERATOR) return null
  // "Plus" is the + key; a trailing "++" (Ctrl++) means the same.
  const parts = text.endsWith('++') ? [...text.slice(0, -2).split('+'), 'Plus'] : text.split('+')
  const words = parts.map((p) => p.trim())
  const last = words.pop()
  if (!last) return null
  const key = keyOf(last)
  if (!key) return null
  const mods = new Set<Modifier>()
  for (const w of words) {
    const m = modifierOf(w, os)
    if (!m || mods.has(m)) return null
    mods.add(m)
  }
  return { modifiers: MODIFIER_ORDER.filter((m) => mods.has(m)), key }
}

export const formatAccelerator = (p: ParsedKey): string => [...p.modifiers, p.key].join('+')

/** The one spelling of a key on an OS (what conflicts are found by), or null when it is not a key. */
export function normaliseAccelerator(text: string, os: KeyPlatform): string | null {
  const p = parseAccelerator(text, os)
  return p ? formatAccelerator(p) : null
}

const MODIFIER_NAMES: Record<KeyPlatform, Record<Modifier, string>> = {
  mac: { CommandOrControl: 'Cmd', Control: 'Ctrl', Alt: 'Option', Shift: 'Shift', Super: 'Cmd' },
  windows: { CommandOrControl: 'Ctrl', Control: 'Ctrl', Alt: 'Alt', Shift: 'Shift', Super: 'Win' },
  linux: { CommandOrControl: 'Ctrl', Control: 'Ctrl', Alt: 'Alt', Shift: 'Shift', Super: 'Super' }
}
const KEY_NAMES: Record<string, string> = { Plus: '+', Up: '↑', Down: '↓', Left: '←', Right: '→' }

/** A key as the creator reads it on their OS: "Cmd+Shift+M" on macOS, "Ctrl+Shift+M" elsewhere. */
export function displayAccelerator(text: string, os: KeyPlatform): string {
  const p = parseAccelerator(text, os)
  if (!p) return text
  const key = KEY_NAMES[p.key] ?? (/^num\d$/.test(p.key) ? `Num ${p.key.slice(3)}` : p.key)
  return [...p.modifiers.map((m) => MODIFIER_NAMES[os][m]), key].join('+')
}

/** Keys that are fine without a modifier: they type nothing. */
const BARE_OK = /^(F\d+|Volume\w+|Media\w+|PrintScreen)$/

/**
 * Why a key cannot be chosen, in the creator's words, or null when it can: a key that types (a letter,
 * a digit, Space...) needs Ctrl, Alt or Cmd, or it would be taken from every text field.
 */
export function keyProblem(text: string, os: KeyPlatform): string | null {
  const p = parseAccelerator(text, os)
  if (!p) return `"${text}" is not a key Onair knows.`
  const strong = p.modifiers.filter((m) => m !== 'Shift')
  if (!strong.length && !BARE_OK.test(p.key)) {
    const mods = os === 'mac' ? 'Cmd, Ctrl or Option' : 'Ctrl or Alt'
    return `${displayAccelerator(text, os)} types text: hold ${mods} with it.`
  }
  return null
}

/** Keys the OS (or a browser tab) keeps for itself: a page never hears them, and a global one fails. */
const RESERVED: Record<KeyPlatform, Record<string, string>> = {
  mac: {
    'CommandOrControl+Q': 'macOS quits the app with it',
    'CommandOrControl+W': 'macOS closes the window with it',
    'CommandOrControl+Tab': 'macOS switches apps with it',
    'CommandOrControl+Space': 'macOS opens Spotlight with it',
    'CommandOrControl+H': 'macOS hides the app with it'
  },
  windows: {
    'Alt+F4': 'Windows closes the window with it',
    'Alt+Tab': 'Windows switches apps with it',
    'CommandOrControl+Alt+Delete': 'Windows keeps it',
    'Super+L': 'Windows locks the computer with it',
    'CommandOrControl+W': 'the browser closes the tab with it',
    'CommandOrControl+T': 'the browser opens a tab with it',
    'CommandOrControl+N': 'the browser opens a window with it'
  },
  linux: {
    'Alt+F4': 'the desktop closes the window with it',
    'Alt+Tab': 'the desktop switches apps with it',
    'CommandOrControl+Alt+Delete': 'the desktop keeps it',
    'CommandOrControl+W': 'the browser closes the tab with it',
    'CommandOrControl+T': 'the browser opens a tab with it',
    'CommandOrControl+N': 'the browser opens a window with it'
  }
}

/** Who keeps a key already ("macOS quits the app with it"), or null. */
export function reservedBy(text: string, os: KeyPlatform): string | null {
  const n = normaliseAccelerator(text, os)
  return (n && RESERVED[os][n]) ?? null
}

// ---- conflicts -------------------------------------------------------------------------------------

/** One key chosen for two or more actions: none of them acts on it until the creator picks again. */
export interface KeyConflict {
  accelerator: string
  actions: HotkeyAction[]
}

/** The keys chosen for more than one action (compared as the OS reads them). */
export function findConflicts(bindings: Bindings, os: KeyPlatform): KeyConflict[] {
  const byKey = new Map<string, HotkeyAction[]>()
  for (const action of HOTKEY_ACTIONS) {
    const b = bindings[action]
    const n = b ? normaliseAccelerator(b, os) : null
    if (!n) continue
    byKey.set(n, [...(byKey.get(n) ?? []), action])
  }
  return [...byKey.entries()]
    .filter(([, actions]) => actions.length > 1)
    .map(([accelerator, actions]) => ({ accelerator, actions }))
}

/** A conflict in the creator's words, with the way out. */
export function describeConflict(c: KeyConflict, os: KeyPlatform): string {
  const names = c.actions.map((a) => HOTKEY_INFO[a].label)
  const list =
    names.length === 2
      ? names.join(' and ')
      : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`
  return `${displayAccelerator(c.accelerator, os)} is chosen for both ${list}, so it does neither: pick another key for one of them, or clear it.`
}

/** The action each key does (normalised key to action), leaving out keys in conflict. */
export function actionsByKey(bindings: Bindings, os: KeyPlatform): Map<string, HotkeyAction> {
  const clash = new Set(findConflicts(bindings, os).map((c) => c.accelerator))
  const map = new Map<string, HotkeyAction>()
  for (const action of HOTKEY_ACTIONS) {
    const b = bindings[action]
    const n = b ? normaliseAccelerator(b, os) : null
    if (n && !clash.has(n)) map.set(n, action)
  }
  return map
}

// ---- the page's keys -------------------------------------------------------------------------------

/** The parts of a KeyboardEvent read here (so this stays free of the DOM). */
export interface KeyEventLike {
  key: string
  code: string
  ctrlKey: boolean
  altKey: boolean
  shiftKey: boolean
  metaKey: boolean
}

const CODE_KEYS: Record<string, string> = {
  Space: 'Space',
  Tab: 'Tab',
  Enter: 'Enter',
  NumpadEnter: 'Enter',
  Backspace: 'Backspace',
  Delete: 'Delete',
  Insert: 'Insert',
  ArrowUp: 'Up',
  ArrowDown: 'Down',
  ArrowLeft: 'Left',
  ArrowRight: 'Right',
  Home: 'Home',
  End: 'End',
  PageUp: 'PageUp',
  PageDown: 'PageDown',
  Escape: 'Escape',
  PrintScreen: 'PrintScreen',
  Minus: '-',
  Equal: '=',
  BracketLeft: '[',
  BracketRight: ']',
  Backslash: '\\',
  Semicolon: ';',
  Quote: "'",
  Comma: ',',
  Period: '.',
  Slash: '/',
  Backquote: '`',
  NumpadDecimal: 'numdec',
  NumpadAdd: 'numadd',
  NumpadSubtract: 'numsub',
  NumpadMultiply: 'nummult',
  NumpadDivide: 'numdiv',
  AudioVolumeUp: 'VolumeUp',
  AudioVolumeDown: 'VolumeDown',
  AudioVolumeMute: 'VolumeMute',
  MediaTrackNext: 'MediaNextTrack',
  MediaTrackPrevious: 'MediaPreviousTrack',
  MediaStop: 'MediaStop',
  MediaPlayPause: 'MediaPlayPause'
}
const MODIFIER_CODES = /^(Shift|Control|Alt|Meta|OS|AltGraph|CapsLock)/

/**
 * The key a key event is, in the accelerator syntax, or null for a modifier pressed on its own.
 * The physical key (e.code) is read, not the character: Option+1 on a Mac types "¡" but is Alt+1.
 * Cmd on macOS and Ctrl elsewhere are written CommandOrControl, so a chosen key moves between OSes.
 */
export function acceleratorFromEvent(e: KeyEventLike, os: KeyPlatform): string | null {
  if (MODIFIER_CODES.test(e.code) || MODIFIER_CODES.test(e.key)) return null
  let key: string | null = null
  const code = e.code
  if (/^Key[A-Z]$/.test(code)) key = code.slice(3)
  else if (/^Digit[0-9]$/.test(code)) key = code.slice(5)
  else if (/^Numpad[0-9]$/.test(code)) key = `num${code.slice(6)}`
  else if (/^F([1-9]|1[0-9]|2[0-4])$/.test(code)) key = code
  else if (CODE_KEYS[code]) key = CODE_KEYS[code]
  else if (e.key.length === 1) key = keyOf(e.key.toUpperCase())
  if (!key) return null
  const mods: Modifier[] = []
  if (os === 'mac') {
    if (e.metaKey) mods.push('CommandOrControl')
    if (e.ctrlKey) mods.push('Control')
  } else {
    if (e.ctrlKey) mods.push('CommandOrControl')
  }
  if (e.altKey) mods.push('Alt')
  if (e.shiftKey) mods.push('Shift')
  if (os !== 'mac' && e.metaKey) mods.push('Super')
  return formatAccelerator({ modifiers: MODIFIER_ORDER.filter((m) => mods.includes(m)), key })
}

/**
 * Whether a key-up ends a held key: its own key, or one of its modifiers, let go (the creator may
 * lift Alt before T).
 */
export function releases(accelerator: string, e: KeyEventLike, os: KeyPlatform): boolean {
  const p = parseAccelerator(accelerator, os)
  if (!p) return false
  // Named one by one: a DOM event's fields are getters, which a spread would not copy.
  const bare = {
    key: e.key,
    code: e.code,
    ctrlKey: false,
    altKey: false,
    shiftKey: false,
    metaKey: false
  }
  const up = acceleratorFromEvent(bare, os)
  if (up === p.key) return true
  const code = e.code || e.key
  const lifted: Modifier[] = code.startsWith('Shift')
    ? ['Shift']
    : code.startsWith('Alt')
      ? ['Alt']
      : code.startsWith('Control')
        ? [os === 'mac' ? 'Control' : 'CommandOrControl']
        : code.startsWith('Meta') || code.startsWith('OS')
          ? [os === 'mac' ? 'CommandOrControl' : 'Super']
          : []
  return lifted.some((m) => p.modifiers.includes(m))
}

// ---- reading saved keys ----------------------------------------------------------------------------

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null

/**
 * Saved keys, cleaned: an action the file does not name keeps its default key, an explicit null stays
 * cleared, a key that does not parse is dropped (the action gets none). Stored in the OS-neutral
 * spelling as written (conflicts are found per OS, when read).
 */
export function readHotkeys(saved: unknown): HotkeySettings {
  if (!isObj(saved)) return DEFAULT_HOTKEYS
  const given = isObj(saved.bindings) ? saved.bindings : {}
  const bindings = { ...DEFAULT_BINDINGS }
  for (const action of HOTKEY_ACTIONS) {
    if (!(action in given)) continue
    const v = given[action]
    // Parsed for Linux only to check the words: every OS knows the same words.
    bindings[action] = typeof v === 'string' && parseAccelerator(v, 'linux') ? v : null
  }
  return { bindings, global: saved.global === true }
}

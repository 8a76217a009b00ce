import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  CAMERA_ID,
  DEFAULT_MIX,
  DEFAULT_TEXT,
  IMAGE_STEP,
  MAX_GAIN,
  DEFAULT_TRANSITION,
  LIMITS,
  TITLE_RECT,
  activeScene,
  addImage,
  addScene,
  addText,
  applyLayout,
  cameraCaptureScale,
  defaultScenes,
  deleteScene,
  editText,
  itemsOf,
  layersOf,
  moveItem,
  needs,
  removeItem,
  renameScene,
  setItemVisible,
  setChannel,
  setPip,
  setTransition,
  switchScene,
  transitionMs,
  type ScenesState
} from '../../../src/shared/scenes'
import { readScenes } from '../../../src/shared/scenes-saved'
import { CALL_ARGS } from '../../../src/main/core/contract-schema'
import { SettingsStore } from '../../../src/main/core/settings-store'
import type { Rect } from '../../../src/shared/scene-layout'

const A = 16 / 9
/** Whether a scene's needs hold any camera, any screen. */
const shows = (n: ReturnType<typeof needs>) => ({
  camera: n.cameras.length > 0,
  screen: n.screens.length > 0
})
const FILE = `${'ab'.repeat(32)}.png`

/** The item of a kind in the active scene, with its source. */
const itemOf = (s: ScenesState, kind: string) =>
  itemsOf(s, activeScene(s)).find((x) => x.source.kind === kind)
const layers = (s: ScenesState) => s.scenes.map((sc) => layersOf(s, sc))

describe('ready layouts', () => {
  const base = defaultScenes(A)

  it('the defaults are the everyday scenes, each stored with its layout', () => {
    expect(base.scenes.map((s) => s.name)).toEqual([
      'Screen + camera',
      'Camera',
      'Screen',
      'Side by side'
    ])
    expect(base.scenes.map((s) => s.layout)).toEqual([
      'pip',
      'camera-full',
      'screen-full',
      'side-by-side'
    ])
    expect(base.activeId).toBe(base.scenes[0]!.id)
    // The camera and the screen are defined once; every scene's items point at them.
    expect(base.sources.map((s) => s.kind)).toEqual(['camera', 'screen'])
    expect(base.transition).toEqual({ kind: 'dissolve', durationMs: 300 })
  })

  it('PiP draws the camera over the screen, in the chosen corner and size', () => {
    const pip = setPip(base, { corner: 'top-left', size: 0.2 }, A)
    const kinds = itemsOf(pip, activeScene(pip)).map((x) => x.source.kind)
    expect(kinds.indexOf('camera')).toBeGreaterThan(kinds.indexOf('screen'))
    const cam = itemOf(pip, 'camera')!.item
    expect(cam.rect.w).toBe(0.2)
    expect(cam.rect.x).toBeLessThan(0.1)
    expect(cam.rect.y).toBeLessThan(0.1)
    expect(activeScene(pip).pip).toEqual({ corner: 'top-left', size: 0.2 })
    expect(activeScene(pip).layout).toBe('pip')
  })

  it('the camera is captured at half size while every scene on air shows it at most half wide', () => {
    const [pip, camera, screen, sideBySide] = layers(base)
    expect(cameraCaptureScale([pip!])).toBe(0.5)
    expect(cameraCaptureScale([sideBySide!])).toBe(0.5)
    expect(cameraCaptureScale([camera!])).toBe(1)
    expect(cameraCaptureScale([screen!])).toBe(0)
    // Dissolving from the full camera into PiP, the full camera still needs the full size.
    expect(cameraCaptureScale([pip!, camera!])).toBe(1)
    // A big PiP, or a camera box dragged wider than half the output, needs the full size.
    const big = setPip(base, { corner: 'top-left', size: 0.6 }, A)
    expect(cameraCaptureScale([layersOf(big, activeScene(big))])).toBe(1)
    // A hidden camera counts for nothing.
    const onCamera = switchScene(base, base.scenes[1]!.id)
    const hidden = setItemVisible(onCamera, itemOf(onCamera, 'camera')!.item.id, false)
    expect(cameraCaptureScale([layersOf(hidden, activeScene(hidden))])).toBe(0)
  })

  it('a layout keeps texts and images above the pictures, and ids stable', () => {
    const withTitle = addText(base)
    const title = itemOf(withTitle, 'text')!
    const full = applyLayout(withTitle, 'camera-full', A)
    const items = activeScene(full).items
    expect(items.at(-1)).toEqual(title.item)
    expect(title.item.rect).toEqual(TITLE_RECT)
    expect(title.source).toMatchObject(DEFAULT_TEXT)
    expect(
      items
        .filter((i) => i.id !== title.item.id)
        .map((i) => i.id)
        .sort()
    ).toEqual(
      activeScene(base)
        .items.map((i) => i.id)
        .sort()
    )
    // The screen is hidden, not removed: going back to PiP finds it again.
    expect(itemOf(full, 'screen')?.item.visible).toBe(false)
    expect(shows(needs(full, activeScene(full)))).toEqual({ camera: true, screen: false })
    const screenFull = applyLayout(full, 'screen-full', A)
    expect(shows(needs(screenFull, activeScene(screenFull)))).toEqual({
      camera: false,
      screen: true
    })
    expect(activeScene(screenFull).layout).toBe('screen-full')
  })

  it('a picture moved by hand is no longer a ready layout; a text moved keeps it', () => {
    const cam = itemOf(base, 'camera')!.item
    const moved = moveItem(base, cam.id, { ...cam.rect, x: 0.3 })
    expect(activeScene(moved).layout).toBeNull()
    expect(itemOf(moved, 'camera')!.item.rect.x).toBe(0.3)
    const titled = addText(base)
    const t = itemOf(titled, 'text')!.item
    expect(activeScene(moveItem(titled, t.id, { ...t.rect, y: 0.1 })).layout).toBe('pip')
  })
})

describe('reducers', () => {
  const base = defaultScenes(A)

  it('adds, renames, switches and deletes scenes; never the last one', () => {
    const added = addScene(base, A)
    expect(added.scenes).toHaveLength(5)
    expect(activeScene(added).name).toBe('Scene 5')
    expect(activeScene(added).layout).toBe('pip')
    expect(activeScene(renameScene(added, '  ', true)).name).toBe('Scene')
    expect(activeScene(renameScene(added, 'Intro')).name).toBe('Intro')
    expect(deleteScene(added).scenes).toHaveLength(4)
    expect(switchScene(base, 'nope')).toBe(base)
    let one = base
    for (let i = 0; i < 5; i++) one = deleteScene(one)
    expect(one.scenes).toHaveLength(1)
    let many = base
    for (let i = 0; i < LIMITS.scenes + 2; i++) many = addScene(many, A)
    expect(many.scenes).toHaveLength(LIMITS.scenes)
    // Every scene full of titles: still within the sources the schema takes, and saved.
    expect(LIMITS.sources).toBe(LIMITS.scenes * LIMITS.itemsPerScene)
    for (const sc of many.scenes)
      for (let i = 0; i < LIMITS.itemsPerScene; i++) many = addText(switchScene(many, sc.id))
    expect(many.scenes.every((sc) => sc.items.length === LIMITS.itemsPerScene)).toBe(true)
    expect(CALL_ARGS.saveSettings.safeParse([{ scenes: many }]).success).toBe(true)
  })

  it('a text is one source: edited once, removed with its last item', () => {
    const s = addText(base)
    const { item, source } = itemOf(s, 'text')!
    const edited = editText(s, source.id, { text: 'Hello', size: 9999 })
    expect(itemOf(edited, 'text')!.source).toMatchObject({ text: 'Hello', size: DEFAULT_TEXT.size })
    const gone = removeItem(edited, item.id)
    expect(itemOf(gone, 'text')).toBeUndefined()
    expect(gone.sources.map((x) => x.kind)).toEqual(['camera', 'screen'])
  })

  it('images: placed top right, at most LIMITS.images, gone with their last item', () => {
    let s = addImage(base, { name: 'logo.png', file: FILE, width: 200, height: 100 }, A)
    const img = itemOf(s, 'image')!
    expect(img.item.rect.x + img.item.rect.w).toBeCloseTo(0.97, 6)
    expect(img.source).toMatchObject({ name: 'logo.png', file: FILE })
    for (let i = 0; i < LIMITS.images + 2; i++)
      s = addImage(
        switchScene(s, s.scenes[i % 4]!.id),
        { name: 'x', file: FILE, width: 1, height: 1 },
        A
      )
    expect(s.sources.filter((x) => x.kind === 'image')).toHaveLength(LIMITS.images)
    const one = addImage(base, { name: 'logo.png', file: FILE, width: 200, height: 100 }, A)
    expect(removeItem(one, itemOf(one, 'image')!.item.id).sources).toHaveLength(2)
  })

  it('a second image is placed a step from the first, not on it; the steps stay inside the picture', () => {
    const logo = { name: 'logo.png', file: FILE, width: 200, height: 100 }
    const one = addImage(base, logo, A)
    const two = addImage(one, { ...logo, name: 'badge.png' }, A)
    const rects = itemsOf(two, activeScene(two))
      .filter((x) => x.source.kind === 'image')
      .map((x) => x.item.rect)
    expect(rects).toHaveLength(2)
    const [a, b] = rects as [Rect, Rect]
    expect(b.x).toBeCloseTo(a.x - IMAGE_STEP, 9)
    expect(b.y).toBeCloseTo(a.y + IMAGE_STEP, 9)
    expect(b.w).toBeCloseTo(a.w, 9)
    // Another scene's images do not push this scene's first one.
    const other = addImage(switchScene(two, two.scenes[1]!.id), logo, A)
    expect(itemOf(other, 'image')!.item.rect).toEqual(a)
    // A tall picture near the limit still fits in the output.
    let s = base
    for (let i = 0; i < LIMITS.images; i++) s = addImage(s, { ...logo, width: 10, height: 1000 }, A)
    for (const { item } of itemsOf(s, activeScene(s)).filter((x) => x.source.kind === 'image')) {
      expect(item.rect.x).toBeGreaterThanOrEqual(0)
      expect(item.rect.y + item.rect.h).toBeLessThanOrEqual(1 + 1e-9)
    }
  })

  it('mixer levels and mutes belong to the scene: set in one, the others keep theirs', () => {
    expect(activeScene(base).mix).toEqual(DEFAULT_MIX)
    const a = base.scenes[0]!.id
    const b = base.scenes[1]!.id
    let s = setChannel(base, 'mic', { gain: 0.4 })
    s = setChannel(s, 'screen', { muted: true })
    expect(activeScene(s).mix).toEqual({
      mic: { gain: 0.4, muted: false },
      screen: { gain: 1, muted: true }
    })
    s = switchScene(s, b)
    expect(activeScene(s).mix).toEqual(DEFAULT_MIX)
    s = setChannel(s, 'mic', { muted: true, gain: 99 })
    expect(activeScene(s).mix.mic).toEqual({ gain: MAX_GAIN, muted: true })
    expect(setChannel(s, 'mic', { gain: -1 }).scenes[1]!.mix.mic.gain).toBe(0)
    expect(setChannel(s, 'mic', { gain: Number.NaN }).scenes[1]!.mix.mic.gain).toBe(1)
    s = switchScene(s, a)
    expect(activeScene(s).mix.mic).toEqual({ gain: 0.4, muted: false })
    // Saved and read back; the settings schema takes it.
    expect(readScenes(JSON.parse(JSON.stringify(s)), A)).toEqual(s)
    expect(CALL_ARGS.saveSettings.safeParse([{ scenes: s }]).success).toBe(true)
  })

  it('scenes saved before mixes were kept get the default mix; a broken level falls back', () => {
    const saved = JSON.parse(JSON.stringify(base)) as { scenes: Record<string, unknown>[] }
    delete saved.scenes[0]!.mix
    saved.scenes[1]!.mix = { mic: { gain: 7, muted: 'yes' }, screen: 'loud' }
    const read = readScenes(saved, A)
    expect(read.scenes[0]!.mix).toEqual(DEFAULT_MIX)
    expect(read.scenes[1]!.mix).toEqual(DEFAULT_MIX)
  })

  it('the transition: a dissolve of 300 ms by default, a cut takes no time', () => {
    expect(transitionMs(base.transition)).toBe(300)
    const cut = setTransition(base, { kind: 'cut', durationMs: 300 })
    expect(transitionMs(cut.transition)).toBe(0)
    expect(setTransition(base, { kind: 'dissolve', durationMs: 1e9 }).transition.durationMs).toBe(
      LIMITS.transitionMs
    )
  })
})

describe('readScenes: saved scenes come back, broken pieces are dropped', () => {
  it('round-trips what it was given', () => {
    const s = addImage(
      switchScene(defaultScenes(A), defaultScenes(A).scenes[1]!.id),
      { name: 'logo.png', file: FILE, width: 10, height: 10 },
      A
    )
    const state: ScenesState = { ...s, activeId: s.scenes[1]!.id }
    expect(readScenes(JSON.parse(JSON.stringify(state)), A)).toEqual(state)
    expect(activeScene(state).name).toBe('Camera')
  })

  it('nothing saved, or nothing usable, gives the defaults', () => {
    for (const bad of [
      undefined,
      null,
      3,
      { scenes: 'x' },
      { scenes: [{ nope: 1 }] },
      { version: 2, scenes: [{ nope: 1 }] }
    ]) {
      expect(readScenes(bad, A).scenes.map((s) => s.name)).toContain('Screen + camera')
    }
  })

  it('drops bad items and sources one by one and keeps the rest; fixes an unknown active id', () => {
    const state = readScenes(
      {
        version: 2,
        activeId: 'gone',
        transition: { kind: 'wipe', durationMs: 10 },
        sources: [
          { id: 'camera', kind: 'camera' },
          { id: 'i', kind: 'image', name: 'x', file: '../../etc/passwd', width: 1, height: 1 },
          { id: 'h', kind: 'hologram' },
          {
            id: 't',
            kind: 'text',
            text: 'Hello',
            size: 9999,
            color: 'red; background: url(x)',
            band: '#112233'
          }
        ],
        scenes: [
          {
            id: 's1',
            name: 'Mine',
            layout: 'sideways',
            items: [
              { id: 'c', sourceId: 'camera', rect: { x: 0, y: 0, w: 1, h: 1 }, visible: true },
              { id: 'bad-rect', sourceId: 'camera', rect: { x: 'a', y: 0, w: 1, h: 1 } },
              { id: 'unknown', sourceId: 'h', rect: { x: 0, y: 0, w: 1, h: 1 } },
              { id: 'img', sourceId: 'i', rect: { x: 0, y: 0, w: 1, h: 1 } },
              { id: 'tt', sourceId: 't', rect: { x: 0.9, y: 0.9, w: 0.5, h: 0.1 } }
            ]
          },
          { id: 's1', name: 'Duplicate id', items: [] }
        ]
      },
      A
    )
    expect(state.activeId).toBe('s1')
    expect(state.scenes).toHaveLength(1)
    expect(state.transition).toEqual(DEFAULT_TRANSITION)
    expect(state.sources.filter((s) => s.kind === 'image')).toEqual([]) // not an image file name
    const scene = state.scenes[0]!
    expect(scene.layout).toBeNull()
    const [cam, title] = itemsOf(state, scene)
    expect(cam?.item.id).toBe('c')
    expect(cam?.source.id).toBe(CAMERA_ID)
    expect(title!.source).toMatchObject({
      kind: 'text',
      size: DEFAULT_TEXT.size,
      color: '#ffffff',
      band: '#112233'
    })
    // Pulled back onto the canvas.
    expect(title!.item.rect.x + title!.item.rect.w).toBeLessThanOrEqual(1)
  })
})

describe('persistence through the settings file and the call schema', () => {
  let dir: string | undefined
  afterEach(() => dir && rmSync(dir, { recursive: true, force: true }))

  it('scenes saved by saveSettings survive a restart (a new store on the same folder)', () => {
    dir = mkdtempSync(join(tmpdir(), 'onair-scenes-'))
    const scenes = defaultScenes(A)
    const args = CALL_ARGS.saveSettings.parse([{ sourceKind: 'scene', scenes }])
    new SettingsStore(dir).update((s) => (s.devices = args[0]))
    const again = new SettingsStore(dir).get().devices
    expect(readScenes(again.scenes, A)).toEqual(scenes)
    expect(JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')).devices.sourceKind).toBe(
      'scene'
    )
  })

  it('the schema refuses too many scenes, an unknown field, a data URL or a bad image name', () => {
    const s = defaultScenes(A)
    const many = { ...s, scenes: Array.from({ length: LIMITS.scenes + 1 }, () => s.scenes[0]!) }
    expect(CALL_ARGS.saveSettings.safeParse([{ scenes: many }]).success).toBe(false)
    const extra = { ...s, scenes: [{ ...s.scenes[0]!, script: 'x' }] }
    expect(CALL_ARGS.saveSettings.safeParse([{ scenes: extra }]).success).toBe(false)
    const image = { id: 'i', kind: 'image', name: 'big', width: 1, height: 1 }
    for (const bad of [
      { ...image, file: FILE, dataUrl: `data:image/png;base64,${'A'.repeat(100)}` },
      { ...image, file: '..\\..\\Windows\\win.ini' },
      { ...image, file: `C:${FILE}` }
    ])
      expect(
        CALL_ARGS.saveSettings.safeParse([{ scenes: { ...s, sources: [...s.sources, bad] } }])
          .success
      ).toBe(false)
    const ok = { ...s, sources: [...s.sources, { ...image, file: FILE }] }
    expect(CALL_ARGS.saveSettings.safeParse([{ scenes: ok }]).success).toBe(true)
    expect(CALL_ARGS.saveSettings.safeParse([{ scenes: s }]).success).toBe(true)
    // Pictures travel as bytes, each no larger than LIMITS.imageBytes.
    const big = new Uint8Array(LIMITS.imageBytes + 1)
    expect(CALL_ARGS.saveSceneImage.safeParse([big]).success).toBe(false)
    expect(CALL_ARGS.readSceneImage.safeParse(['../settings.json']).success).toBe(false)
  })
})

describe('scenes saved in the format before version 2', () => {
  let dir: string | undefined
  afterEach(() => dir && rmSync(dir, { recursive: true, force: true }))
  const FIXTURE = join(__dirname, '../../fixtures/scenes/settings-v1.json')

  it('load, migrate (pictures become files), round-trip, and settings.json keeps no picture', async () => {
    dir = mkdtempSync(join(tmpdir(), 'onair-scenes-v1-'))
    cpSync(FIXTURE, join(dir, 'settings.json'))
    const old = JSON.parse(readFileSync(FIXTURE, 'utf8'))
    const oldImage = old.devices.scenes.images[0]
    const bytes = Buffer.from(oldImage.dataUrl.split(',')[1], 'base64')
    const file = `${createHash('sha256').update(bytes).digest('hex')}.png`

    const store = new SettingsStore(dir)
    // The file on disk is today's format at once: no data URL, no image bytes.
    const text = readFileSync(join(dir, 'settings.json'), 'utf8')
    expect(text).not.toContain('data:')
    expect(text).not.toContain('dataUrl')
    expect(text).not.toContain(oldImage.dataUrl.split(',')[1].slice(0, 40))
    expect(readdirSync(join(dir, 'scene-images'))).toEqual([file])
    expect(Buffer.from(await store.images.read(file))).toEqual(bytes)

    // Everything else is still there.
    const devices = store.get().devices
    expect(devices).toMatchObject({ sourceKind: 'scene', videoDeviceId: 'cam-1' })
    const scenes = readScenes(devices.scenes, A)
    expect(devices.scenes).toEqual(scenes) // stored clean
    expect(scenes.scenes.map((s) => s.name)).toEqual(
      old.devices.scenes.scenes.map((s: { name: string }) => s.name)
    )
    expect(activeScene(scenes).id).toBe(old.devices.scenes.activeId)
    // The layouts each scene had, found once and stored; the moved one is nobody's.
    expect(scenes.scenes.map((s) => s.layout)).toEqual(['pip', 'camera-full', 'screen-full', null])
    expect(scenes.scenes[0]!.pip).toEqual({ corner: 'top-left', size: 0.3 })
    const first = switchScene(scenes, scenes.scenes[0]!.id)
    const oldFirst = old.devices.scenes.scenes[0].sources
    expect(itemsOf(first, activeScene(first)).map((x) => [x.item.id, x.source.kind])).toEqual(
      oldFirst.map((s: { id: string; kind: string }) => [
        s.id,
        s.kind === 'title' ? 'text' : s.kind
      ])
    )
    expect(itemOf(first, 'text')!.source).toMatchObject({ text: 'Welcome back', band: '#c81e3c' })
    expect(itemOf(first, 'text')!.item.rect).toEqual(TITLE_RECT)
    expect(itemOf(first, 'image')!.source).toMatchObject({
      name: 'logo.png',
      file,
      width: oldImage.width,
      height: oldImage.height
    })
    expect(itemOf(first, 'image')!.item.rect).toEqual(oldFirst[3].rect)
    // Hidden stays hidden.
    const camScene = old.devices.scenes.scenes[1].sources
    expect(activeScene(scenes).items.map((i) => i.visible)).toEqual(
      camScene.map((s: { hidden?: boolean }) => !s.hidden)
    )

    // Round trip: through the call's schema, the store, a restart; the picture file stays.
    const args = CALL_ARGS.saveSettings.parse([{ ...devices, scenes }])
    store.update((s) => (s.devices = args[0]))
    const again = new SettingsStore(dir)
    expect(readScenes(again.get().devices.scenes, A)).toEqual(scenes)
    await again.images.prune(new Set([file]))
    expect(existsSync(join(dir, 'scene-images', file))).toBe(true)
    expect(readFileSync(join(dir, 'settings.json'), 'utf8')).not.toContain('data:')
  })

  it('readScenes reads the old format too (without its pictures, which only main can move)', () => {
    const old = JSON.parse(readFileSync(FIXTURE, 'utf8')).devices.scenes
    const s = readScenes(old, A)
    expect(s.scenes.map((x) => x.layout)).toEqual(['pip', 'camera-full', 'screen-full', null])
    expect(s.sources.some((x) => x.kind === 'image')).toBe(false)
  })
})

import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  DEFAULT_TITLE,
  LIMITS,
  TITLE_RECT,
  activeScene,
  applyLayout,
  cameraCaptureScale,
  defaultScenes,
  layoutOf,
  needs,
  readScenes,
  withScene,
  type ScenesState
} from '../../../src/shared/scenes'
import { CALL_ARGS } from '../../../src/main/core/contract-schema'
import { SettingsStore } from '../../../src/main/core/settings-store'

const A = 16 / 9

describe('ready layouts', () => {
  const base = defaultScenes(A)

  it('the defaults are the everyday scenes, each recognised as its layout', () => {
    expect(base.scenes.map((s) => s.name)).toEqual([
      'Screen + camera',
      'Camera',
      'Screen',
      'Side by side'
    ])
    expect(base.scenes.map((s) => layoutOf(s, A))).toEqual([
      'pip',
      'camera-full',
      'screen-full',
      'side-by-side'
    ])
    expect(base.activeId).toBe(base.scenes[0]!.id)
  })

  it('PiP draws the camera over the screen, in the chosen corner and size', () => {
    const pip = applyLayout(base.scenes[0]!, 'pip', A, { corner: 'top-left', size: 0.2 })
    const kinds = pip.sources.map((s) => s.kind)
    expect(kinds.indexOf('camera')).toBeGreaterThan(kinds.indexOf('screen'))
    const cam = pip.sources.find((s) => s.kind === 'camera')!
    expect(cam.rect.w).toBe(0.2)
    expect(cam.rect.x).toBeLessThan(0.1)
    expect(cam.rect.y).toBeLessThan(0.1)
    expect(pip.pip).toEqual({ corner: 'top-left', size: 0.2 })
  })

  it('the camera is captured at half size while every scene on air shows it at most half wide', () => {
    const [pip, camera, screen, sideBySide] = base.scenes
    expect(cameraCaptureScale([pip!])).toBe(0.5)
    expect(cameraCaptureScale([sideBySide!])).toBe(0.5)
    expect(cameraCaptureScale([camera!])).toBe(1)
    expect(cameraCaptureScale([screen!])).toBe(0)
    // Dissolving from the full camera into PiP, the full camera still needs the full size.
    expect(cameraCaptureScale([pip!, camera!])).toBe(1)
    // A big PiP, or a camera box dragged wider than half the output, needs the full size.
    expect(
      cameraCaptureScale([applyLayout(pip!, 'pip', A, { corner: 'top-left', size: 0.6 })])
    ).toBe(1)
    // A hidden camera counts for nothing.
    const hidden = {
      ...camera!,
      sources: camera!.sources.map((s) => (s.kind === 'camera' ? { ...s, hidden: true } : s))
    }
    expect(cameraCaptureScale([hidden])).toBe(0)
  })

  it('a layout keeps titles and images above the pictures, and ids stable', () => {
    const scene = base.scenes[0]!
    const title = { id: 't1', rect: TITLE_RECT, ...DEFAULT_TITLE }
    const withTitle = { ...scene, sources: [...scene.sources, title] }
    const full = applyLayout(withTitle, 'camera-full', A)
    expect(full.sources.at(-1)).toEqual(title)
    expect(
      full.sources
        .filter((s) => s.kind !== 'title')
        .map((s) => s.id)
        .sort()
    ).toEqual(scene.sources.map((s) => s.id).sort())
    // The screen is hidden, not removed: going back to PiP finds it again.
    expect(full.sources.find((s) => s.kind === 'screen')?.hidden).toBe(true)
    expect(needs(full)).toEqual({ camera: true, screen: false })
    expect(needs(applyLayout(full, 'screen-full', A))).toEqual({ camera: false, screen: true })
  })

  it('a source moved by hand is no longer a ready layout', () => {
    const scene = base.scenes[0]!
    const moved = {
      ...scene,
      sources: scene.sources.map((s) =>
        s.kind === 'camera' ? { ...s, rect: { ...s.rect, x: 0.3 } } : s
      )
    }
    expect(layoutOf(moved, A)).toBeNull()
  })
})

describe('readScenes: saved scenes come back, broken pieces are dropped', () => {
  it('round-trips what it was given', () => {
    const s = defaultScenes(A)
    const second = s.scenes[1]!
    const state: ScenesState = {
      ...withScene(s, {
        ...second,
        sources: [
          ...second.sources,
          { id: 'logo', kind: 'image', imageId: 'img1', rect: { x: 0.8, y: 0.05, w: 0.15, h: 0.1 } }
        ]
      }),
      activeId: second.id,
      images: [
        {
          id: 'img1',
          name: 'logo.png',
          dataUrl: 'data:image/png;base64,AAAA',
          width: 10,
          height: 10
        }
      ]
    }
    expect(readScenes(JSON.parse(JSON.stringify(state)), A)).toEqual(state)
    expect(activeScene(state).name).toBe('Camera')
  })

  it('nothing saved, or nothing usable, gives the defaults', () => {
    for (const bad of [undefined, null, 3, { scenes: 'x' }, { scenes: [{ nope: 1 }] }]) {
      expect(readScenes(bad, A).scenes.map((s) => s.name)).toContain('Screen + camera')
    }
  })

  it('drops bad sources one by one and keeps the rest; fixes an unknown active id', () => {
    const state = readScenes(
      {
        activeId: 'gone',
        images: [{ id: 'i', name: 'x', dataUrl: 'javascript:alert(1)', width: 1, height: 1 }],
        scenes: [
          {
            id: 's1',
            name: 'Mine',
            sources: [
              { id: 'c', kind: 'camera', rect: { x: 0, y: 0, w: 1, h: 1 } },
              { id: 'bad-rect', kind: 'camera', rect: { x: 'a', y: 0, w: 1, h: 1 } },
              { id: 'unknown', kind: 'hologram', rect: { x: 0, y: 0, w: 1, h: 1 } },
              { id: 'img', kind: 'image', imageId: 'i', rect: { x: 0, y: 0, w: 1, h: 1 } },
              {
                id: 't',
                kind: 'title',
                text: 'Hello',
                size: 9999,
                color: 'red; background: url(x)',
                band: '#112233',
                rect: { x: 0.9, y: 0.9, w: 0.5, h: 0.1 }
              }
            ]
          },
          { id: 's1', name: 'Duplicate id', sources: [] }
        ]
      },
      A
    )
    expect(state.activeId).toBe('s1')
    expect(state.scenes).toHaveLength(1)
    expect(state.images).toEqual([]) // not an image data URL
    const [cam, title] = state.scenes[0]!.sources
    expect(cam?.id).toBe('c')
    expect(title).toMatchObject({
      kind: 'title',
      size: DEFAULT_TITLE.size,
      color: '#ffffff',
      band: '#112233'
    })
    // Pulled back onto the canvas.
    expect(title!.rect.x + title!.rect.w).toBeLessThanOrEqual(1)
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

  it('the schema refuses too many scenes, an unknown field, or an oversized image', () => {
    const s = defaultScenes(A)
    const many = { ...s, scenes: Array.from({ length: LIMITS.scenes + 1 }, () => s.scenes[0]!) }
    expect(CALL_ARGS.saveSettings.safeParse([{ scenes: many }]).success).toBe(false)
    const extra = { ...s, scenes: [{ ...s.scenes[0]!, script: 'x' }] }
    expect(CALL_ARGS.saveSettings.safeParse([{ scenes: extra }]).success).toBe(false)
    const huge = {
      ...s,
      images: [
        {
          id: 'i',
          name: 'big',
          dataUrl: `data:image/png;base64,${'A'.repeat(LIMITS.imageDataUrl)}`,
          width: 1,
          height: 1
        }
      ]
    }
    expect(CALL_ARGS.saveSettings.safeParse([{ scenes: huge }]).success).toBe(false)
    expect(CALL_ARGS.saveSettings.safeParse([{ scenes: s }]).success).toBe(true)
  })
})

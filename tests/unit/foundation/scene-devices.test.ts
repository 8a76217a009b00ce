// More than one camera and more than one screen or window in a scene (#34 §4): each is a source of
// its own (a camera with its device, a screen with its own capture); scenes saved when there was one
// of each load unchanged, the old camera and screen becoming the first ones.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  CAMERA_ID,
  LIMITS,
  MAX_GAIN,
  SCREEN_ID,
  activeScene,
  addCamera,
  addScreen,
  cameraCaptureScale,
  canAddCamera,
  captureKey,
  defaultScenes,
  itemsOf,
  layersOf,
  needs,
  removeItem,
  renameSource,
  setCameraDevice,
  setSourceSound,
  withDevicesCamera,
  type ScenesState
} from '../../../src/shared/scenes'
import { readScenes } from '../../../src/shared/scenes-saved'
import { DEFAULT_SOURCE_AUDIO } from '../../../src/shared/audio'
import { CALL_ARGS } from '../../../src/main/core/contract-schema'

const A = 16 / 9

/** Through the settings call's schema and back, as a save and a restart do. */
const saveAndLoad = (s: unknown): ScenesState => {
  const [saved] = CALL_ARGS.saveSettings.parse([{ scenes: s }])
  return readScenes(JSON.parse(JSON.stringify(saved.scenes)), A)
}

/** Two cameras (two devices) side by side and the screen: what the e2e test builds. */
function twoCameras(): ScenesState {
  let s = addCamera(defaultScenes(A), { name: 'Desk', videoDeviceId: 'dev-a' }, 'cam-a')
  s = addCamera(s, { name: 'Overhead', videoDeviceId: 'dev-b' }, 'cam-b')
  return s
}

describe('cameras and screens as sources', () => {
  it('each added camera is its own source with its device; the scene needs each, one capture a device', () => {
    const s = twoCameras()
    const cams = s.sources.filter((x) => x.kind === 'camera')
    expect(cams).toEqual([
      { id: CAMERA_ID, kind: 'camera', name: 'Camera', videoDeviceId: null },
      { id: 'cam-a', kind: 'camera', name: 'Desk', videoDeviceId: 'dev-a' },
      { id: 'cam-b', kind: 'camera', name: 'Overhead', videoDeviceId: 'dev-b' }
    ])
    const n = needs(s, activeScene(s))
    expect(n.cameras.map((c) => c.id)).toEqual([CAMERA_ID, 'cam-a', 'cam-b'])
    expect(new Set(n.cameras.map((c) => captureKey(c))).size).toBe(3)
    // A second source on a device already shown shares its capture.
    const same = addCamera(s, { name: 'Desk again', videoDeviceId: 'dev-a' }, 'cam-c')
    const keys = needs(same, activeScene(same)).cameras.map((c) => captureKey(c))
    expect(keys).toHaveLength(4)
    expect(new Set(keys).size).toBe(3)
  })

  it('one device, one capture: a camera picking the Devices camera shares its capture, and follows a change', () => {
    // The first camera follows the Devices camera; an added one picked that same device.
    const s = addCamera(defaultScenes(A), { name: 'Same', videoDeviceId: 'dev-a' }, 'cam-a')
    const cams = needs(s, activeScene(s)).cameras
    expect(cams.map((c) => c.id)).toEqual([CAMERA_ID, 'cam-a'])
    // The Devices camera is dev-a: both are dev-a's one capture.
    expect(new Set(cams.map((c) => captureKey(c, 'dev-a')))).toEqual(new Set(['camera:dev-a']))
    // The Devices camera changed to dev-b: the first camera moves with it, the added one stays.
    expect(cams.map((c) => captureKey(c, 'dev-b'))).toEqual(['camera:dev-b', 'camera:dev-a'])
    // The default camera before its device is known: its own capture, keyed ''.
    expect(cams.map((c) => captureKey(c))).toEqual(['camera:', 'camera:dev-a'])
    // What the compositor draws: the follower named by the device, so it reads dev-a's frames.
    const layers = withDevicesCamera(layersOf(s, activeScene(s)), 'dev-a')
    const drawn = layers.flatMap((l) => (l.source.kind === 'camera' ? [captureKey(l.source)] : []))
    expect(drawn).toEqual(['camera:dev-a', 'camera:dev-a'])
    // The scenes themselves are not changed: the first camera still follows Devices.
    expect(s.sources.find((x) => x.id === CAMERA_ID)).toMatchObject({ videoDeviceId: null })
    expect(withDevicesCamera(layersOf(s, activeScene(s)))).toEqual(layersOf(s, activeScene(s)))
  })

  it('the capture size is per camera: a half-wide camera is asked for half, a full one for all', () => {
    const s = twoCameras()
    const layers = layersOf(s, activeScene(s))
    // The default scene is PiP (the first camera small); the added ones sit side by side (half wide).
    expect(cameraCaptureScale([layers], 'camera:dev-a')).toBe(0.5)
    expect(cameraCaptureScale([layers], 'camera:')).toBe(0.5)
    expect(cameraCaptureScale([layers], 'camera:nowhere')).toBe(0)
    const full = layers.map((l) =>
      l.source.id === 'cam-b' ? { ...l, rect: { x: 0, y: 0, w: 1, h: 1 } } : l
    )
    expect(cameraCaptureScale([full], 'camera:dev-b')).toBe(1)
    expect(cameraCaptureScale([full], 'camera:dev-a')).toBe(0.5)
  })

  it('screens: each added one is its own capture; renamed, removed with its last item', () => {
    let s = addScreen(defaultScenes(A), 'scr-2')
    expect(s.sources.find((x) => x.id === 'scr-2')).toEqual({
      id: 'scr-2',
      kind: 'screen',
      name: 'Screen 2'
    })
    const n = needs(s, activeScene(s))
    expect(n.screens.map((c) => captureKey(c))).toEqual([`screen:${SCREEN_ID}`, 'screen:scr-2'])
    s = renameSource(s, 'scr-2', 'Slides')
    expect(s.sources.find((x) => x.id === 'scr-2')).toMatchObject({ name: 'Slides' })
    expect(
      renameSource(s, 'scr-2', '  ', true).sources.find((x) => x.id === 'scr-2')
    ).toMatchObject({ name: 'Screen' })
    const item = itemsOf(s, activeScene(s)).find((x) => x.source.id === 'scr-2')!.item
    s = removeItem(s, item.id)
    expect(s.sources.some((x) => x.id === 'scr-2')).toBe(false)
  })

  it("an added screen's sound (level, mute, chain) is kept with it, through a save; the first screen's is not", () => {
    let s = addScreen(defaultScenes(A), 'scr-2')
    expect(s.sources.find((x) => x.id === 'scr-2')).not.toHaveProperty('sound')
    const chain = { ...DEFAULT_SOURCE_AUDIO, gainDb: -6 }
    s = setSourceSound(s, 'scr-2', { gain: 0.5, audio: chain })
    s = setSourceSound(s, 'scr-2', { muted: true, gain: 9 })
    expect(s.sources.find((x) => x.id === 'scr-2')).toMatchObject({
      sound: { gain: MAX_GAIN, muted: true, audio: chain }
    })
    // The first screen's level is the scene's mix and its chain the audio settings': not here.
    expect(setSourceSound(s, SCREEN_ID, { gain: 0.1 })).toEqual(s)
    expect(saveAndLoad(s)).toEqual(s)
    // Gone with its last item.
    const item = itemsOf(s, activeScene(s)).find((x) => x.source.id === 'scr-2')!.item
    expect(removeItem(s, item.id).sources.some((x) => x.id === 'scr-2')).toBe(false)
  })

  it('a removed camera goes with its last item; the first camera and screen are never dropped', () => {
    let s = twoCameras()
    for (const { item, source } of itemsOf(s, activeScene(s)))
      if (source.kind === 'camera' || source.kind === 'screen') s = removeItem(s, item.id)
    expect(s.sources.filter((x) => x.kind === 'camera').map((x) => x.id)).toEqual([CAMERA_ID])
    expect(s.sources.filter((x) => x.kind === 'screen').map((x) => x.id)).toEqual([SCREEN_ID])
  })

  it('a camera can be pointed at another device; at most LIMITS.cameras', () => {
    let s = setCameraDevice(twoCameras(), 'cam-a', 'dev-z')
    expect(s.sources.find((x) => x.id === 'cam-a')).toMatchObject({ videoDeviceId: 'dev-z' })
    for (let i = 0; i < LIMITS.cameras + 2; i++)
      s = addCamera(s, { name: `Cam ${i}`, videoDeviceId: `d${i}` })
    expect(s.sources.filter((x) => x.kind === 'camera')).toHaveLength(LIMITS.cameras)
    expect(canAddCamera(s)).toBe(false)
  })

  it('round-trips through the settings schema and readScenes, names and devices kept', () => {
    const s = renameSource(addScreen(twoCameras(), 'scr-2'), CAMERA_ID, 'Face')
    expect(saveAndLoad(s)).toEqual(s)
  })
})

describe('scenes saved with one camera and one screen', () => {
  it('load unchanged: the old camera and screen become the first ones (the settings camera)', () => {
    // A document as Onair saved it before cameras and screens had names and devices.
    const old = {
      version: 2,
      sources: [
        { id: 'camera', kind: 'camera' },
        { id: 'screen', kind: 'screen' },
        { id: 'text-1', kind: 'text', text: 'Hi', size: 40, color: '#ffffff', band: null }
      ],
      scenes: [
        {
          id: 'scene-a',
          name: 'Talk',
          items: [
            { id: 'i1', sourceId: 'screen', rect: { x: 0, y: 0, w: 1, h: 1 }, visible: true },
            {
              id: 'i2',
              sourceId: 'camera',
              rect: { x: 0.7, y: 0.7, w: 0.28, h: 0.28 },
              visible: true
            },
            {
              id: 'i3',
              sourceId: 'text-1',
              rect: { x: 0.04, y: 0.78, w: 0.6, h: 0.1 },
              visible: true
            }
          ],
          layout: null,
          pip: { corner: 'bottom-right', size: 0.28 },
          mix: { mic: { gain: 1, muted: false }, screen: { gain: 1, muted: false } }
        }
      ],
      activeId: 'scene-a',
      transition: { kind: 'cut', durationMs: 0 },
      studio: false,
      programId: 'scene-a'
    }
    const s = saveAndLoad(old)
    expect(s.sources.slice(0, 2)).toEqual([
      { id: CAMERA_ID, kind: 'camera', name: 'Camera', videoDeviceId: null },
      { id: SCREEN_ID, kind: 'screen', name: 'Screen or window' }
    ])
    expect(s.scenes[0]!.items).toEqual(old.scenes[0]!.items)
    expect(needs(s, s.scenes[0]!).cameras.map((c) => captureKey(c))).toEqual(['camera:'])
  })

  it('the format before version 2 too: its camera and screen slots become the first ones', () => {
    const fixture = join(__dirname, '../../fixtures/scenes/settings-v1.json')
    const s = readScenes(JSON.parse(readFileSync(fixture, 'utf8')).devices.scenes, A)
    expect(s.sources.filter((x) => x.kind === 'camera')).toEqual([
      { id: CAMERA_ID, kind: 'camera', name: 'Camera', videoDeviceId: null }
    ])
    expect(s.sources.filter((x) => x.kind === 'screen')).toEqual([
      { id: SCREEN_ID, kind: 'screen', name: 'Screen or window' }
    ])
  })
})

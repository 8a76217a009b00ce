// Two cameras and a screen in one scene (#34 §4), in Chromium through the web shell. Chromium's fake
// capture gives two cameras here (device-count=2) with different pictures: fake_device_0 a green
// pattern, fake_device_1 a colourless one (black, grey text). Each is added as a source of its own from the scenes panel's
// Add camera (its device picked by label), side by side over the shared screen; live, the program
// canvas shows green in one box and grey in the other, each device opened once. Removing one closes
// its track (ended), and the other camera goes on.
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { sideBySideRects } from '../../src/shared/scene-layout'
import { activeScene, itemsOf, type ScenesState } from '../../src/shared/scenes'
import { readScenes } from '../../src/shared/scenes-saved'
import {
  appForFile,
  createStream,
  eventually,
  pressGoLive,
  sceneColourAt,
  shot,
  stopLive,
  text
} from './app-page'

const app = appForFile({ chromiumArgs: ['--use-fake-device-for-media-stream=device-count=2'] })

async function savedScenes(): Promise<ScenesState> {
  return readScenes((await app().shell.core.getSettings()).scenes)
}

type Cam = { deviceId: string; state: string }
/** Every camera track the page opened (getUserMedia wrapped): its device and whether it is live. */
const cameraTracks = (page: Page): Promise<Cam[]> =>
  page.evaluate(() =>
    (window as unknown as { cams: MediaStreamTrack[] }).cams.map((t) => ({
      deviceId: t.getSettings().deviceId ?? '',
      state: t.readyState
    }))
  )

const isGreen = ([r, g, b]: number[]): boolean => g! > 100 && g! > r! + 60 && g! > b! + 60
/** fake_device_1's picture: no colour (black with grey text), never the green screen behind it. */
const isGrey = ([r, g, b]: number[]): boolean =>
  Math.max(r!, g!, b!) - Math.min(r!, g!, b!) < 20 && g! < 110

describe('more than one camera in a scene', () => {
  it('two cameras (two devices) side by side over a screen, live; removing one closes its track', async () => {
    const { page } = app()
    await page.evaluate(() => {
      const w = window as unknown as { cams: MediaStreamTrack[] }
      w.cams = []
      const md = navigator.mediaDevices
      const original = md.getUserMedia.bind(md)
      md.getUserMedia = async (c) => {
        const s = await original(c)
        w.cams.push(...s.getVideoTracks())
        return s
      }
    })
    const devices = await page.evaluate(async () =>
      (await navigator.mediaDevices.enumerateDevices())
        .filter((d) => d.kind === 'videoinput')
        .map((d) => ({ id: d.deviceId, label: d.label }))
    )
    expect(devices.map((d) => d.label)).toEqual(['fake_device_0', 'fake_device_1'])

    await createStream(page, 'Two cameras', { profiles: 'none', record: false })
    await page.getByTestId('stream-go-live').click()
    await page.getByTestId('source-scene').check()
    await page.getByTestId('scene-canvas').waitFor()
    // The screen full behind (the first camera hidden), shared.
    await page.getByTestId('layout-screen-full').click()
    await page.getByTestId('share-screen').click()
    await page.getByTestId('stop-screen').waitFor()

    // Add camera: the picker lists the cameras by label; fake_device_0 goes right, fake_device_1 left.
    for (const label of ['fake_device_0', 'fake_device_1']) {
      await page.getByTestId('add-camera').click()
      const picker = page.getByTestId('add-camera-device')
      expect(await picker.locator('option').allTextContents()).toEqual(
        expect.arrayContaining(['fake_device_0', 'fake_device_1'])
      )
      await picker.selectOption({ label })
      await page.getByTestId('add-camera-confirm').click()
    }
    await eventually(() => page.getByTestId('camera-source').count()).toBe(2)
    // Saved: two camera sources, each with its device and its label as its name.
    const addedCameras = async () => {
      const saved = await savedScenes()
      return itemsOf(saved, activeScene(saved)).flatMap(({ item, source }) =>
        source.kind === 'camera' && item.visible && source.id !== 'camera'
          ? [{ device: source.videoDeviceId, name: source.name }]
          : []
      )
    }
    await eventually(addedCameras).toEqual(devices.map((d) => ({ device: d.id, name: d.label })))

    // Both pictures are drawn, each in its box: green on the right, grey on the left.
    const [left, right] = sideBySideRects()
    const centre = (r: typeof left) => [r.x + r.w / 2, r.y + r.h / 2] as const
    await eventually(() => sceneColourAt(page, ...centre(right)).then(isGreen)).toBe(true)
    await eventually(() => sceneColourAt(page, ...centre(left)).then(isGrey)).toBe(true)

    await pressGoLive(page)
    // Live: still both, and each device open once (the hidden first camera may hold a third track
    // on the default device, but no added device is opened twice).
    await eventually(() => sceneColourAt(page, ...centre(right)).then(isGreen)).toBe(true)
    expect(isGrey(await sceneColourAt(page, ...centre(left)))).toBe(true)
    const live = (await cameraTracks(page)).filter((t) => t.state === 'live')
    expect(live.filter((t) => t.deviceId === devices[1]!.id)).toHaveLength(1)
    await page.setViewportSize({ width: 1366, height: 768 })
    await page.getByTestId('scenes-panel').scrollIntoViewIfNeeded()
    await shot(page, 'scene-two-cameras', false)

    // Remove the grey camera: its track ends; the green one is still drawn, and the broadcast goes on.
    const grey = page.getByTestId('camera-source').filter({
      has: page.locator('input[value=fake_device_1]')
    })
    await grey.getByRole('button', { name: 'Remove fake_device_1' }).click()
    await eventually(() => page.getByTestId('camera-source').count()).toBe(1)
    await eventually(async () =>
      (await cameraTracks(page)).filter((t) => t.deviceId === devices[1]!.id).map((t) => t.state)
    ).toEqual(['ended'])
    expect(isGreen(await sceneColourAt(page, ...centre(right)))).toBe(true)
    expect(isGrey(await sceneColourAt(page, ...centre(left)))).toBe(false)
    expect(await text(page.getByTestId('live-banner'))).not.toContain('ended')
    await stopLive(page)
  })
})

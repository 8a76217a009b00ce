// Two cameras and a screen in one scene (#34 §4), in Chromium through the web shell. Chromium's fake
// capture gives two cameras here (device-count=2) with different pictures: fake_device_0 a green
// pattern, fake_device_1 a colourless one (black, grey text). Each is added as a source of its own from the scenes panel's
// Add camera (its device picked by label), side by side over the shared screen; live, the program
// canvas shows green in one box and grey in the other, each device opened once. Removing one closes
// its track (ended), and the other camera goes on. A camera added on the device the Devices camera
// is (the first camera follows it) is drawn from that one capture, never opened twice; when the
// Devices camera changes, the first camera moves with it and the added one stays. An added screen's
// sound (Chromium's fake share beeps) is a mixer channel of its own, its volume and mute its source's.
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { pipRect, sideBySideRects } from '../../src/shared/scene-layout'
import {
  DEFAULT_PIP,
  activeScene,
  defaultScenes,
  itemsOf,
  type ScenesState
} from '../../src/shared/scenes'
import { readScenes } from '../../src/shared/scenes-saved'
import {
  appForFile,
  attr,
  createStream,
  eventually,
  meterDbRange,
  pressGoLive,
  reopenWithSettings,
  sceneColourAt,
  shot,
  stopLive,
  text
} from './app-page'

const app = appForFile({ chromiumArgs: ['--use-fake-device-for-media-stream=device-count=2'] })

async function savedScenes(): Promise<ScenesState> {
  return readScenes((await app().shell.core.getSettings()).scenes)
}

/** Wraps getUserMedia so the test sees every camera track the page opens (window.cams). */
function recordCameras(): void {
  const w = window as unknown as { cams: MediaStreamTrack[] }
  w.cams = []
  const md = navigator.mediaDevices
  const original = md.getUserMedia.bind(md)
  md.getUserMedia = async (c) => {
    const s = await original(c)
    w.cams.push(...s.getVideoTracks())
    return s
  }
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
    await page.evaluate(recordCameras)
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

  it('a camera added on the Devices camera is the same one capture; the Devices camera changed, its followers move', async () => {
    const { page } = app()
    // A fresh page (every getUserMedia recorded from the start) on the default scenes: the screen
    // (not shared: black) with the first camera, which follows the Devices camera, in the corner.
    await page.context().addInitScript(recordCameras)
    await reopenWithSettings(app(), ({ videoDeviceId: _none, ...settings }) => ({
      ...settings,
      sourceKind: 'scene',
      scenes: defaultScenes()
    }))
    await page.getByTestId('scene-canvas').waitFor()
    const devices = await page.evaluate(async () =>
      (await navigator.mediaDevices.enumerateDevices())
        .filter((d) => d.kind === 'videoinput')
        .map((d) => d.deviceId)
    )
    const [dev0, dev1] = devices as [string, string]
    const corner = pipRect(DEFAULT_PIP.corner, DEFAULT_PIP.size, 16 / 9)
    const inCorner = [corner.x + corner.w / 2, corner.y + corner.h / 2] as const
    const right = sideBySideRects()[1]
    const inRight = [right.x + right.w / 2, right.y + right.h / 2] as const
    // The default camera is fake_device_0 (green), in the corner; nothing on the right yet.
    await eventually(() => sceneColourAt(page, ...inCorner).then(isGreen), 30_000).toBe(true)
    expect(isGreen(await sceneColourAt(page, ...inRight))).toBe(false)
    const liveOn = async (id: string): Promise<number> =>
      (await cameraTracks(page)).filter((t) => t.deviceId === id && t.state === 'live').length

    // Add camera, picking fake_device_0: the device the Devices camera is.
    await page.getByTestId('add-camera').click()
    await page.getByTestId('add-camera-device').selectOption({ label: 'fake_device_0' })
    await page.getByTestId('add-camera-confirm').click()
    await eventually(() => page.getByTestId('camera-source').count()).toBe(1)
    // Its picture shows on the right, drawn from the one capture of that device: one track, opened once.
    await eventually(() => sceneColourAt(page, ...inRight).then(isGreen), 30_000).toBe(true)
    expect(isGreen(await sceneColourAt(page, ...inCorner))).toBe(true)
    expect(await liveOn(dev0)).toBe(1)
    expect((await cameraTracks(page)).filter((t) => t.deviceId === dev0)).toHaveLength(1)
    await page.setViewportSize({ width: 1366, height: 768 })
    await page.getByTestId('scenes-panel').scrollIntoViewIfNeeded()
    await shot(page, 'scene-camera-same-device', false)

    // The Devices camera becomes fake_device_1: the first camera (following it) turns grey, the
    // added one (its own device) stays green; each device once.
    await page.getByTestId('camera-select').selectOption({ label: 'fake_device_1' })
    // (Grey, not black: the corner is black for a moment while fake_device_1 opens.)
    await eventually(async () => [await liveOn(dev0), await liveOn(dev1)], 30_000).toEqual([1, 1])
    await eventually(() => sceneColourAt(page, ...inCorner).then(isGrey), 30_000).toBe(true)
    expect(isGreen(await sceneColourAt(page, ...inRight))).toBe(true)
    expect([await liveOn(dev0), await liveOn(dev1)]).toEqual([1, 1])

    // Back to fake_device_0, now chosen by name: the follower joins the added camera's capture, and
    // fake_device_1, shown by nothing now, is closed.
    await page.getByTestId('camera-select').selectOption({ label: 'fake_device_0' })
    await eventually(() => liveOn(dev1)).toBe(0)
    await eventually(() => sceneColourAt(page, ...inCorner).then(isGreen), 30_000).toBe(true)
    expect(isGreen(await sceneColourAt(page, ...inRight))).toBe(true)
    expect(await liveOn(dev0)).toBe(1)
    await page.setViewportSize({ width: 1280, height: 860 })
  })

  it("an added screen's sound is a channel of its own: its volume moves the mix, kept with its source, gone with it", async () => {
    const { page } = app()
    await reopenWithSettings(app(), ({ videoDeviceId: _none, ...settings }) => ({
      ...settings,
      sourceKind: 'scene',
      scenes: defaultScenes()
    }))
    await page.getByTestId('scene-canvas').waitFor()
    // The microphone muted and the first screen not shared: the master is the added screen's only.
    await page.getByTestId('mute-mic').click()
    const loudest = async (): Promise<number> =>
      (await meterDbRange(page, 'meter-master', 2000)).max
    await eventually(loudest).toBeLessThan(-55)

    // Add screen or window shares at once; Chromium's fake share beeps, in a channel of its own.
    await page.getByTestId('add-screen').click()
    await page.getByTestId('stop-this-screen').waitFor({ timeout: 30_000 })
    const channel = page.getByTestId('channel-added-screen')
    await channel.waitFor({ timeout: 30_000 })
    const id = await attr(channel, 'data-source')
    expect(await text(channel)).toContain('Screen 2')
    await eventually(
      async () => (await meterDbRange(page, `meter-${id}`, 2000)).max,
      20_000
    ).toBeGreaterThan(-55)
    const full = await loudest()
    expect(full).toBeGreaterThan(-55)
    await page.setViewportSize({ width: 1366, height: 768 })
    await page.getByTestId('mixer').scrollIntoViewIfNeeded()
    await shot(page, 'scene-added-screen-channel', false)
    await page.setViewportSize({ width: 1280, height: 860 })

    // Half its volume: 6 dB down in the mix, kept with the source.
    await channel.locator('input[type=range]').fill('50')
    await eventually(loudest).toSatisfy((v: number) => Math.abs(v - (full - 6)) <= 1.5)
    const soundOf = async () =>
      (await savedScenes()).sources.find((s) => s.id === id && s.kind === 'screen')
    await eventually(async () => ((await soundOf()) as { sound?: unknown })?.sound).toMatchObject({
      gain: 0.5,
      muted: false
    })
    // Its own Mute: silent.
    await channel.getByRole('button', { name: 'Mute' }).click()
    await eventually(loudest).toBeLessThan(-55)
    await channel.getByRole('button', { name: 'Muted' }).click()
    await eventually(loudest).toSatisfy((v: number) => Math.abs(v - (full - 6)) <= 1.5)

    // Removed: its channel goes with it, and the mix is silent again.
    await page
      .locator(`[data-source-id="${id}"]`)
      .getByRole('button', { name: /^Remove / })
      .click()
    await eventually(() => channel.count()).toBe(0)
    await eventually(loudest).toBeLessThan(-55)
    expect(await soundOf()).toBeUndefined()
    await page.getByTestId('mute-mic').click()
  })
})

// Building a scene by hand, and what goes wrong on the way: a logo added from a file, the camera
// dragged (and snapped to the edge), everything still there after the app is reopened; a file that is
// not an image, one that is too large and a camera that is not plugged in each get a named error while
// the scene keeps its other sources; a screen share ended from outside the app (the browser's or the
// OS's "Stop sharing") leaves an empty slot and the broadcast goes on.
import AxeBuilder from '@axe-core/playwright'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import {
  activeScene,
  itemsOf,
  type SceneSourceKind,
  type ScenesState
} from '../../src/shared/scenes'
import { readScenes } from '../../src/shared/scenes-saved'
import { makeFakeCamera } from '../helpers/fake-camera'
import { makeMediaFile } from '../helpers/studio'
import {
  appForFile,
  createStream,
  eventually,
  nav,
  reopenWithSettings,
  sceneColourAt,
  shot,
  stopLive,
  text
} from './app-page'

const dir = mkdtempSync(join(tmpdir(), 'onair-scenes-edit-'))
const camera = makeFakeCamera(dir)
const app = appForFile({ chromiumArgs: [camera.flag] })

/** A yellow 200x100 PNG logo, made by ffmpeg. */
function logoPng(): Buffer {
  return readFileSync(
    makeMediaFile(join(dir, 'logo.png'), [
      ...['-f', 'lavfi', '-i', 'color=c=yellow:s=200x100', '-frames:v', '1']
    ])
  )
}

async function savedScenes(): Promise<ScenesState> {
  return readScenes((await app().shell.core.getSettings()).scenes)
}

/** Whether the saved active scene has a title with exactly this text. */
async function titleSaved(text: string): Promise<boolean> {
  const saved = await savedScenes()
  return itemsOf(saved, activeScene(saved)).some(
    (x) => x.source.kind === 'text' && x.source.text === text
  )
}

/** The item of a kind in the active scene, with its source. */
function itemOf(s: ScenesState, kind: SceneSourceKind) {
  return itemsOf(s, activeScene(s)).find((x) => x.source.kind === kind)
}

async function openScenes(page: Page): Promise<void> {
  await page.getByTestId('stream-go-live').click()
  await page.getByTestId('source-scene').check()
  await page.getByTestId('scene-canvas').waitFor()
}

describe('scene editing', () => {
  it('adds a logo, drags the camera to the edge (snapped), and finds it all again after reopening', async () => {
    const { page } = app()
    await createStream(page, 'Scene editing', { profiles: 'none', record: false })
    await openScenes(page)
    await page
      .getByTestId('image-file')
      .setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: logoPng() })
    await page.getByTestId('image-source').waitFor()
    expect(await text(page.getByTestId('image-source'))).toContain('logo.png')

    // The logo lands top right, drawn on the output.
    await eventually(async () => itemOf(await savedScenes(), 'image')?.source.kind).toBe('image')
    const logo = itemOf(await savedScenes(), 'image')!.item
    // The picture is a file beside the settings, named by its content; the settings only name it.
    const settingsFile = readFileSync(join(app().shell.appDataDir, 'settings.json'), 'utf8')
    expect(settingsFile).not.toContain('data:')
    const kept = itemOf(await savedScenes(), 'image')!.source
    // An opaque logo is kept as JPEG, in the app data folder.
    const keptFile = kept.kind === 'image' ? kept.file : ''
    expect(keptFile).toMatch(/^[0-9a-f]{64}\.jpg$/)
    expect(existsSync(join(app().shell.appDataDir, 'scene-images', keptFile))).toBe(true)
    // Drawn once the program has read and decoded the kept file (after the save on a busy machine).
    await eventually(() =>
      sceneColourAt(page, logo.rect.x + logo.rect.w / 2, logo.rect.y + logo.rect.h / 2)
    ).toSatisfy(([r, g, b]: [number, number, number]) => r > 200 && g > 200 && b < 80)

    // Drag the camera picture left, to within a few pixels of the left edge: it snaps onto it.
    const box = page.getByTestId('box-camera')
    const overlay = await page.getByTestId('scene-overlay').boundingBox()
    const before = await box.boundingBox()
    if (!overlay || !before) throw new Error('no preview on screen')
    const from = { x: before.x + before.width / 2, y: before.y + before.height / 2 }
    const dx = overlay.x + 4 - before.x // to 4 px from the left edge (snap distance is larger)
    await page.mouse.move(from.x, from.y)
    await page.mouse.down()
    await page.mouse.move(from.x + dx / 2, from.y - 20, { steps: 5 })
    await page.mouse.move(from.x + dx, from.y - 40, { steps: 5 })
    await page.mouse.up()
    const cam = async () => itemOf(await savedScenes(), 'camera')!.item.rect
    await eventually(async () => (await cam()).x).toBe(0)
    const moved = await cam()
    expect(moved.y).toBeLessThan(0.8)
    await shot(page, 'scene-dragged')
    // The scene editor and mixer pass an axe scan (no serious or critical violation).
    const axe = await new AxeBuilder({ page }).analyze()
    const bad = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual(
      []
    )

    // Reopen the app: the same source, the same scene, the logo and the camera where they were.
    await page.reload()
    await nav(page, 'Go live')
    await page.getByTestId('scene-canvas').waitFor()
    expect(await page.getByTestId('source-scene').isChecked()).toBe(true)
    expect(await text(page.getByTestId('image-source'))).toContain('logo.png')
    const after = await page.getByTestId('box-camera').boundingBox()
    const ov = await page.getByTestId('scene-overlay').boundingBox()
    expect(Math.abs((after?.x ?? -1) - (ov?.x ?? 0))).toBeLessThan(2)
    expect(await cam()).toEqual(moved)

    // A title typed just before leaving the screen is saved all the same (the debounced save is made
    // when the screen goes, not dropped).
    await page.getByTestId('add-title').click()
    await page.getByTestId('title-text').fill('Typed, then straight to Streams')
    await nav(page, 'Streams')
    await eventually(() => titleSaved('Typed, then straight to Streams')).toBe(true)

    // And one typed just before the window closes: the page goes (pagehide) before the save is due,
    // and the save still reaches the app (the web shell's call outlives the page: keepalive).
    await nav(page, 'Go live')
    await page.getByTestId('add-title').click()
    // The scene's second title: the one just added.
    await page.getByTestId('title-text').last().fill('Typed, then the window closed')
    const url = page.url()
    await page.goto('about:blank')
    await eventually(() => titleSaved('Typed, then the window closed')).toBe(true)
    await page.goto(url)
  })

  it("mixer levels and mutes are the scene's: a level set in one scene comes back after reopening, the other keeps its own", async () => {
    const { page } = app()
    await nav(page, 'Go live')
    await page.getByTestId('scene-canvas').waitFor()
    const tabs = page.getByTestId('scene-tab')
    const micGain = page.getByTestId('gain-mic')
    const screenMute = page.getByTestId('mute-screen')
    await tabs.nth(0).click()
    await micGain.fill('40')
    await screenMute.click()
    expect(await micGain.inputValue()).toBe('40')
    expect(await screenMute.getAttribute('aria-pressed')).toBe('true')
    // Another scene has its own levels; going back brings the first one's again.
    await tabs.nth(1).click()
    await eventually(() => micGain.inputValue()).toBe('100')
    expect(await screenMute.getAttribute('aria-pressed')).toBe('false')
    await micGain.fill('150')
    await tabs.nth(0).click()
    await eventually(() => micGain.inputValue()).toBe('40')
    expect(await screenMute.getAttribute('aria-pressed')).toBe('true')
    // Saved with the scenes.
    await eventually(async () => (await savedScenes()).scenes.map((x) => x.mix)).toEqual(
      expect.arrayContaining([
        { mic: { gain: 0.4, muted: false }, screen: { gain: 1, muted: true } },
        { mic: { gain: 1.5, muted: false }, screen: { gain: 1, muted: false } }
      ])
    )
    const first = (await savedScenes()).scenes[0]!
    expect(first.mix).toEqual({
      mic: { gain: 0.4, muted: false },
      screen: { gain: 1, muted: true }
    })
    // The switch back to the first scene is saved too (settings saves are debounced) before the
    // app is reopened: the scene on air is the one that comes back.
    await eventually(async () => (await savedScenes()).activeId).toBe(first.id)

    // Reopen the app: the scene on air comes back with its level and its mute, heard as set.
    await page.reload()
    await nav(page, 'Go live')
    await page.getByTestId('scene-canvas').waitFor()
    await eventually(() => micGain.inputValue()).toBe('40')
    expect(await screenMute.getAttribute('aria-pressed')).toBe('true')
    await tabs.nth(1).click()
    await eventually(() => micGain.inputValue()).toBe('150')
    expect(await screenMute.getAttribute('aria-pressed')).toBe('false')
    await tabs.nth(0).click()
    await eventually(() => micGain.inputValue()).toBe('40')
    // The next test starts from the saved settings: the switch back must be saved first (debounced).
    await eventually(async () => (await savedScenes()).activeId).toBe(first.id)
  })

  it('names a bad file, a huge file and a missing camera, and keeps the rest of the scene', async () => {
    const { page, shell } = app()
    await reopenWithSettings(app(), (s) => ({
      ...s,
      sourceKind: 'scene',
      videoDeviceId: 'camera-that-was-unplugged'
    }))
    await page.getByTestId('scene-canvas').waitFor()
    const camError = page.getByTestId('scene-error-camera')
    await eventually(() => text(camError), 30_000).toContain('No camera was found')

    const imageError = page.getByTestId('image-error')
    await page.getByTestId('image-file').setInputFiles({
      name: 'notes.png',
      mimeType: 'image/png',
      buffer: Buffer.from('not a picture at all')
    })
    await eventually(() => text(imageError)).toContain('"notes.png" is not an image Onair can read')
    await page.getByTestId('image-file').setInputFiles({
      name: 'huge.png',
      mimeType: 'image/png',
      buffer: Buffer.alloc(21 * 1024 * 1024)
    })
    await eventually(() => text(imageError)).toContain('"huge.png" is too large (21 MB)')
    // The logo from before is still in the scene, and the screen can still be shared.
    expect(await text(page.getByTestId('image-source'))).toContain('logo.png')
    // Keep the page's stream at hand, to end the share from outside the app below.
    await page.evaluate(() => {
      const md = navigator.mediaDevices
      const original = md.getDisplayMedia.bind(md)
      md.getDisplayMedia = async (c) => {
        const s = await original(c)
        ;(window as unknown as { lastShare: MediaStream }).lastShare = s
        return s
      }
    })
    await page.getByTestId('share-screen').click()
    await page.getByTestId('stop-screen').waitFor()
    await shot(page, 'scene-bad-input')

    // Live on the screen without a camera; then the share ends from outside: an empty slot, still live.
    await page
      .getByTestId('scene-tab')
      .filter({ hasText: /^Screen$/ })
      .click()
    await page.getByTestId('go-live').click()
    const banner = page.getByTestId('live-banner')
    await banner.and(page.locator('[data-state=live]')).waitFor({ timeout: 90_000 })
    await page.evaluate(() =>
      (window as unknown as { lastShare: MediaStream }).lastShare.getVideoTracks()[0]!.stop()
    )
    await eventually(() => page.getByTestId('stop-screen').count()).toBe(0)
    expect(await text(page.getByTestId('share-screen'))).toBe('Choose screen or window')
    const streamId = (await shell.core.liveStatus())!.streamId
    const media = async () =>
      (await shell.core.listSessions({ streamId })).items[0]?.sourceSegmentsDuration ?? 0
    const at = await media()
    await eventually(media, 30_000).toBeGreaterThan(at + 3)
    expect(await banner.getAttribute('data-state')).toBe('live')
    await stopLive(page)
  })
})

// Scenes, as a creator uses them: the PiP scene (fake screen full, fake camera in the bottom-right
// corner) with a title band, live; a switch to "Screen" and back while live, and the microphone muted
// from the live banner; then one session whose recording decodes end to end, and whose frames show it
// all. The camera is a blue file (helpers/fake-camera.ts) and the fake screen Chromium's green
// pattern, so the pictures are told apart by colour in frames decoded from the recording (ffmpeg),
// not by a screenshot of the page.
import { execFile } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { pipRect } from '../../src/shared/scene-layout'
import { TITLE_RECT } from '../../src/shared/scenes'
import type { LiveStateEvent } from '../../src/shared/contract'
import { makeFakeCamera } from '../helpers/fake-camera'
import { decodeAll, ffprobe, testFfmpeg } from '../helpers/studio'
import {
  appForFile,
  attr,
  createStream,
  eventually,
  maxVolume,
  pressGoLive,
  sceneColourAt,
  shot,
  stopLive,
  text
} from './app-page'

const camera = makeFakeCamera(mkdtempSync(join(tmpdir(), 'onair-scenes-cam-')))
const app = appForFile({ chromiumArgs: [camera.flag, '--js-flags=--expose-gc'] })

/** A full garbage collection in the page and its workers (frames left unclosed are then named). */
async function collectGarbage(page: Page): Promise<void> {
  const gc = () => (globalThis as unknown as { gc?: () => void }).gc?.()
  await page.evaluate(gc)
  for (const w of page.workers()) await w.evaluate(gc).catch(() => undefined)
}

const W = 160
const H = 90
type RGB = [number, number, number]

/** Frames of a recording, scaled to 160x90 RGB, `fps` per second. */
function framesOf(url: string, fps: number, args: string[] = []): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    execFile(
      testFfmpeg(),
      [
        '-v',
        'error',
        ...args,
        '-i',
        url,
        '-vf',
        `fps=${fps},scale=${W}:${H}`,
        '-f',
        'rawvideo',
        '-pix_fmt',
        'rgb24',
        '-'
      ],
      { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024, timeout: 120_000 },
      (err, out) => {
        if (err) return reject(err)
        const size = W * H * 3
        const frames: Buffer[] = []
        for (let at = 0; at + size <= out.length; at += size)
          frames.push(out.subarray(at, at + size))
        resolve(frames)
      }
    )
  })
}

/** The mean colour of a small square around a point given in canvas fractions. */
function colourAt(frame: Buffer, fx: number, fy: number): RGB {
  const sum: RGB = [0, 0, 0]
  let n = 0
  for (let y = Math.round(fy * H) - 2; y <= Math.round(fy * H) + 2; y++)
    for (let x = Math.round(fx * W) - 2; x <= Math.round(fx * W) + 2; x++) {
      const i = (y * W + x) * 3
      sum[0] += frame[i]!
      sum[1] += frame[i + 1]!
      sum[2] += frame[i + 2]!
      n++
    }
  return sum.map((v) => Math.round(v / n)) as RGB
}

const isBlue = ([r, g, b]: RGB): boolean => b > 170 && r < 90 && g < 120
/**
 * The camera in the recording, whole (19,56,254 there), and not a dissolve's blend of it with the
 * screen's green (0,135,0): a blend with 90 % camera or less has b under 230. isBlue takes a 70 %
 * blend (13,80,178) for the camera, and with it a band 70 % of the way from the screen's green.
 */
const isWholeCamera = ([r, g, b]: RGB): boolean => b > 230 && r < 60 && g < 100
const isGreen = ([r, g, b]: RGB): boolean => g > r + 50 && g > b + 50
const isBand = ([r, g, b]: RGB): boolean => r > 150 && g < 90 && b < 120 // #c81e3c

/** Where the default PiP puts the camera (bottom right, 28% wide): a point in its upper part. */
const pip = pipRect('bottom-right', 0.28, 16 / 9)
const IN_CAMERA: [number, number] = [pip.x + pip.w / 2, pip.y + pip.h * 0.2]
const IN_SCREEN: [number, number] = [0.3, 0.3]
/** The title band's right part, clear of its text. */
const IN_BAND: [number, number] = [
  TITLE_RECT.x + TITLE_RECT.w - 0.05,
  TITLE_RECT.y + TITLE_RECT.h / 2
]

describe('scenes', () => {
  it('PiP + title live, switch scenes and mute while live: one session, a recording that shows it all', async () => {
    const { page, shell } = app()
    // VideoFrames are closed: Chromium names each one that was left to the garbage collector. A leak on
    // the frame path (the sources, the compositor, the encoder) names one per frame, tens a second; one
    // lone frame at a stream's teardown has been named in about one clean-clone CI run in two and was
    // not traced (the cancelled streams that drop frames unclosed are gone): one is tolerated, and
    // shown, never two.
    const unclosed: string[] = []
    page.on('console', (m) => {
      if (/garbage collected without being closed/i.test(m.text())) unclosed.push(m.text())
    })
    await createStream(page, 'Scenes show', { profiles: 'none', record: true })
    await page.getByTestId('stream-go-live').click()
    await page.getByTestId('source-scene').check()
    await page.getByTestId('scene-canvas').waitFor()
    const active = page.locator('[data-testid=scene-tab][aria-pressed=true]')
    expect(await text(active)).toBe('Screen + camera')
    await page.getByTestId('share-screen').click()
    await page.getByTestId('stop-screen').waitFor()
    await page.getByTestId('add-title').click()
    await page.getByTestId('title-text').fill('Onair scenes')

    // The preview is the output: its canvas shows the camera in the corner and the screen around it.
    const canvasAt = ([fx, fy]: [number, number]) => sceneColourAt(page, fx, fy)
    await eventually(async () => isBlue(await canvasAt(IN_CAMERA)), 20_000).toBe(true)
    await eventually(async () => isGreen(await canvasAt(IN_SCREEN))).toBe(true)
    expect(isBand(await canvasAt(IN_BAND))).toBe(true)
    await shot(page, 'scene-editor')

    // The camera is captured at the size the scene shows it: half the output's for the PiP, the whole
    // for "Camera" (the compositor sees the frames the camera gives).
    const cameraWidth = () => attr(page.getByTestId('compose-stats'), 'data-camera-width')
    await eventually(cameraWidth, 10_000).toBe('640')
    await page
      .getByTestId('scene-tab')
      .filter({ hasText: /^Camera$/ })
      .click()
    await eventually(cameraWidth, 10_000).toBe('1280')
    await collectGarbage(page)
    await page.getByTestId('scene-tab').filter({ hasText: 'Screen + camera' }).click()
    await eventually(cameraWidth, 10_000).toBe('640')
    await collectGarbage(page)
    expect(isBlue(await canvasAt(IN_CAMERA))).toBe(true)

    const states: LiveStateEvent[] = []
    const off = shell.core.events.on('live:state', (e) => states.push(e))
    // The pushed media clock (when media time 0 went out): a wall-clock moment's place in the recording.
    let mediaEpoch: number | undefined
    const offHealth = shell.core.events.on('live:health', (e) => {
      if (e.mediaEpoch !== undefined) mediaEpoch = e.mediaEpoch
    })
    await pressGoLive(page)
    const streamId = (await shell.core.liveStatus())!.streamId
    const media = async (): Promise<number> =>
      (await shell.core.listSessions({ streamId })).items[0]?.sourceSegmentsDuration ?? 0
    const moreMedia = async (seconds: number): Promise<void> => {
      const from = await media()
      await eventually(media, 60_000).toBeGreaterThanOrEqual(from + seconds)
    }
    await moreMedia(4)
    expect(await text(page.getByTestId('live-scene'))).toBe('Scene: Screen + camera')

    // Switch to the screen alone and back, live.
    await page
      .getByTestId('scene-tab')
      .filter({ hasText: /^Screen$/ })
      .click()
    await eventually(() => text(page.getByTestId('live-scene'))).toBe('Scene: Screen')
    await collectGarbage(page)
    await moreMedia(4)
    await page.getByTestId('scene-tab').filter({ hasText: 'Screen + camera' }).click()
    await eventually(() => text(page.getByTestId('live-scene'))).toBe('Scene: Screen + camera')
    await collectGarbage(page)
    await moreMedia(4)

    // Mute from the banner: instant, and said there; the mixer agrees. Then the screen audio too,
    // so the end of the recording must be silent.
    await page.getByTestId('banner-mute-mic').click()
    await page.getByTestId('mic-muted').waitFor()
    expect(await attr(page.getByTestId('mute-mic'), 'aria-pressed')).toBe('true')
    await shot(page, 'scene-live-banner-muted', false)
    await page.getByTestId('mute-screen').click()
    // Four seconds of media after the second mute, placed on the media clock: the studio's count alone
    // can grow faster than real time when a backlog drains, and then the last seconds held sound from
    // before the mutes (one clean-clone CI run: a 0 dB peak, the fake microphone's beep).
    const mutedAt = Date.now()
    expect(mediaEpoch).toBeDefined()
    await eventually(media, 60_000).toBeGreaterThanOrEqual((mutedAt - mediaEpoch!) / 1000 + 4)
    await stopLive(page)
    off()
    offHealth()

    // One run, never reconnecting; one session.
    expect(new Set(states.map((s) => s.runId)).size).toBe(1)
    expect(states.map((s) => s.state)).not.toContain('reconnecting')
    expect(states.filter((s) => s.state === 'live')).toHaveLength(1)
    let sessions = (await shell.core.listSessions({ streamId })).items
    await eventually(async () => {
      sessions = (await shell.core.listSessions({ streamId })).items
      return sessions.map((s) => s.recordingStatus)
    }, 60_000).toEqual(['ready'])
    const s = sessions[0]!
    const decoded = await decodeAll(s.mp4Url!)
    expect(decoded.stderr).toBe('')
    expect(s.sourceSegmentsDuration).toBeGreaterThan(14)

    // Two frames a second through the whole recording: the corner shows the camera, then the screen
    // (the "Screen" scene), then the camera again; the title band is there whenever the camera is.
    const frames = await framesOf(s.mp4Url!, 2)
    expect(frames.length).toBeGreaterThan(28)
    const corner = frames.map((f) =>
      isWholeCamera(colourAt(f, ...IN_CAMERA))
        ? 'C'
        : isGreen(colourAt(f, ...IN_CAMERA))
          ? 'S'
          : '?'
    )
    const runs = corner
      .join('')
      .replace(/\?/g, '')
      .replace(/(.)\1+/g, '$1')
    expect(runs, corner.join('')).toBe('CSC')
    // A frame next to a change of scene may be inside the 300 ms dissolve (two pictures blended): the
    // corner counts as the camera only when it is the camera whole (isWholeCamera), and the band's and
    // the screen's colours are checked on frames whose neighbours agree. Two CI runs failed on a band
    // 70 % of the way from the screen's green (135,62,40 on 26 Nov, 142,59,43 on 29 Nov: 0.7 x
    // 199,29,59 + 0.3 x 0,135,0 is 139,61,41), a dissolve's frame the old test took for the camera
    // (isBlue passes a 70 % blend), its neighbours too (likely one frame held for a second or more by
    // a stall on a loaded machine, seen again by the 2 fps samples around it).
    const settled = (i: number, c: string): boolean =>
      corner[i - 1] === c && corner[i] === c && corner[i + 1] === c
    const cameraAt = frames.map((_, i) => i).filter((i) => settled(i, 'C'))
    expect(cameraAt.length).toBeGreaterThan(8)
    for (const i of cameraAt) {
      const f = frames[i]!
      const where = `frame ${i} of ${corner.join('')}`
      expect(isGreen(colourAt(f, ...IN_SCREEN)), where).toBe(true)
      expect(
        isBand(colourAt(f, ...IN_BAND)),
        `${String(colourAt(f, ...IN_BAND))} at ${where}`
      ).toBe(true)
    }
    // The "Screen" scene has no title and no camera: the band's place shows the screen.
    const screenOnly = frames.filter((_, i) => settled(i, 'S'))
    expect(screenOnly.length).toBeGreaterThan(3)
    for (const f of screenOnly) expect(isBand(colourAt(f, ...IN_BAND))).toBe(false)

    // Sound before the mutes, silence after both.
    const { duration } = await ffprobe(s.mp4Url!)
    const before = await maxVolume(s.mp4Url!, 1, 4)
    const after = await maxVolume(s.mp4Url!, duration - 3, duration)
    expect(before).toBeGreaterThan(-40)
    expect(after).toBeLessThan(-60)
    // Chromium names unclosed frames some seconds after they were collected: checked last, once the
    // recording has been decoded, with a collection forced after every switch (collectGarbage).
    if (unclosed.length > 0)
      console.warn(`[scenes] Chromium named ${unclosed.length} unclosed VideoFrame`)
    expect(unclosed.length).toBeLessThanOrEqual(1)
  })
})

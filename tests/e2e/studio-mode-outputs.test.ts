// Studio mode (#34 §3): what leaves the computer follows the program, never the preview. Live on a scene
// with studio mode on and Record on this computer, the preview changes scene three times while the
// program stays on "Screen + camera"; then Transition puts "Camera" on air. The camera is a blue file
// (helpers/fake-camera.ts), so "Camera" is blue in the middle and "Screen + camera" (no screen shared)
// is not. The local copy, decoded, and the live monitor (the stream's own HLS from the local studio,
// played in a second window of the app) each go from not blue to blue once: following the preview they would have
// turned blue, back and blue again before the Transition.
import { execFileSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { makeFakeCamera } from '../helpers/fake-camera'
import { testFfmpeg } from '../helpers/studio'
import {
  appForFile,
  createStream,
  eventually,
  pressGoLive,
  savedLocalCopy,
  sceneColourAt,
  stopLive,
  text
} from './app-page'

const camera = makeFakeCamera(mkdtempSync(join(tmpdir(), 'onair-studio-mode-out-cam-')))
const app = appForFile({ chromiumArgs: [camera.flag] })

type RGB = [number, number, number]
const isBlue = ([r, g, b]: RGB): boolean => b > 150 && r < 100 && g < 130
const tab = (page: Page, name: RegExp) => page.getByTestId('scene-tab').filter({ hasText: name })

/** Runs of one colour, shorter runs (a transition's frames, a misread) left out: e.g. [false, true]. */
function colourRuns(samples: readonly boolean[], min: number): boolean[] {
  const runs: { blue: boolean; n: number }[] = []
  for (const s of samples) {
    const last = runs[runs.length - 1]
    if (last && last.blue === s) last.n++
    else runs.push({ blue: s, n: 1 })
  }
  const kept = runs.filter((r) => r.n >= min).map((r) => r.blue)
  return kept.filter((b, i) => i === 0 || kept[i - 1] !== b)
}

/** Each frame of a video file, middle blue or not (decoded by ffmpeg, scaled to 32x18). */
function fileColours(file: string): boolean[] {
  const raw = execFileSync(
    testFfmpeg(),
    [
      '-v',
      'error',
      '-i',
      file,
      '-an',
      '-vf',
      'scale=32:18',
      '-pix_fmt',
      'rgb24',
      '-f',
      'rawvideo',
      '-'
    ],
    { maxBuffer: 256 * 1024 * 1024 }
  )
  const size = 32 * 18 * 3
  const out: boolean[] = []
  for (let at = 0; at + size <= raw.length; at += size) {
    const sum: RGB = [0, 0, 0]
    let n = 0
    for (let y = 7; y < 11; y++)
      for (let x = 12; x < 20; x++) {
        const i = at + (y * 32 + x) * 3
        sum[0] += raw[i]!
        sum[1] += raw[i + 1]!
        sum[2] += raw[i + 2]!
        n++
      }
    out.push(isBlue(sum.map((v) => v / n) as RGB))
  }
  return out
}

/** The live monitor's <video> middle: blue, not blue, or null before it shows a frame. */
const monitorBlue = (page: Page): Promise<boolean | null> =>
  page.evaluate(() => {
    const doc = (globalThis as unknown as { document: Document }).document
    const v = doc.querySelector('[data-testid=live-monitor] video') as HTMLVideoElement | null
    if (!v || v.readyState < 2 || !v.videoWidth) return null
    const c = doc.createElement('canvas')
    c.width = 32
    c.height = 18
    const ctx = c.getContext('2d')!
    ctx.drawImage(v, 0, 0, 32, 18)
    const d = ctx.getImageData(12, 7, 8, 4).data
    let r = 0
    let g = 0
    let b = 0
    for (let i = 0; i < d.length; i += 4) {
      r += d[i]!
      g += d[i + 1]!
      b += d[i + 2]!
    }
    const n = d.length / 4
    return b / n > 150 && r / n < 100 && g / n < 130
  })

describe('studio mode: what goes out', () => {
  it('the local copy and the live monitor follow the program, not the preview', async () => {
    const { page, shell } = app()
    await createStream(page, 'Program only', { profiles: 'none', record: false })
    await page.getByTestId('stream-go-live').click()
    await page.getByTestId('source-scene').check()
    await page.getByTestId('scene-canvas').waitFor()
    await page.getByTestId('transition-kind').selectOption('cut')
    const local = page.getByTestId('record-locally')
    if (!(await local.isChecked())) await local.check()
    await tab(page, /^Screen \+ camera$/).click()
    await eventually(async () => isBlue(await sceneColourAt(page, 0.5, 0.5)), 20_000).toBe(false)
    await pressGoLive(page)
    await page.getByTestId('studio-mode').check()
    await page.getByTestId('studio-preview-canvas').waitFor()
    // The live monitor in a second window of the app (a dialog over this one would cover the scene
    // tabs): the stream page's Watch.
    const watcher = await page.context().newPage()
    await watcher.goto(shell.url)
    await watcher
      .getByRole('navigation', { name: 'Main' })
      .getByRole('button', { name: 'Streams', exact: true })
      .click()
    await watcher.getByRole('button', { name: 'Program only', exact: true }).click()
    await watcher.getByTestId('stream-watch').click()
    await watcher.getByTestId('live-monitor').waitFor()

    // The monitor, sampled every 200 ms from now until it has shown blue for 2 s.
    const seen: boolean[] = []
    let sampling = true
    const sampler = (async () => {
      while (sampling) {
        const b = await monitorBlue(watcher).catch(() => null)
        if (b !== null) seen.push(b)
        await new Promise((r) => setTimeout(r, 200))
      }
    })()
    await eventually(async () => seen.length, 60_000).toBeGreaterThan(10)
    // The preview: Camera, Screen + camera, Camera, 3 s each; the program stays on Screen + camera.
    for (const pick of [/^Camera$/, /^Screen \+ camera$/, /^Camera$/]) {
      await tab(page, pick).click()
      const until = Date.now() + 3000
      while (Date.now() < until) {
        expect(
          isBlue(await sceneColourAt(page, 0.5, 0.5)),
          'the program while the preview changes'
        ).toBe(false)
        await new Promise((r) => setTimeout(r, 200))
      }
    }
    await page.getByTestId('studio-transition').click()
    await eventually(async () => isBlue(await sceneColourAt(page, 0.5, 0.5)), 3000).toBe(true)
    // The monitor plays the stream seconds behind: wait for its blue to hold 2 s (10 samples).
    const held = (): boolean => seen.length >= 10 && seen.slice(-10).every(Boolean)
    await eventually(async () => held(), 60_000)
      .toBe(true)
      .catch(async (e: unknown) => {
        // Say what the monitor and the live bar showed, for a failure on a busy machine.
        const bar = await text(page.getByTestId('live-banner')).catch(() => '?')
        const monitor = await text(watcher.getByTestId('live-monitor')).catch(() => '?')
        const tail = seen
          .slice(-30)
          .map((b) => (b ? 'B' : '-'))
          .join('')
        throw new Error(
          `${String(e)}; ${seen.length} monitor samples, the last 30: ${tail}; the live bar: ${bar}; the monitor: ${monitor}`
        )
      })
    sampling = false
    await sampler
    await watcher.close()
    await stopLive(page)

    expect(colourRuns(seen, 5), 'the live monitor: not blue, then blue once').toEqual([false, true])
    const copy = await savedLocalCopy(shell)
    const frames = fileColours(copy.file)
    expect(frames.length, 'frames in the local copy').toBeGreaterThan(100)
    expect(colourRuns(frames, 10), 'the local copy: not blue, then blue once').toEqual([
      false,
      true
    ])
  }, 240_000)
})

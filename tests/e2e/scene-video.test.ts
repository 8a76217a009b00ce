// A video file source (#34 §4): picked through the page's file input, it is drawn by the compositor in
// the scene, loops, and is saved as a source whose sound starts muted. The clip is made by ffmpeg: half
// a second of red, then half a second of blue (VP8 in WebM, which every Chromium plays).
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'vitest'
import { readScenes } from '../../src/shared/scenes-saved'
import { makeMediaFile } from '../helpers/studio'
import { appForFile, createStream, eventually, nav, sceneColourAt, text } from './app-page'

const dir = mkdtempSync(join(tmpdir(), 'onair-scene-video-'))
const app = appForFile()

const clip = (): string =>
  makeMediaFile(join(dir, 'red-blue.webm'), [
    ...[
      '-filter_complex',
      'color=c=red:s=320x180:r=30:d=0.5[a];color=c=blue:s=320x180:r=30:d=0.5[b];[a][b]concat=n=2:v=1[v]'
    ],
    ...['-map', '[v]', '-c:v', 'libvpx', '-b:v', '500k']
  ])

const isRed = ([r, g, b]: [number, number, number]): boolean => r > 180 && g < 80 && b < 80
const isBlue = ([r, g, b]: [number, number, number]): boolean => b > 180 && r < 80 && g < 80

describe('video file source', () => {
  it('is drawn in the scene, loops, and is saved with its sound muted', async () => {
    const { page, shell } = app()
    await createStream(page, 'Scene video', { profiles: 'none', record: false })
    await page.getByTestId('stream-go-live').click()
    await page.getByTestId('source-scene').check()
    await page.getByTestId('scene-canvas').waitFor()
    await page.getByTestId('video-file').setInputFiles(clip())
    // The source, or the error that says why not (named in the failure).
    const added = page.locator('[data-testid=video-source], [data-testid=image-error]').first()
    await eventually(() => text(added), 20_000).toContain('red-blue.webm')

    // The clip is 1 s long. Watch the middle of the picture (the video is centred): red, then blue,
    // then red again more than 1.5 s after red was first seen, which only a looping video shows.
    const centre = () => sceneColourAt(page, 0.5, 0.5)
    await eventually(async () => isRed(await centre()), 20_000).toBe(true)
    const firstRed = Date.now()
    await eventually(async () => isBlue(await centre()), 10_000).toBe(true)
    await eventually(
      async () => isRed(await centre()) && Date.now() - firstRed > 1500,
      10_000
    ).toBe(true)

    // Saved (debounced) with its sound muted, and no bytes in the settings.
    const savedVideo = async () =>
      readScenes((await shell.core.getSettings()).scenes).sources.find((s) => s.kind === 'video')
    await eventually(savedVideo).toMatchObject({
      name: 'red-blue.webm',
      width: 320,
      height: 180,
      muted: true,
      gain: 1
    })

    // After a restart the source is kept and asks for its file again; picked, it plays again.
    await page.reload()
    await nav(page, 'Go live')
    await page.getByTestId('scene-canvas').waitFor()
    const again = page
      .getByTestId('video-source')
      .getByRole('button', { name: 'Pick the file again' })
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), again.click()])
    await chooser.setFiles(clip())
    await eventually(async () => isRed(await centre()), 20_000).toBe(true)
    await again.waitFor({ state: 'detached' })
  })
})

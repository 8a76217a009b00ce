// Who is watching (#20): two hls.js players on this computer count two in the live bar, Onair's own
// live monitor counts none, and the stream page keeps the peak once the run is over. Real Chromium,
// real hls.js, the local studio's live HLS.
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import {
  appForFile,
  createStream,
  eventually,
  goLive,
  nav,
  playingPast,
  shot,
  stopLive,
  text
} from './app-page'

const app = appForFile()
const HLS_JS = join(__dirname, '../../node_modules/hls.js/dist/hls.min.js')

/** A viewer's own page: hls.js playing the stream's playback URL, muted so it may autoplay. */
async function viewer(url: string): Promise<Page> {
  const page = await app().browser.newPage()
  await page.setContent('<video id="v" muted playsinline style="width:320px"></video>')
  await page.addScriptTag({ path: HLS_JS })
  await page.evaluate((src) => {
    const g = globalThis as unknown as {
      Hls: new () => { loadSource(u: string): void; attachMedia(v: unknown): void }
      document: { getElementById(id: string): { play(): Promise<void> } }
    }
    const video = g.document.getElementById('v')
    const hls = new g.Hls()
    hls.loadSource(src)
    hls.attachMedia(video)
    void video.play().catch(() => undefined)
  }, url)
  await playingPast(page, 0.5, '#v')
  return page
}

describe('viewers', () => {
  it('two players count two, the monitor none; the peak stays on the stream page', async () => {
    const { page, shell } = app()
    await createStream(page, 'Watched show', { profiles: 'none', record: false })
    await goLive(page, 'test-pattern')
    const count = page.getByTestId('live-viewers')
    await eventually(() => text(count), 20_000).toBe('0 watching')
    const stream = (await shell.core.listStreams({ limit: 100 })).items.find(
      (s) => s.name === 'Watched show'
    )!
    const one = await viewer(stream.playbackUrl)
    const two = await viewer(stream.playbackUrl)
    await eventually(() => text(count), 20_000).toBe('2 watching')
    // The creator's own monitor is not a viewer.
    await page.getByTestId('watch-live').click()
    const monitor = page.getByTestId('live-monitor')
    await monitor.waitFor()
    await playingPast(page, 0.5)
    await shot(page, 'viewers-live-bar', false)
    // The monitor plays, so it has fetched its master: the service still counts two, and so does the bar.
    expect((await shell.core.viewersNow(stream.id, stream.playbackId)).now).toBe(2)
    expect(await text(count)).toBe('2 watching')
    await monitor.getByRole('button', { name: 'Close' }).click()
    await one.close()
    await two.close()
    await stopLive(page)
    // The stream page says the most there were while Onair was live on it.
    await nav(page, 'Streams')
    await page.getByRole('button', { name: 'Watched show', exact: true }).click()
    await eventually(() => text(page.getByTestId('viewer-peak')), 15_000).toBe(
      'Most watching when last live from Onair: 2'
    )
  })
})

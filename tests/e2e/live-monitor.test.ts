// Watch yourself live: the live monitor plays the stream's live HLS (hls.js) from the stream page and
// from the live bar, says which rendition is playing and how far behind live it is (the local studio
// writes EXT-X-PROGRAM-DATE-TIME); a live session in the sessions list reads "Live" and offers Watch.
import { describe, expect, it } from 'vitest'
import {
  createStream,
  eventually,
  goLive,
  nav,
  playingPast,
  appForFile,
  shot,
  stopLive,
  text
} from './app-page'

const app = appForFile()

describe('live monitor', () => {
  it('plays the live output with its rendition and delay, from the stream page, the bar and the list', async () => {
    const { page } = app()
    await createStream(page, 'Monitor me', { profiles: 'recommended', record: true })
    await goLive(page, 'camera')
    await page.getByTestId('live-banner').getByRole('button', { name: 'Open' }).click()
    // From the stream page.
    await page.getByRole('button', { name: 'Streams', exact: true }).first().click()
    await page.getByRole('button', { name: 'Monitor me', exact: true }).click()
    await page.getByTestId('stream-watch').click()
    const monitor = page.getByTestId('live-monitor')
    await monitor.waitFor()
    await playingPast(page, 1)
    await eventually(() => text(page.getByTestId('rendition-now')), 30_000).toMatch(
      /^Playing (Source|720p|480p|360p) \(\d+×\d+\), /
    )
    const latency = page.getByTestId('live-latency')
    await eventually(() => text(latency), 30_000).toMatch(/^Live · \d+\.\d s behind$/)
    const seconds = Number(await latency.getAttribute('data-seconds'))
    expect(seconds).toBeGreaterThan(0)
    expect(seconds).toBeLessThan(15)
    await shot(page, 'live-monitor', false)
    await page.keyboard.press('Escape')
    await eventually(() => monitor.count()).toBe(0)

    // From the live bar.
    await page.getByTestId('watch-live').click()
    await monitor.waitFor()
    await playingPast(page, 1)
    await monitor.getByRole('button', { name: 'Close' }).click()

    // The sessions list says Live and offers Watch.
    await nav(page, 'Sessions')
    const row = page.locator('[data-testid=session-row][data-status=live]').first()
    await row.waitFor({ timeout: 30_000 })
    expect(await text(row.getByTestId('recording-status'))).toBe('live')
    await row.getByTestId('watch-session').click()
    await monitor.waitFor()
    await monitor.getByRole('button', { name: 'Close' }).click()
    await stopLive(page)
  })
})

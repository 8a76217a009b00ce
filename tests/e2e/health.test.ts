// Health that tells the truth: actual against target (fps and Mbps), bars that agree with the word
// beside them, and a sustained shortfall explained in one sentence naming its cause. Chromium's fake
// camera delivers 20 fps against the 30 fps target: a real shortfall, named as the camera's.
import { describe, expect, it } from 'vitest'
import { createStream, eventually, goLive, appForFile, shot, stopLive, text } from './app-page'

const app = appForFile()
const WORDS = ['fine', 'watch', 'struggling', 'failing to keep up']

describe('live health', () => {
  it('shows actual / target, bars that agree with the word, and names the camera as the cause', async () => {
    const { page } = app()
    await createStream(page, 'Health', { profiles: 'none', record: false })
    await goLive(page, 'camera')
    expect(await text(page.getByTestId('health-fps'))).toMatch(/^\d+ \/ 30 fps$/)
    expect(await text(page.getByTestId('health-kbps'))).toMatch(/^\d+(\.\d+)? \/ 2\.628 Mbps$/)
    const dd = page.getByTestId('health-congestion')
    const level = Number(await dd.getAttribute('data-level'))
    expect(await text(dd)).toBe(WORDS[level])
    expect(Number(await page.getByTestId('health-bars').getAttribute('data-lit'))).toBe(4 - level)
    expect(await page.getByTestId('health-bars').locator('i.on').count()).toBe(4 - level)
    // 20 fps from the fake camera for more than 5 s: said once, with the cause (a loaded 2-core
    // machine's fake camera gives 18: any shortfall from 10 fps up is the camera's here).
    const warning = page.getByTestId('health-warning')
    await eventually(() => text(warning), 40_000).toMatch(/the camera delivers [12]\d fps \(of 30\)/)
    expect(await text(warning)).toMatch(/^For \d+ s the stream has fallen short: /)
    // The rate shown and the rate in the sentence are the same measurement (the recent one).
    const shown = parseInt(await text(page.getByTestId('health-fps')), 10)
    const said = Number(/delivers (\d+) fps/.exec(await text(warning))?.[1])
    expect(Math.abs(shown - said)).toBeLessThanOrEqual(3)
    await shot(page, 'live-health-shortfall')
    await stopLive(page)
  })
})

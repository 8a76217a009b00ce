// Destinations (multistream), driven from the UI in real Chromium: two destinations that are real RTMP
// ingests (two other streams of the same local studio), the form's presets, masked key and refusals,
// going live and seeing both live in the banner, a third added while live that is refused at the far
// end (retrying, with the reason), disabled and deleted while live, then stop.
import { join } from 'node:path'
import AxeBuilder from '@axe-core/playwright'
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import {
  appForFile,
  attr,
  createStream,
  eventually,
  goLive,
  ingestAddressOf,
  nav,
  shot,
  SHOTS,
  stopLive,
  text
} from './app-page'
import { sharedTransport } from '../../src/main/core/http-transport'
import { NotingTransport } from '../helpers/studio-client'
import { STREAM_POLL_MS, TARGETS_REFRESH_MS } from '../../src/renderer/src/lib/stream-store'

const app = appForFile()

/** The core's requests to the service (the local studio here) from now until stop(), as sent. */
function watchRequests(): { list: NotingTransport['sent']; stop: () => void } {
  const noting = new NotingTransport()
  const request = sharedTransport.request
  sharedTransport.request = (...a) => noting.request(...a)
  return {
    list: noting.sent,
    stop: () => {
      sharedTransport.request = request
      noting.close()
    }
  }
}

const SHOW = 'Morning show'

async function addDestination(
  page: Page,
  d: { name: string; server: string; key: string }
): Promise<void> {
  await page.getByTestId('add-destination').click()
  const form = page.getByTestId('destination-form')
  await form.getByTestId('destination-preset-custom').check()
  await form.getByTestId('destination-name').fill(d.name)
  await form.getByTestId('destination-server').fill(d.server)
  await form.getByTestId('destination-key').fill(d.key)
  await form.getByTestId('destination-add').click()
  await form.waitFor({ state: 'detached' })
  await row(page, d.name).waitFor()
}

const row = (page: Page, name: string) =>
  page.locator(`[data-testid=destination][data-name="${name}"]`)
const banner = (page: Page) => page.getByTestId('live-destinations')

/** No serious or critical axe violation in the Destinations section and the live banner. */
async function accessible(page: Page): Promise<void> {
  const r = await new AxeBuilder({ page })
    .include('[data-testid=destinations]')
    .include('[data-testid=live-banner]')
    .analyze()
  const bad = r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual(
    []
  )
}

describe('destinations', () => {
  it('adds two from the form, goes live on both, and manages a third while live', async () => {
    const a = app()
    const { page, calls } = a
    await createStream(page, 'Relay A', { profiles: 'none', record: false })
    await createStream(page, 'Relay B', { profiles: 'none', record: false })
    const relayA = await ingestAddressOf(a, 'Relay A')
    const relayB = await ingestAddressOf(a, 'Relay B')
    await createStream(page, SHOW, { profiles: 'none', record: false })

    const section = page.getByTestId('destinations')
    await section.getByTestId('no-destinations').waitFor()

    // The presets fill the server URL, which stays editable.
    await page.getByTestId('add-destination').click()
    const server = page.getByTestId('destination-server')
    expect(await server.inputValue()).toBe('rtmp://a.rtmp.youtube.com/live2')
    await page.getByTestId('destination-preset-twitch').check()
    expect(await server.inputValue()).toBe('rtmp://live.twitch.tv/app')
    expect(await page.getByTestId('destination-name').inputValue()).toBe('Twitch')
    await page.getByTestId('destination-preset-facebook').check()
    expect(await server.inputValue()).toBe('rtmps://live-api-s.facebook.com:443/rtmp/')

    // The key is masked as it is typed; Show reveals it, Hide masks it again.
    const key = page.getByTestId('destination-key')
    await key.fill(relayA.key)
    expect(await attr(key, 'type')).toBe('password')
    expect(await page.content()).not.toContain(relayA.key)
    await page.getByTestId('destination-key-toggle').click()
    expect(await attr(key, 'type')).toBe('text')
    await page.getByTestId('destination-key-toggle').click()
    expect(await attr(key, 'type')).toBe('password')

    // A URL that is not rtmp://, rtmps:// or srt:// is refused in the form, before anything is sent.
    await page.getByTestId('destination-preset-custom').check()
    await page.getByTestId('destination-name').fill('Wrong scheme')
    await server.fill('http://127.0.0.1/live')
    await page.getByTestId('destination-add').click()
    await eventually(() => text(page.getByTestId('issue-server'))).toContain(
      'rtmp://, rtmps:// or srt://'
    )
    expect(await attr(server, 'aria-invalid')).toBe('true')
    expect(calls).not.toContain('addDestination')
    await accessible(page)
    await shot(page, 'destinations-form-refused')
    await page.getByTestId('destination-form').getByRole('button', { name: 'Cancel' }).click()

    await addDestination(page, { name: 'Relay A', ...relayA })
    await addDestination(page, { name: 'Relay B', ...relayB })
    // Only the name and the rendition come back: never the URL or the key.
    expect(await text(row(page, 'Relay A').getByTestId('destination-rendition'))).toBe(
      'source rendition'
    )
    const html = await page.content()
    for (const secret of [relayA.key, relayB.key]) expect(html).not.toContain(secret)
    expect(await attr(row(page, 'Relay A'), 'data-state')).toBe('idle')
    await section.screenshot({ path: join(SHOTS, 'destinations-idle.png') })

    await goLive(page, 'test-pattern')
    await nav(page, 'Streams')
    await page.getByRole('button', { name: SHOW, exact: true }).click()
    await section.waitFor()
    await eventually(() => text(banner(page)), 30_000).toBe('+ 2 destinations')
    expect(await text(page.getByTestId('live-title'))).toBe(`Live on ${SHOW}`)
    await eventually(() => attr(row(page, 'Relay A'), 'data-state')).toBe('live')
    await eventually(() => attr(row(page, 'Relay B'), 'data-state')).toBe('live')
    // Really forwarded: both relay streams went active on the studio's ingest.
    const core = a.shell.core
    const idOf = async (name: string) =>
      (await core.listStreams({ limit: 1000 })).items.find((s) => s.name === name)!.id
    for (const name of ['Relay A', 'Relay B']) {
      const id = await idOf(name)
      await eventually(async () => (await core.getStream(id)).isActive, 30_000).toBe(true)
    }
    await section.getByTestId('destinations-live-note').waitFor()

    // One poller: the stream page, its Destinations and the banner all show this stream while it is
    // live, and the studio is asked for it once a poll period, and for its targets at most once in
    // TARGETS_REFRESH_MS (the states come from the stream's own answer). Counted where the core's
    // requests leave for the studio.
    const showId = await idOf(SHOW)
    const sent = watchRequests()
    try {
      const streamReads = () => sent.list.filter((r) => r.path === `/api/stream/${showId}`)
      const reads = 6
      await eventually(async () => streamReads().length, 30_000).toBeGreaterThanOrEqual(reads)
      const [first, last] = [streamReads()[0]!.at, streamReads()[reads - 1]!.at]
      // Six reads take five periods with one poller (the page's and the destinations' two pollers
      // made them in about three); a read is never early, it may be a little late.
      expect(last - first).toBeGreaterThanOrEqual((reads - 1) * STREAM_POLL_MS - 250)
      const targetReads = sent.list.filter(
        (r) => r.path.startsWith('/api/multistream/target') && r.at <= last
      )
      // The two targets are read again once at most in the window (shorter than the refresh
      // period), and then in one request for the list.
      expect(last - first).toBeLessThan(TARGETS_REFRESH_MS)
      expect(targetReads.length).toBeLessThanOrEqual(1)
      expect(sent.list.every((r) => r.method === 'GET')).toBe(true)
    } finally {
      sent.stop()
    }
    await page
      .getByTestId('live-banner')
      .screenshot({ path: join(SHOTS, 'destinations-banner.png') })
    await section.screenshot({ path: join(SHOTS, 'destinations-live.png') })

    // Editable while live: a third, refused at the far end, shows as retrying with the reason.
    await addDestination(page, {
      name: 'Nobody home',
      server: 'rtmp://127.0.0.1:9/live',
      key: 'nobody-home-key-123'
    })
    await eventually(() => attr(row(page, 'Nobody home'), 'data-state'), 30_000).toBe('retrying')
    await eventually(() => text(banner(page)), 15_000).toBe('+ 3 destinations (1 retrying)')
    const reason = await text(row(page, 'Nobody home').getByTestId('destination-reason'))
    expect(reason.length).toBeGreaterThan(0)
    expect(reason).not.toContain('nobody-home-key-123')
    await accessible(page)
    await page
      .getByTestId('live-banner')
      .screenshot({ path: join(SHOTS, 'destinations-banner-retrying.png') })
    await section.screenshot({ path: join(SHOTS, 'destinations-retrying.png') })

    await row(page, 'Nobody home').getByTestId('destination-enabled').uncheck()
    await eventually(() => attr(row(page, 'Nobody home'), 'data-state')).toBe('disabled')
    await eventually(() => text(banner(page))).toBe('+ 2 destinations, 1 disabled')
    await row(page, 'Nobody home').getByTestId('destination-delete').click()
    await row(page, 'Nobody home').getByTestId('destination-delete-confirm').click()
    await eventually(() => row(page, 'Nobody home').count()).toBe(0)
    await eventually(() => text(banner(page))).toBe('+ 2 destinations')

    await stopLive(page)
    await eventually(() => attr(row(page, 'Relay A'), 'data-state'), 30_000).toBe('idle')
    expect(await banner(page).count()).toBe(0)
    expect(await page.content()).not.toContain('nobody-home-key-123')
  })

  it("shows the service's refusal (a rendition the stream no longer has) with its message", async () => {
    const a = app()
    const { page } = a
    await createStream(page, 'Stale page', { profiles: 'recommended', record: false })
    await page.getByTestId('add-destination').click()
    const rendition = page.getByTestId('destination-profile')
    const offered = await rendition
      .locator('option')
      .evaluateAll((os) => os.map((o) => (o as unknown as { value: string }).value))
    expect(offered[0]).toBe('source')
    expect(offered.length).toBeGreaterThan(1)
    await rendition.selectOption(offered.at(-1)!)
    await page.getByTestId('destination-name').fill('Stale')
    await page.getByTestId('destination-server').fill('rtmp://127.0.0.1:9/live')
    await page.getByTestId('destination-key').fill('stale-page-key-123')
    // Meanwhile the stream loses its profiles (another window, another tool): the page is stale.
    const core = a.shell.core
    const id = (await core.listStreams({ limit: 1000 })).items.find(
      (s) => s.name === 'Stale page'
    )!.id
    await core.updateStream({ id, profiles: [] })
    await page.getByTestId('destination-add').click()
    const error = page.getByTestId('destination-error')
    await eventually(() => text(error)).toContain('profile not found')
    expect(await attr(error, 'data-code')).toBe('rule')
    expect(await page.getByTestId('destination').count()).toBe(0)
    // The form keeps what was typed, so it can be fixed and sent again; the key is in the field only.
    expect(await page.getByTestId('destination-key').inputValue()).toBe('stale-page-key-123')
    expect(await page.content()).not.toContain('stale-page-key-123')
    await shot(page, 'destinations-service-refused')
  })
})

// Layout at a laptop's 1366x768 (#34 §7): Go live in view without scrolling, the live bar's Stop in
// view wherever the page is scrolled, the Sessions headings over their columns (both tables), and the
// Webhooks screen (add with its secret shown once, a delivery of a real stream event with its status,
// resend, delete). The receiver is a real HTTP server here; the events come from a real test-pattern
// broadcast to the local studio.
import { createHmac } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appForFile, createStream, eventually, nav, pressGoLive, stopLive, text } from './app-page'

const app = appForFile()
const W = 1366
const H = 768
const STREAM = 'Layout check'

interface Delivery {
  headers: IncomingHttpHeaders
  body: string
}
const received: Delivery[] = []
let receiver: Server
let receiverUrl = ''
/** The secret the screen showed once, to check the receiver's signatures with. */
let shownSecret = ''

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks')
    })
  })
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
})
afterAll(async () => {
  await new Promise((r) => receiver?.close(r))
})

const box = async (l: Locator) => {
  const b = await l.boundingBox()
  if (!b) throw new Error('not rendered')
  return b
}
/** Within the window as it is now: the element's whole box between the top and the bottom. */
const inView = async (page: Page, l: Locator): Promise<boolean> => {
  const b = await box(l)
  const vh = page.viewportSize()?.height ?? H
  return b.y >= 0 && b.y + b.height <= vh
}

/** Each heading's horizontal range overlaps its column's cells, in every rendered row. */
async function headingsOverColumns(page: Page, table: Locator): Promise<string[]> {
  const heads = table.locator('[role=columnheader]')
  const rows = table.locator('[data-testid=session-row]')
  await rows.first().waitFor()
  const names = await heads.allTextContents()
  const off: string[] = []
  const rowCount = Math.min(await rows.count(), 3)
  for (let i = 0; i < names.length; i++) {
    const h = await box(heads.nth(i))
    for (let r = 0; r < rowCount; r++) {
      const c = await box(rows.nth(r).locator('[role=cell]').nth(i))
      const overlap = Math.min(h.x + h.width, c.x + c.width) - Math.max(h.x, c.x)
      // Overlapping, and the heading starts where its column starts (not over its neighbour).
      if (overlap <= 0 || Math.abs(h.x - c.x) > 2)
        off.push(
          `${names[i]}: heading ${Math.round(h.x)}-${Math.round(h.x + h.width)}, cells ${Math.round(c.x)}-${Math.round(c.x + c.width)}`
        )
    }
  }
  expect(await rows.first().locator('[role=cell]').count()).toBe(names.length)
  return off
}

describe('Layout at 1366x768', () => {
  it('shows Go live without scrolling, for each source', async () => {
    const { page } = app()
    await page.setViewportSize({ width: W, height: H })
    await createStream(page, STREAM, { profiles: 'none', record: true })
    await page.getByTestId('stream-go-live').click()
    for (const source of ['camera', 'screen', 'scene', 'test-pattern']) {
      await page.getByTestId(`source-${source}`).check()
      await page.evaluate(() => window.scrollTo(0, 0))
      const go = page.getByTestId('go-live')
      await go.waitFor()
      const b = await box(go)
      expect(
        b.y + b.height,
        `${source}: Go live ends at ${Math.round(b.y + b.height)} px`
      ).toBeLessThanOrEqual(H)
      await page.screenshot({ path: `/tmp/layout-golive-${source}-1366.png` })
    }
  })

  it('adds a webhook and shows its secret once', async () => {
    const { page } = app()
    await page.setViewportSize({ width: W, height: H })
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('button', { name: 'Webhooks', exact: true })
      .click()
    await page.getByTestId('webhooks-empty').waitFor()
    await page.getByTestId('webhook-name').fill('Alerts')
    await page.getByTestId('webhook-url').fill(receiverUrl)
    await page.getByTestId('webhook-event-stream.started').check()
    await page.getByTestId('webhook-event-stream.idle').check()
    await page.getByTestId('webhook-add').click()
    const secret = (await text(page.getByTestId('webhook-secret'))).trim()
    expect(secret.length).toBeGreaterThanOrEqual(24)
    const row = page.getByTestId('webhook-row')
    await eventually(() => row.count()).toBe(1)
    expect(await text(row)).toContain(receiverUrl)
    expect(await text(row)).toContain('stream.started')
    // Kept where the test can check the receiver's signature with it.
    shownSecret = secret
    await page.getByTestId('webhook-secret-done').click()
    expect(await page.getByText(secret).count()).toBe(0)
    // Not again after leaving the screen: masked, as stream keys are.
    await nav(page, 'Streams')
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('button', { name: 'Webhooks', exact: true })
      .click()
    await row.waitFor()
    expect(await page.getByText(secret).count()).toBe(0)
    expect(await text(row)).toContain('••••')
  })

  it('keeps the live bar and its Stop in view with the page scrolled to the bottom', async () => {
    const { page } = app()
    await page.setViewportSize({ width: W, height: H })
    await nav(page, 'Go live')
    await page.getByTestId('source-test-pattern').check()
    await pressGoLive(page)
    const stop = page.getByTestId('stop-live')
    for (const screen of ['Go live', 'Sessions', 'Streams'] as const) {
      await nav(page, screen)
      // Taller than the window, or the scroll proves nothing. Put in (again, should the screen have
      // rendered its main anew since) and scrolled to the bottom until the window is scrolled.
      const scrolled = (): Promise<number> =>
        page.evaluate(() => {
          if (!document.getElementById('filler')) {
            const filler = document.createElement('div')
            filler.id = 'filler'
            filler.style.height = '3000px'
            document.querySelector('main')?.appendChild(filler)
          }
          window.scrollTo(0, document.documentElement.scrollHeight)
          return window.scrollY
        })
      await eventually(scrolled).toBeGreaterThan(1000)
      expect(await inView(page, stop), `Stop in view on ${screen}`).toBe(true)
      expect(await inView(page, page.getByTestId('live-state')), `state on ${screen}`).toBe(true)
      await page.evaluate(() => document.getElementById('filler')?.remove())
    }
    await nav(page, 'Go live')
    await page.evaluate(() => window.scrollTo(0, 0))
    await page.screenshot({ path: '/tmp/layout-golive-live-1366.png' })
    await stopLive(page)
  })

  it('lists the stream events delivered, with their status, and resends one', async () => {
    const { page } = app()
    await page.setViewportSize({ width: W, height: H })
    await eventually(async () => received.length, 30_000).toBeGreaterThanOrEqual(2)
    // Signed with the secret the screen showed once.
    const secret = shownSecret
    const first = received[0]!
    const v1 = /v1=([0-9a-f]+)/.exec(String(first.headers['livepeer-signature']))?.[1]
    expect(v1).toBe(createHmac('sha256', secret).update(first.body).digest('hex'))

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('button', { name: 'Webhooks', exact: true })
      .click()
    const row = page.getByTestId('webhook-row').first()
    await row.getByTestId('webhook-deliveries').click()
    const deliveries = page.getByTestId('webhook-delivery')
    await eventually(() => deliveries.count()).toBeGreaterThanOrEqual(2)
    const events = await deliveries.locator('[data-testid=delivery-event]').allTextContents()
    expect(events).toEqual(expect.arrayContaining(['stream.started', 'stream.idle']))
    expect(await text(deliveries.first())).toContain('200')
    expect(await deliveries.first().getAttribute('data-success')).toBe('true')
    await deliveries.last().scrollIntoViewIfNeeded()
    await page.screenshot({ path: '/tmp/layout-webhooks-1366.png' })

    const before = received.length
    const shown = await deliveries.count()
    await deliveries.last().getByTestId('delivery-resend').click()
    await eventually(async () => received.length).toBe(before + 1)
    await eventually(() => deliveries.count()).toBe(shown + 1)
    expect(await text(deliveries.first())).toContain('200')

    await row.getByTestId('webhook-delete').click()
    await row.getByTestId('webhook-delete-confirm').click()
    await page.getByTestId('webhooks-empty').waitFor()
  })

  it('puts each Sessions heading over its column, in both tables', async () => {
    const { page } = app()
    await page.setViewportSize({ width: W, height: H })
    await nav(page, 'Sessions')
    const all = page.getByTestId('sessions-list')
    await page.screenshot({ path: '/tmp/layout-sessions-1366.png' })
    expect(await headingsOverColumns(page, all)).toEqual([])

    await nav(page, 'Streams')
    await page.getByTestId('stream-row').filter({ hasText: STREAM }).getByRole('button').click()
    const one = page.getByTestId('sessions-list')
    await one.locator('[data-testid=session-row]').first().scrollIntoViewIfNeeded()
    await page.screenshot({ path: '/tmp/layout-stream-sessions-1366.png' })
    expect(await headingsOverColumns(page, one)).toEqual([])
  })
})

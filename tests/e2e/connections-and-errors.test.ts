// Connections that work (a custom service with the right key: use it, switch back, remove it and its
// keychain entry), a recording that cannot be fetched (the player names the error and offers Retry),
// 10,000 sessions (the list keeps a window of rows in the DOM and pages in more as it scrolls), a camera
// that is not there (a remembered device that vanished: Chromium's real OverconstrainedError), and the
// screen source; and streams listed a page at a time.
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { Keychain } from '../../src/main/core/keychain'
import { localStudioKey } from '../helpers/local-key'
import { seedSessions } from '../helpers/seed-sessions'
import {
  attr,
  eventually,
  nav,
  numberAbove,
  openApp,
  shot,
  text,
  waitLocalReady,
  type App,
  type Probe
} from './app-page'

let app: App
let localKey: string

describe('connections and recoverable errors', () => {
  beforeAll(async () => {
    app = await openApp()
    await waitLocalReady(app.page)
    localKey = await localStudioKey(app.shell.appDataDir)
  })
  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail' && app) await shot(app.page, `fail-${task.name.slice(0, 40)}`)
  })
  afterAll(async () => {
    await app?.close()
  })

  it('adds a custom service with a good key, switches to it and back, removes it with its key', async () => {
    const { page, shell } = app
    expect(localKey).toBeTruthy()
    const api = (await shell.core.connectionStatus()).local.api as string
    await nav(page, 'Connection')
    await page.getByTestId('connection-kind').selectOption('custom')
    await page.getByLabel('Name (optional)').fill('Studio over HTTP')
    await page.getByTestId('connection-url').fill(api)
    await page.getByTestId('connection-key').fill(localKey)
    // Another active service means another CSP: the page reloads itself (use-fresh-policy.ts).
    const reloads = (click: () => Promise<void>): Promise<unknown> =>
      Promise.all([page.waitForEvent('load', { timeout: 30_000 }), click()])
    await reloads(() => page.getByTestId('connection-save').click())
    const rows = page.getByTestId('connection-row')
    await eventually(() => rows.count()).toBe(2)
    // The key field is emptied once saved: the renderer never shows it again.
    await eventually(() => page.getByTestId('connection-key').inputValue()).toBe('')
    expect(await page.content()).not.toContain(localKey)
    const custom = (await shell.core.listConnections()).find((c) => c.kind === 'custom')
    expect(custom?.hasKey).toBe(true)
    expect(await new Keychain().get(custom?.id as string)).toBe(localKey)

    // A connection that passed the key check becomes the active one.
    const customRow = rows.filter({ hasText: 'Studio over HTTP' })
    const localRow = rows.filter({ hasText: 'Local studio' }).first()
    await eventually(() => attr(customRow, 'data-active')).toBe('true')
    await eventually(() => text(page.getByTestId('connection-badge'))).toContain('Studio over HTTP')
    await shot(page, 'connection-custom-active')

    await reloads(() => page.getByRole('button', { name: 'Use Local studio' }).click())
    await eventually(() => attr(localRow, 'data-active')).toBe('true')
    await reloads(() => page.getByRole('button', { name: 'Use Studio over HTTP' }).click())
    await eventually(() => attr(customRow, 'data-active')).toBe('true')
    expect((await shell.core.connectionStatus()).active?.name).toBe('Studio over HTTP')
    await reloads(() => page.getByRole('button', { name: 'Use Local studio' }).click())
    await eventually(() => attr(localRow, 'data-active')).toBe('true')
    await customRow.getByRole('button', { name: 'Remove' }).click()
    await page
      .getByRole('group', { name: /Remove Studio over HTTP/ })
      .getByRole('button', { name: 'Remove' })
      .click()
    await eventually(() => rows.count()).toBe(1)
    expect((await shell.core.listConnections()).map((c) => c.kind)).toEqual(['local'])
    expect(await new Keychain().get(custom?.id as string)).toBeUndefined()
  })

  it('10,000 sessions: a window of rows in the DOM, more pages as it scrolls, a missing recording offers Retry', async () => {
    const { page, shell } = app
    await seedSessions(join(shell.appDataDir, 'studio'), localKey, 10_000, { streamName: 'Seeded' })
    await nav(page, 'Sessions')
    await eventually(() => text(page.getByTestId('sessions-count')), 30_000).toContain(
      '10000 sessions'
    )
    const viewport = page.getByTestId('sessions-viewport')
    const rowsInDom = page.getByTestId('session-row')
    expect(await rowsInDom.count()).toBeLessThan(60)
    for (let i = 0; i < 12; i++) {
      await viewport.evaluate((el) => el.scrollBy(0, 4000))
      await page.waitForTimeout(100)
    }
    await eventually(() => text(page.getByTestId('sessions-count')), 30_000).toMatch(
      /\((?:[4-9]\d\d|\d{4,}) loaded\)/
    )
    expect(await rowsInDom.count()).toBeLessThan(60)
    expect(await viewport.evaluate((el) => el.scrollTop)).toBeGreaterThan(40_000)
    await shot(page, 'sessions-10k-scrolled', false)

    // Seeded "ready" rows have no media behind them: the player must say so and offer Retry.
    await viewport.evaluate((el) => el.scrollTo(0, 0))
    await page
      .locator('[data-testid=session-row][data-status=ready]')
      .first()
      .getByTestId('play-session')
      .click()
    const error = page.getByTestId('player-error')
    await eventually(() => error.isVisible(), 30_000).toBe(true)
    await eventually(() => text(error)).toContain('Playback failed')
    await shot(page, 'player-error', false)
    await error.getByRole('button', { name: 'Try again' }).click()
    await eventually(() => error.isVisible(), 30_000).toBe(true)
    await page.getByTestId('player').getByRole('button', { name: 'Close' }).click()
    await eventually(() => page.getByTestId('player').count()).toBe(0)
  })

  it('a remembered camera that is gone is named, the default camera recovers, the screen source opens', async () => {
    const { page, shell } = app
    await shell.core.saveSettings({
      sourceKind: 'camera',
      videoDeviceId: 'camera-that-was-unplugged'
    })
    await nav(page, 'Go live')
    const error = page.getByTestId('source-error')
    await eventually(() => text(error), 30_000).toContain('No camera was found')
    await eventually(() => text(error)).toContain('test pattern')
    await shot(page, 'golive-no-camera')
    expect(await page.getByTestId('camera-select').inputValue()).toBe('camera-that-was-unplugged')
    await page.getByTestId('camera-select').selectOption('')
    await page.waitForFunction(numberAbove, ['[data-testid=preview]', 'videoWidth', 0] as Probe)
    await eventually(() => error.count()).toBe(0)
    await eventually(async () => (await shell.core.getSettings()).videoDeviceId).toBeUndefined()

    await page.getByTestId('source-screen').check()
    await page.getByRole('button', { name: 'Choose screen' }).click()
    await eventually(() =>
      page.getByRole('button', { name: 'Choose another screen' }).isVisible()
    ).toBe(true)
    await page.waitForFunction(numberAbove, ['[data-testid=preview]', 'videoWidth', 0] as Probe)
    await shot(page, 'golive-screen')
  })

  it('streams come a page at a time: 20 first, the rest on "Load more streams"', async () => {
    const { page, shell } = app
    const before = (await shell.core.listStreams({ limit: 100 })).items.length
    for (let i = 0; i < 25; i++)
      await shell.core.createStream({
        name: `Paged ${String(i).padStart(2, '0')}`,
        profiles: [],
        record: false
      })
    await nav(page, 'Connection')
    await nav(page, 'Streams')
    const rows = page.getByTestId('stream-row')
    await eventually(() => rows.count()).toBe(20)
    await page.getByRole('button', { name: 'Load more streams' }).click()
    await eventually(() => rows.count()).toBe(before + 25)
    expect(await page.getByRole('button', { name: 'Load more streams' }).count()).toBe(0)
    await shot(page, 'streams-paged')
  })
})

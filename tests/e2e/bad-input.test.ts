// Bad input is stopped in the form with the field and the rule named, and nothing is sent; a wrong
// API key is refused by a real 401 from the local studio and nothing is saved; Livepeer Studio itself
// is unreachable on this machine, which must read as a network error (and also save nothing).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { attr, eventually, nav, openApp, shot, text, waitLocalReady, type App } from './app-page'

let app: App

describe('bad input', () => {
  beforeAll(async () => {
    app = await openApp()
    await waitLocalReady(app.page)
  })
  afterEach(async ({ task }) => {
    // A failed step leaves a picture of what the user would have seen.
    if (task.result?.state === 'fail' && app) await shot(app.page, `fail-${task.name.slice(0, 40)}`)
  })
  afterAll(async () => {
    await app?.close()
  })

  it('empty name, width 100 and a duplicate profile name are named in the form and nothing is sent', async () => {
    const { page, calls, shell } = app
    const before = (await shell.core.listStreams({})).items.length
    await nav(page, 'Streams')
    await page.getByTestId('new-stream').click()
    await page.getByTestId('preset-recommended').click()

    await page.getByTestId('create-stream-submit').click()
    const issues = page.getByTestId('form-issues')
    await eventually(() => text(issues.locator('[data-field=name]'))).toContain('name is required')

    await page.getByTestId('stream-name').fill('Bad profiles')
    await page.getByTestId('profile-0-width').fill('100')
    await page.getByTestId('create-stream-submit').click()
    await eventually(() => text(issues.locator('[data-field="profiles.0.width"]'))).toContain(
      'width must be at least 128'
    )
    await eventually(() => attr(page.getByTestId('profile-0-width'), 'aria-invalid')).toBe('true')
    // Rows are named as they are labelled, and numbers in the field's own unit (kbps).
    expect(await text(issues.locator('[data-field="profiles.0.width"]'))).toBe(
      'Profile 1: width must be at least 128'
    )
    await page.getByTestId('profile-0-bitrate').fill('0.1')
    await page.getByTestId('create-stream-submit').click()
    await eventually(() => text(issues.locator('[data-field="profiles.0.bitrate"]'))).toBe(
      'Profile 1: bitrate must be at least 0.4 kbps'
    )
    expect(await text(issues)).not.toMatch(/bit\/s|profiles\.\d/)
    await shot(page, 'bad-input-width')
    await page.getByTestId('profile-0-bitrate').fill('3000')

    await page.getByTestId('profile-0-width').fill('1280')
    await page.getByTestId('profile-1-name').fill('720p')
    await page.getByTestId('create-stream-submit').click()
    await eventually(() => text(issues.locator('[data-field="profiles.1.name"]'))).toContain(
      'duplicate profile name "720p"'
    )
    await eventually(() => text(issues)).toContain('Nothing was sent')
    await shot(page, 'bad-input-duplicate')
    // Every error at once: a bad width and a duplicate name, shown together.
    await page.getByTestId('profile-0-width').fill('100')
    await page.getByTestId('create-stream-submit').click()
    await eventually(() => text(issues.locator('[data-field="profiles.0.width"]'))).toBe(
      'Profile 1: width must be at least 128'
    )
    expect(await text(issues.locator('[data-field="profiles.1.name"]'))).toBe(
      'Profile 2: duplicate profile name "720p"'
    )
    // What no H.264 encoder makes is refused too, with the limit; a low bitrate is only advice.
    await page.getByTestId('profile-0-width').fill('99999')
    await page.getByTestId('create-stream-submit').click()
    await eventually(() => text(issues.locator('[data-field="profiles.0.width"]'))).toBe(
      'Profile 1: width 99999 is more than 4096'
    )
    await page.getByTestId('profile-2-bitrate').fill('1')
    await eventually(() => text(page.getByTestId('profile-warnings'))).toBe(
      'Profile 3: bitrate is low for 640x360 at 30 fps: below about 139 kbps the picture breaks into blocks'
    )

    expect(calls.filter((c) => c === 'createStream')).toEqual([])
    expect((await shell.core.listStreams({})).items.length).toBe(before)
  })

  it('a wrong key for a custom service gets a real 401: "key rejected", nothing saved', async () => {
    const { page, shell } = app
    const status = await shell.core.connectionStatus()
    expect(status.local.api).toBeTruthy()
    const before = await shell.core.listConnections()
    await nav(page, 'Connection')
    await page.getByTestId('connection-kind').selectOption('custom')
    await page.getByTestId('connection-url').fill(status.local.api as string)
    await page.getByTestId('connection-key').fill('not-a-real-key')
    await page.getByTestId('connection-save').click()
    const error = page.getByTestId('add-connection-error')
    await eventually(() => attr(error, 'data-code'), 30_000).toBe('key-rejected')
    await eventually(() => text(error)).toMatch(/key rejected/i)
    await eventually(() => attr(page.getByTestId('connection-key'), 'type')).toBe('password')
    await shot(page, 'connection-key-rejected')
    expect(await shell.core.listConnections()).toEqual(before)
  })

  it('Livepeer Studio without a network reads as a network error, nothing saved', async () => {
    const { page, shell } = app
    const before = await shell.core.listConnections()
    await nav(page, 'Connection')
    await page.getByTestId('connection-kind').selectOption('livepeer')
    await page.getByTestId('connection-key').fill('some-livepeer-key')
    await page.getByTestId('connection-save').click()
    const error = page.getByTestId('add-connection-error')
    await eventually(() => attr(error, 'data-code'), 60_000).toMatch(/network|timeout/)
    await eventually(() => text(error)).toMatch(/network|timed out/i)
    await shot(page, 'connection-network-down')
    expect(await shell.core.listConnections()).toEqual(before)
  })

  it('the About panel shows version, shell and the ffmpeg in use', async () => {
    const { page } = app
    await nav(page, 'About')
    await eventually(() => text(page.getByTestId('about'))).toContain('Web shell')
    await eventually(() => text(page.getByTestId('about-ffmpeg'))).toContain('ffmpeg')
    await shot(page, 'about')
  })

  it('follows the OS colour scheme: dark when the system is dark', async () => {
    const { page } = app
    const background = (): Promise<string> =>
      page.evaluate(() => {
        const g = globalThis as unknown as {
          getComputedStyle(e: unknown): { backgroundColor: string }
          document: { body: unknown }
        }
        return g.getComputedStyle(g.document.body).backgroundColor
      })
    const light = await background()
    await page.emulateMedia({ colorScheme: 'dark' })
    const dark = await background()
    const lum = (rgb: string): number => {
      const [r, g, b] = (rgb.match(/\d+/g) ?? []).map(Number)
      return ((r ?? 0) + (g ?? 0) + (b ?? 0)) / 3
    }
    expect(lum(light)).toBeGreaterThan(200)
    expect(lum(dark)).toBeLessThan(50)
    for (const screen of ['Connection', 'Streams', 'Sessions', 'About'] as const) {
      await nav(page, screen)
      await shot(page, `dark-${screen.toLowerCase()}`)
    }
    await page.emulateMedia({ colorScheme: 'light' })
  })
})

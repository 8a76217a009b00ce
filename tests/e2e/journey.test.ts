// The creator's whole journey through the real app: web shell + core + local studio (real RTMP, ffmpeg,
// SQLite) driven in real Chromium with its fake camera and microphone. The only stand-ins are the
// Electron runtime (the web shell serves the same contract) and the camera (Chromium's fake device).
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { ffprobe } from '../helpers/studio'
import {
  attr,
  createStream,
  eventually,
  text,
  goLive,
  nav,
  numberAbove,
  openApp,
  playFirstReady,
  shot,
  SHOTS,
  stopLive,
  waitLocalReady,
  type App,
  type Probe
} from './app-page'

let app: App
const NAME = `E2E ladder ${Date.now()}`
const PLAIN = `E2E plain ${Date.now()}`

describe('renderer journey', () => {
  beforeAll(async () => {
    app = await openApp()
  })
  afterEach(async ({ task }) => {
    // A failed step leaves a picture of what the user would have seen.
    if (task.result?.state === 'fail' && app) await shot(app.page, `fail-${task.name.slice(0, 40)}`)
  })
  afterAll(async () => {
    await app?.close()
  })

  it('first run lands on the ready local studio; a stream is created with 720p/480p/360p, record on', async () => {
    const { page } = app
    await waitLocalReady(page)
    await expect
      .poll(() =>
        page.locator('[data-testid=connection-row][data-active=true]').getAttribute('data-kind')
      )
      .toBe('local')
    await shot(page, 'connection')
    await nav(page, 'Streams')
    await page.getByTestId('new-stream').click()
    await shot(page, 'streams-create')
    await page.getByTestId('create-stream-submit').click() // empty name is refused in place
    await createStream(page, NAME, { profiles: 'recommended', record: true })
    await eventually(() => text(page.getByTestId('stream-profiles'))).toContain('720p')
    await eventually(() => text(page.getByTestId('stream-profiles'))).toContain('480p')
    await eventually(() => text(page.getByTestId('stream-profiles'))).toContain('360p')
    await eventually(() => page.getByTestId('record-toggle').isChecked()).toBe(true)
    const stored = (await app.shell.core.listStreams({})).items.find((s) => s.name === NAME)
    expect(stored?.profiles.map((p) => p.name)).toEqual(['720p', '480p', '360p'])
    expect(stored?.record).toBe(true)
    await shot(page, 'stream-page')
  })

  it('goes live with the camera: Live, a bitrate in the health strip, for ~8 s', async () => {
    const { page } = app
    await goLive(page, 'camera')
    await eventually(() => text(page.getByTestId('live-title'))).toBe(`Live on ${NAME}`)
    // The fake microphone beeps: the mixer's microphone meter (after its chain) must move at some point.
    await page.waitForFunction(
      numberAbove,
      ['[data-testid=meter-mic]', 'ariaValueNow', 0] as Probe,
      {
        timeout: 15_000
      }
    )
    await onAirFor(page, 8)
    const mbps = parseFloat((await page.getByTestId('health-kbps').textContent()) ?? '0')
    expect(mbps).toBeGreaterThan(0)
    await eventually(() => text(page.getByTestId('live-elapsed'))).not.toBe('0:00')
    await shot(page, 'go-live')
    // While live, the record switch is locked and says why.
    await nav(page, 'Streams')
    await page.getByRole('button', { name: NAME }).click()
    await eventually(() => page.getByTestId('record-toggle').isDisabled()).toBe(true)
    await eventually(() => page.getByTestId('record-locked').isVisible()).toBe(true)
    await shot(page, 'stream-page-live')
  })

  it('stops; the session shows up, its recording turns ready without a reload, and plays the source and 3 renditions', async () => {
    const { page } = app
    await stopLive(page)
    const rows = page.getByTestId('session-row')
    await eventually(() => rows.count(), 30_000).toBe(1)
    const sessionId = await rows.first().getAttribute('data-session-id')
    await page
      .locator(`[data-testid=session-row][data-status=ready]`)
      .first()
      .waitFor({ timeout: 150_000 })
    // Once ingest has ended the stream reads idle again and the record switch unlocks.
    await eventually(() => text(page.getByTestId('stream-state')), 30_000).toBe('idle')
    await eventually(() => page.getByTestId('record-toggle').isDisabled()).toBe(false)
    await shot(page, 'stream-sessions-ready')
    // The MP4 saves as a file named after the stream and the date, and the app stays where it was.
    const before = page.url()
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('download-mp4').first().click()
    ])
    expect(download.suggestedFilename()).toMatch(
      /^E2E ladder \d+ \d{4}-\d{2}-\d{2} \d{2}\.\d{2}\.mp4$/
    )
    const saved = join(SHOTS, '..', download.suggestedFilename())
    await download.saveAs(saved)
    expect(readFileSync(saved).subarray(4, 8).toString('latin1')).toBe('ftyp')
    const probed = await ffprobe(saved)
    expect(probed.duration).toBeGreaterThan(2)
    expect(probed.streams.map((x) => x.codec_type).sort()).toEqual(['audio', 'video'])
    rmSync(saved)
    expect(page.url()).toBe(before)
    await page.getByTestId('stream-page').waitFor()
    const options = await playFirstReady(page, 'player-ladder')
    expect(options[0]).toBe('Auto')
    // The source (recorded as it arrived) beside the three profiles, named as such.
    expect(options).toHaveLength(5)
    expect(options.filter((o) => o.startsWith('Source ('))).toHaveLength(1)
    expect(options.slice(1).join(' ')).toMatch(/720p.*480p.*360p|360p.*480p.*720p/)
    // Labels give each profile's own bitrate, exactly and in one unit: 800 kbps is "0.8 Mbps", not "1.0 Mbps".
    expect(options).toContain('720p (1280×720), 3 Mbps')
    expect(options).toContain('480p (854×480), 1.6 Mbps')
    expect(options).toContain('360p (640×360), 0.8 Mbps')

    await nav(page, 'Sessions')
    const all = page.locator(`[data-testid=session-row][data-session-id="${sessionId}"]`)
    await eventually(() => attr(all, 'data-status'), 30_000).toBe('ready')
    await shot(page, 'sessions')
  })

  it('a stream with no profiles warns plainly and its recording plays one rendition', async () => {
    const { page } = app
    await nav(page, 'Streams')
    await page.getByTestId('new-stream').click()
    await page.getByTestId('preset-none').click()
    await eventually(() => text(page.getByTestId('no-profiles-warning'))).toContain(
      'no transcoding'
    )
    await eventually(() => text(page.getByTestId('no-profiles-warning'))).toContain('may buffer')
    await page.getByRole('button', { name: 'Cancel' }).click()
    await createStream(page, PLAIN, { profiles: 'none', record: true })
    await eventually(() => text(page.getByTestId('stream-profiles'))).toContain('No profiles')
    await shot(page, 'stream-page-no-profiles')
    // This run uses ffmpeg's test pattern (no camera) and the choice is remembered.
    await goLive(page, 'test-pattern')
    // Settings are saved a moment after the last change (a drag is one save, not fifty).
    await eventually(async () => (await app.shell.core.getSettings()).sourceKind).toBe(
      'test-pattern'
    )
    await onAirFor(page, 6)
    await stopLive(page)
    await nav(page, 'Streams')
    await page.getByRole('button', { name: PLAIN }).click()
    await page
      .locator('[data-testid=session-row][data-status=ready]')
      .first()
      .waitFor({ timeout: 150_000 })
    const options = await playFirstReady(page, 'player-single')
    expect(options).toHaveLength(2)
    expect(options[0]).toBe('Auto')
    expect(options[1]).toMatch(/^Source \(/)
  })

  it('record toggles off and on; the key is masked until revealed; the stream is deleted', async () => {
    const { page, shell } = app
    await nav(page, 'Streams')
    await page.getByRole('button', { name: PLAIN }).click()
    const toggle = page.getByTestId('record-toggle')
    const id = (await shell.core.listStreams({})).items.find((s) => s.name === PLAIN)?.id as string
    await toggle.click()
    await eventually(() => toggle.isChecked()).toBe(false)
    await expect.poll(async () => (await shell.core.getStream(id)).record).toBe(false)
    await toggle.click()
    await eventually(() => toggle.isChecked()).toBe(true)
    await expect.poll(async () => (await shell.core.getStream(id)).record).toBe(true)

    const key = page.getByTestId('stream-key')
    await eventually(() => attr(key, 'data-masked')).toBe('true')
    const masked = (await key.textContent()) ?? ''
    const real = await shell.core.revealStreamKey(id)
    expect(masked).toContain('•')
    expect(masked).not.toContain(real)
    expect(await page.content()).not.toContain(real)
    await page.getByTestId('reveal-key').click()
    await eventually(() => text(key)).toBe(real)
    await shot(page, 'stream-key-revealed')
    await page.getByTestId('reveal-key').click()
    await eventually(() => text(key)).toBe(masked)

    // Profiles are editable while idle, with the same rules as on create; nothing invalid is sent.
    await page.getByTestId('edit-profiles').click()
    await page.getByTestId('profile-add').click()
    await page.getByTestId('profile-0-name').fill('tiny')
    await page.getByTestId('profile-0-width').fill('100')
    await page.getByTestId('profiles-save').click()
    await eventually(() => text(page.getByTestId('form-issues'))).toContain(
      'width must be at least 128'
    )
    expect(app.calls).not.toContain('updateStream')
    await page.getByTestId('preset-recommended').click()
    await page.getByTestId('profiles-save').click()
    await eventually(() => text(page.getByTestId('stream-profiles'))).toContain('480p')
    expect((await shell.core.getStream(id)).profiles.map((p) => p.name)).toEqual([
      '720p',
      '480p',
      '360p'
    ])

    await page.getByTestId('delete-stream').click()
    await page.getByTestId('delete-stream-confirm').click()
    await page.getByTestId('stream-list').or(page.getByText('No streams yet')).first().waitFor()
    await eventually(() => page.getByRole('button', { name: PLAIN }).count()).toBe(0)
    expect((await shell.core.listStreams({})).items.some((s) => s.id === id)).toBe(false)
    await shot(page, 'streams')
  })
})

/** Waits until the live bar's elapsed clock (m:ss or h:mm:ss) says at least `seconds` on air. */
async function onAirFor(page: Page, seconds: number): Promise<void> {
  await page.waitForFunction(
    (want) => {
      const t = document.querySelector('[data-testid=live-elapsed]')?.textContent ?? ''
      const parts = t.split(':').map(Number)
      if (parts.length < 2 || parts.some((n) => !Number.isFinite(n))) return false
      return parts.reduce((acc, n) => acc * 60 + n, 0) >= want
    },
    seconds,
    { timeout: seconds * 1000 + 30_000 }
  )
}

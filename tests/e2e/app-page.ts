// Shared steps for the renderer e2e tests: one real core + web shell + local studio, one real Chromium
// with the fake camera, and small helpers that drive the UI by its labels and test ids.
import { execFile } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Browser, Locator, Page, Request } from 'playwright-core'
import { afterAll, afterEach, beforeAll, expect } from 'vitest'
import { launchChromium } from '../helpers/browser'
import { startWebShell, type TestWebShell } from '../helpers/web-shell'
import { testFfmpeg } from '../helpers/studio'
import type { CoreOptions } from '../../src/main/core/core'
import type { DeviceSettings } from '../../src/shared/contract'
import { redactSecrets } from '../../src/shared/redact'
import { waitUntil } from '../helpers/wait-until'

import { numberAbove, type Probe } from '../helpers/page-probe'
export { numberAbove, type Probe }

export const SHOTS = resolve(__dirname, '../../artifacts/screenshots')

export interface App {
  shell: TestWebShell
  browser: Browser
  page: Page
  /** Every /rpc/<name> the page called, in order: proves what was (not) sent. */
  calls: string[]
  /** The page's saveSettings calls sent and not yet answered. */
  savesInFlight: Set<Request>
  /**
   * The app's log (main's and the local studio's lines, redacted, timed), its last LOG_KEPT lines:
   * printed when a test fails, so a failure in CI comes with what the app said.
   */
  log: readonly string[]
  close(): Promise<void>
}

const LOG_KEPT = 400

export interface OpenOptions {
  /** More Chromium flags, e.g. a fake camera from a file. */
  chromiumArgs?: readonly string[]
  /** The core's options for this run (e.g. the pages a browser source shows: browserPages). */
  core?: Partial<CoreOptions>
}

export async function openApp(opts: OpenOptions = {}): Promise<App> {
  mkdirSync(SHOTS, { recursive: true })
  const log: string[] = []
  const given = opts.core?.log
  const keep = (line: string): void => {
    log.push(`${new Date().toISOString()} ${redactSecrets(line)}`)
    if (log.length > LOG_KEPT) log.splice(0, log.length - LOG_KEPT)
    given?.(line)
  }
  const shell = await startWebShell({ core: { ...opts.core, log: keep } })
  let browser: Browser | undefined
  try {
    browser = await launchChromium(opts.chromiumArgs)
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } })
    const page = await context.newPage()
    const calls: string[] = []
    const savesInFlight = new Set<Request>()
    page.on('request', (r) => {
      const m = /\/rpc\/([A-Za-z]+)/.exec(r.url())
      if (m?.[1]) calls.push(m[1])
      if (m?.[1] === 'saveSettings') savesInFlight.add(r)
    })
    page.on('requestfinished', (r) => savesInFlight.delete(r))
    page.on('requestfailed', (r) => savesInFlight.delete(r))
    page.on('pageerror', (e) => console.error('[page error]', e.message))
    await page.goto(shell.url)
    return {
      shell,
      browser,
      page,
      calls,
      savesInFlight,
      log,
      close: async () => {
        await browser?.close()
        await shell.stop()
      }
    }
  } catch (e) {
    await browser?.close()
    await shell.stop()
    throw e
  }
}

/**
 * Opens the app again on settings changed behind the page's back (as if edited while Onair was
 * closed), on the Go live screen. The page leaves first, which sends a save it still had pending (Go
 * live saves 400 ms after the last change, and at once when the page goes), and every save it sent is
 * answered before the change is written, so none of the page's lands on top of it. (A reload right
 * after a write raced: under load, the last test's pending save replaced the written scenes.)
 */
export async function reopenWithSettings(
  app: App,
  change: (s: DeviceSettings) => DeviceSettings
): Promise<void> {
  const { page, shell } = app
  const url = page.url()
  await page.goto('about:blank')
  await waitUntil(
    () => app.savesInFlight.size === 0,
    'the page’s sent settings saves to be answered',
    15_000
  )
  await shell.core.saveSettings(change(await shell.core.getSettings()))
  await page.goto(url)
  await nav(page, 'Go live')
}

export const shot = (page: Page, name: string, fullPage = true): Promise<Buffer> =>
  page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage })

export async function nav(
  page: Page,
  label: 'Connection' | 'Streams' | 'Go live' | 'Sessions' | 'Webhooks' | 'Keys' | 'About'
) {
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: label, exact: true })
    .click()
}

export async function waitLocalReady(page: Page): Promise<void> {
  await page.getByTestId('local-state').filter({ hasText: 'ready' }).waitFor({ timeout: 90_000 })
}

/** Creates a stream through the form; profiles: 'recommended' keeps the default rows, 'none' clears them. */
export async function createStream(
  page: Page,
  name: string,
  opts: { profiles: 'recommended' | 'none'; record: boolean }
): Promise<string> {
  await nav(page, 'Streams')
  // The form may already be open (the Streams screen keeps it while it stays on screen).
  if (await page.getByTestId('new-stream').isVisible()) await page.getByTestId('new-stream').click()
  await page.getByTestId('stream-name').fill(name)
  const record = page.getByTestId('stream-record')
  if ((await record.isChecked()) !== opts.record) await record.click()
  if (opts.profiles === 'none') await page.getByTestId('preset-none').click()
  else await page.getByTestId('preset-recommended').click()
  await page.getByTestId('create-stream-submit').click()
  await page.getByTestId('stream-page').waitFor()
  await page.getByRole('heading', { level: 1, name }).waitFor()
  return name
}

/**
 * Goes live from the stream page with the given source and waits for Live with a bitrate. `encoder`
 * picks the Output's encoder first (an id of Onair's encoder, or 'browser' for WebCodecs).
 */
export async function goLive(
  page: Page,
  source: 'camera' | 'test-pattern',
  opts: { encoder?: string } = {}
): Promise<void> {
  await page.getByTestId('stream-go-live').click()
  await page.getByTestId(`source-${source}`).check()
  if (opts.encoder) await page.getByTestId('output-video-encoder').selectOption(opts.encoder)
  if (source === 'camera') {
    // The fake camera must be open (a real frame in the preview) before the recorder starts.
    await page.waitForFunction(numberAbove, ['[data-testid=preview]', 'videoWidth', 0] as Probe, {
      timeout: 30_000
    })
  }
  await pressGoLive(page)
}

/** Presses Go live and waits for Live with a bitrate in the health strip. */
export async function pressGoLive(page: Page): Promise<void> {
  await page.getByTestId('go-live').click()
  await page
    .getByTestId('live-banner')
    .and(page.locator('[data-state=live]'))
    .waitFor({ timeout: 90_000 })
  await page.waitForFunction(numberAbove, ['[data-testid=health-kbps]', 'text', 0] as Probe, {
    timeout: 60_000
  })
}

export async function stopLive(page: Page): Promise<void> {
  await page.getByTestId('stop-live').click()
  await page
    .getByTestId('live-banner')
    .and(page.locator('[data-state=ended]'))
    .waitFor({ timeout: 60_000 })
}

/**
 * Waits until a video has played past `seconds`: currentTime moving is the proof that segments were
 * fetched and decoded, not just a poster frame. The app's player unless another `video` is named.
 */
export async function playingPast(
  page: Page,
  seconds: number,
  video = '[data-testid=player-video]'
): Promise<void> {
  await page.waitForFunction(numberAbove, [video, 'currentTime', seconds] as Probe, {
    timeout: 60_000
  })
}

/** Plays the first ready session of the visible list; resolves with the quality menu's option texts. */
export async function playFirstReady(page: Page, shotName?: string): Promise<string[]> {
  const row = page.locator('[data-testid=session-row][data-status=ready]').first()
  await row.getByTestId('play-session').click()
  const player = page.getByTestId('player')
  await player.waitFor()
  await playingPast(page, 1)
  await page
    .getByTestId('rendition-now')
    .filter({ hasText: 'Playing' })
    .waitFor({ timeout: 30_000 })
  if (shotName) await shot(page, shotName, false) // the dialog covers the viewport only
  const options = await page.getByTestId('quality-menu').locator('option').allTextContents()
  await player.getByRole('button', { name: 'Close' }).click()
  return options
}

/** Retries a read until the matcher holds: the UI updates asynchronously, so one read is not enough. */
export const eventually = <T>(read: () => Promise<T>, timeout = 15_000) =>
  expect.poll(read, { timeout, interval: 200 })

export const text = (l: Locator): Promise<string> => l.textContent().then((t) => t ?? '')

/** Seconds on the live bar's elapsed clock ("1:05" -> 65, "1:02:03" -> 3723; none shown -> 0). */
export const elapsedSeconds = async (page: Page): Promise<number> => {
  const shown = await page
    .getByTestId('live-elapsed')
    .textContent({ timeout: 1000 })
    .catch(() => '')
  return (shown ?? '')
    .split(':')
    .filter((p) => p !== '')
    .reduce((sum, p) => sum * 60 + Number(p), 0)
}

/** Waits until the live bar's clock shows the run live for `seconds` (media to record, not a state). */
/** The newest session's local copy, once its file is saved (the stop writes it). */
export async function savedLocalCopy(
  shell: TestWebShell
): Promise<{ state: string; file: string }> {
  const newest = async () => (await shell.core.listSessions({ limit: 10 })).items[0]?.localRecording
  await eventually(async () => (await newest())?.state, 30_000).toBe('saved')
  return (await newest())!
}

/**
 * The Sessions screen's newest row shows "On this computer", and its folder button the copy's path
 * (the web shell cannot open a file manager: it shows the path).
 */
export async function localCopyShown(page: Page, file: string, shotName: string): Promise<void> {
  await nav(page, 'Sessions')
  const local = page.getByTestId('session-row').first().getByTestId('local-copy')
  await local.waitFor()
  expect(await text(local)).toContain('On this computer')
  await local.getByTestId('local-copy-folder').click()
  const note = page.getByTestId('local-path-note')
  await note.waitFor()
  expect(await text(note)).toContain(file)
  await shot(page, shotName)
}

export const liveFor = (page: Page, seconds: number): Promise<void> =>
  eventually(() => elapsedSeconds(page), seconds * 1000 + 30_000).toBeGreaterThanOrEqual(seconds)
export const attr = (l: Locator, name: string): Promise<string> =>
  l.getAttribute(name).then((v) => v ?? '')

/** The app log's last lines, after a failed test (its time tells what the app did meanwhile). */
export function printLogTail(app: App, testName: string, lines = 60): void {
  const tail = app.log.slice(-lines)
  console.log(
    `app log, last ${tail.length} lines, after "${testName.slice(0, 80)}" failed:\n` +
      (tail.length ? tail.join('\n') : '(nothing logged)')
  )
}

/**
 * One app for a test file: opened (and its local studio ready) before the tests, a screenshot of
 * each failing test, closed after. Returns the getter the tests use.
 */
export function appForFile(opts: OpenOptions | (() => OpenOptions) = {}): () => App {
  let app: App | undefined
  beforeAll(async () => {
    app = await openApp(typeof opts === 'function' ? opts() : opts)
    await waitLocalReady(app.page)
  })
  afterEach(async ({ task }) => {
    if (task.result?.state !== 'fail' || !app) return
    await shot(app.page, `fail-${task.name.slice(0, 40)}`)
    printLogTail(app, task.name)
    // A test that failed while live leaves the app live: the next test would fail at Go live for it
    // (CI of 94c7bb5), hiding whether it passes. Best effort: the failure is already reported.
    const stop = app.page.getByTestId('stop-live')
    if (await stop.isVisible()) await stopLive(app.page).catch(() => undefined)
  })
  afterAll(async () => {
    await app?.close()
  })
  return () => {
    if (!app) throw new Error('the app is not open (its beforeAll failed)')
    return app
  }
}

/**
 * Where another encoder would push to reach this stream: the active service's RTMP ingest + its key.
 * Two streams of the same local studio make real destinations for a third (multistream tests).
 */
export async function ingestAddressOf(
  app: App,
  streamName: string
): Promise<{ server: string; key: string }> {
  const { core } = app.shell
  const stream = (await core.listStreams({ limit: 1000 })).items.find((s) => s.name === streamName)
  if (!stream) throw new Error(`no stream named ${streamName}`)
  return { server: (await core.getIngest()).rtmp, key: await core.revealStreamKey(stream.id) }
}

/** The colour [r, g, b] of the scene preview's canvas (the output as sent) at a point in fractions. */
export const sceneColourAt = (
  page: Page,
  fx: number,
  fy: number
): Promise<[number, number, number]> =>
  page.evaluate(
    ([x, y]) => {
      const doc = (globalThis as unknown as { document: { querySelector(s: string): unknown } })
        .document
      const c = doc.querySelector('[data-testid=scene-canvas]') as {
        width: number
        height: number
        getContext(k: '2d'): {
          getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> }
        }
      }
      const d = c
        .getContext('2d')
        .getImageData(Math.round(x * c.width), Math.round(y * c.height), 1, 1).data
      return [d[0] ?? 0, d[1] ?? 0, d[2] ?? 0] as [number, number, number]
    },
    [fx, fy] as [number, number]
  )

/** A meter's lowest and highest block level (dBFS, its data-db) over `ms`, every animation frame. */
export function meterDbRange(
  page: Page,
  testId: string,
  ms: number
): Promise<{ min: number; max: number }> {
  return page.evaluate(
    ([testId, ms]) =>
      new Promise<{ min: number; max: number }>((resolve) => {
        const g = globalThis as unknown as {
          document: { querySelector(s: string): { getAttribute(n: string): string | null } }
          requestAnimationFrame(f: () => void): void
        }
        const meter = g.document.querySelector(`[data-testid=${testId}]`)
        let min = Infinity
        let max = -Infinity
        const end = Date.now() + ms
        const tick = (): void => {
          const v = Number(meter.getAttribute('data-db'))
          min = Math.min(min, v)
          max = Math.max(max, v)
          if (Date.now() < end) g.requestAnimationFrame(tick)
          else resolve({ min, max })
        }
        g.requestAnimationFrame(tick)
      }),
    [testId, ms] as const
  )
}

/** Max volume (dBFS) of a recording's audio (a file or an address) between two times (s), decoded from the start. */
export function maxVolume(url: string, from: number, to: number): Promise<number> {
  return new Promise((resolve, reject) => {
    execFile(
      testFfmpeg(),
      [
        '-v',
        'info',
        '-i',
        url,
        '-vn',
        '-af',
        `atrim=start=${from}:end=${to},volumedetect`,
        '-f',
        'null',
        '-'
      ],
      { timeout: 60_000 },
      (err, _out, stderr) => {
        if (err) return reject(err)
        const m = /max_volume: (-?[\d.]+|-inf) dB/.exec(stderr)
        if (!m) return reject(new Error(`no audio level in: ${stderr.slice(-600)}`))
        resolve(m[1] === '-inf' ? -Infinity : Number(m[1]))
      }
    )
  })
}

/**
 * What a WebRTC run's health strip says of the picture it sends (the link's estimate, frame rate,
 * size, what limits it, the size rule), read every second until `stop`, which gives each change with
 * the seconds since the start: "1 s: link ~2.1 Mbps · 26 fps · 1280×720 · size hold; …". Printed by
 * the WebRTC tests, so a size the service did not get is explained by what the page saw.
 */
export function watchWebRtcPicture(page: Page): { stop(): Promise<string> } {
  const t0 = Date.now()
  const seen: string[] = []
  let last = ''
  let reading: Promise<void> = Promise.resolve()
  const read = async (): Promise<void> => {
    const strip = page.getByTestId('webrtc-health')
    const text = await strip.textContent({ timeout: 500 }).catch(() => null)
    if (text === null) return
    const size = await strip.getAttribute('data-size', { timeout: 500 }).catch(() => null)
    // What leaves the page changes every second: the estimate is kept to 100 kbit/s.
    const picture = text
      .split('·')
      .map((part) => part.trim())
      .filter((part) => !/ out$/.test(part))
      .map((part) =>
        part.replace(
          /^link carries about ([\d.]+) Mbps/,
          (_, m: string) => `link ~${Number(m).toFixed(1)} Mbps`
        )
      )
      .concat(size ? [`size ${size}`] : [])
      .join(' · ')
    if (picture === last) return
    last = picture
    seen.push(`${Math.round((Date.now() - t0) / 1000)} s: ${picture}`)
  }
  const timer = setInterval(() => {
    reading = reading.then(read)
  }, 1000)
  return {
    stop: async () => {
      clearInterval(timer)
      await reading
      return seen.join('; ') || 'no health strip read'
    }
  }
}

/**
 * Camera, Low latency (WebRTC) at 1280x720, the record switch as asked; presses Go live and waits for
 * Live. Returns when Go live was pressed and when the page said Live (the local copy starts between:
 * main opens it with the WHIP offer, before the peer connects).
 */
export async function goLiveWebRtc(
  page: Page,
  record: boolean,
  fromStreamPage = true
): Promise<{ pressedAt: number; liveAt: number }> {
  if (fromStreamPage) await page.getByTestId('stream-go-live').click()
  await page.getByTestId('source-camera').check()
  await page.waitForFunction(numberAbove, ['[data-testid=preview]', 'videoWidth', 0] as Probe, {
    timeout: 30_000
  })
  await page.getByTestId('output-transport').selectOption('webrtc')
  await page.getByTestId('output-resolution').selectOption('1280x720')
  const sw = page.getByTestId('record-locally')
  if ((await sw.isChecked()) !== record) await sw.click()
  const pressedAt = Date.now()
  await page.getByTestId('go-live').click()
  await page
    .getByTestId('live-banner')
    .and(page.locator('[data-state=live]'))
    .waitFor({ timeout: 60_000 })
  return { pressedAt, liveAt: Date.now() }
}

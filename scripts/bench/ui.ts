// `npm run bench:ui`: the renderer's figures, measured on the built app in real Chromium through the web
// shell and the local studio. (1) initial JavaScript, gzip, with hls.js checked to be a separate lazy
// chunk; (2) time to show the sessions screen with 10,000 sessions, and frame times while scrolling it,
// beside a reference: the same 10,000 rows rendered without windowing; (3) time from pressing Stop to the
// recording shown as ready in the stream's list; (4) the live monitor's glass-to-glass delay
// (glass.ts); (5) the page encoder's bitrate against its target (encoder.ts); (6) the microphone's sync
// offset, applied against set (audio-sync.ts). Medians of several runs; nothing here is asserted.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { gzipSync } from 'node:zlib'
import type { Page } from 'playwright-core'
import { RECOMMENDED_PROFILES } from '../../src/shared/profiles'
import { launchChromium } from '../../tests/helpers/browser'
import { startWebShell, type TestWebShell } from '../../tests/helpers/web-shell'
import {
  CLOCK_IN_PAGE,
  appPathMonitorRow,
  glassToGlassRows,
  paintCameraClock,
  testPatternClock,
  webrtcGlassRows,
  type AppPath
} from './glass'
import { inKeyringSession, keyringScriptMain } from './keyring-session'
import { sceneRows } from './scenes'
import { encoderRows } from './encoder'
import { audioSyncRows } from './audio-sync'
import { median, percentile, type BenchRow, type RecordAs } from './types'
import { Keychain } from '../../src/main/core/keychain'
import { LOCAL_ID } from '../../src/main/core/settings-store'
import { seedSessions } from '../../tests/helpers/seed-sessions'

const ROOT = resolve(__dirname, '../..')
const OUT = join(ROOT, 'out/renderer')
const SESSIONS = 10_000
const RENDER_RUNS = 7
const READY_RUNS = 3
const LIVE_SECONDS = 8

/** Seeds the web shell's own local studio (its data dir, the key the core provisioned) with n sessions. */
async function seedForBench(shell: TestWebShell, n: number): Promise<number> {
  const key = await new Keychain().get(LOCAL_ID)
  if (!key) throw new Error('the local studio has no key in the keychain yet')
  await seedSessions(join(shell.appDataDir, 'studio'), key, n, { streamName: 'Seeded (bench)' })
  return n
}

const kb = (bytes: number): number => Math.round((bytes / 1024) * 10) / 10

function ensureBuilt(): void {
  if (existsSync(join(OUT, 'index.html')) && !process.argv.includes('--build')) return
  const r = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'],
    {
      cwd: ROOT,
      stdio: 'inherit'
    }
  )
  if (r.status !== 0) throw new Error('electron-vite build failed')
}

/** The scripts index.html loads at start (entry + modulepreloads) versus every other chunk. */
export function bundleRows(): BenchRow[] {
  const html = readFileSync(join(OUT, 'index.html'), 'utf8')
  const initial = new Set(
    [...html.matchAll(/(?:src|href)="\.?\/?(assets\/[^"]+\.js)"/g)].map((m) => m[1] as string)
  )
  const all = readdirSync(join(OUT, 'assets')).filter((f) => f.endsWith('.js'))
  const gz = (f: string): number => gzipSync(readFileSync(join(OUT, f)), { level: 9 }).length
  const initialBytes = [...initial].reduce((sum, f) => sum + gz(f), 0)
  // hls.js announces itself in its source; find which chunk holds it.
  const isHls = (f: string): boolean =>
    readFileSync(join(OUT, 'assets', f), 'utf8').includes('hlsjs')
  const hlsChunks = all.filter(isHls)
  const hlsInInitial = hlsChunks.some((f) => initial.has(`assets/${f}`))
  const hlsBytes = hlsChunks.reduce((sum, f) => sum + gz(`assets/${f}`), 0)
  return [
    {
      name: 'Initial JavaScript (gzip)',
      value: kb(initialBytes),
      unit: 'KiB',
      reference: { name: 'hls.js chunk, loaded on Play (gzip)', value: kb(hlsBytes), unit: 'KiB' },
      note: hlsChunks.length
        ? `hls.js in ${hlsChunks.join(', ')}: ${hlsInInitial ? 'IN the initial bundle (defect)' : 'separate lazy chunk'}; initial = ${[...initial].join(', ')}`
        : 'hls.js chunk not found in the build'
    }
  ]
}

async function openPage(
  shell: TestWebShell,
  o: { paintedCamera?: boolean } = {}
): Promise<{ page: Page; close: () => Promise<void> }> {
  const browser = await launchChromium()
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } })
  // The camera the app opens carries the bar code (glass.ts paintCameraClock).
  if (o.paintedCamera) {
    await page.addInitScript(CLOCK_IN_PAGE)
    await page.addInitScript(paintCameraClock)
  }
  await page.goto(shell.url)
  return { page, close: () => browser.close() }
}

const clickNav = (page: Page, label: string): Promise<void> =>
  page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: label, exact: true })
    .click()

/** In the page (a function, not a string: the app's CSP refuses string evaluation). */
const previewOpen = (): boolean => {
  const doc = (globalThis as unknown as { document: { querySelector(s: string): unknown } })
    .document
  return (
    ((doc.querySelector('[data-testid=preview]') as { videoWidth?: number } | null)?.videoWidth ??
      0) > 0
  )
}

/** In-page timing: from the click to the frame after the first session row is in the DOM. */
const TIME_SESSIONS = `(async () => {
  const nav = [...document.querySelectorAll('nav[aria-label=Main] button')].find((b) => b.textContent === 'Sessions')
  const t0 = performance.now()
  nav.click()
  await new Promise((r) => { const f = () => document.querySelector('[data-testid=session-row]') ? r() : requestAnimationFrame(f); f() })
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
  return performance.now() - t0
})()`

/** Scrolls the list 15 rows per frame through 3,000 rows; returns frame intervals and max rows in DOM. */
const SCROLL = `(async () => {
  const vp = document.querySelector('[data-testid=sessions-viewport]')
  const frames = []; let maxRows = 0; let last = performance.now()
  for (let i = 0; i < 200; i++) {
    vp.scrollTop += 15 * 44
    await new Promise((r) => requestAnimationFrame(r))
    const now = performance.now(); frames.push(now - last); last = now
    maxRows = Math.max(maxRows, document.querySelectorAll('[data-testid=session-row]').length)
  }
  return { frames, maxRows, loaded: document.querySelector('[data-testid=sessions-count]')?.textContent }
})()`

/** Reference: the same rows without windowing, built and laid out in the same page. */
const FLAT = `(() => {
  const host = document.createElement('div'); host.className = 'vtable'; host.style.height = '560px'; host.style.overflow = 'auto'
  const t0 = performance.now()
  for (let i = 0; i < ${SESSIONS}; i++) {
    const row = document.createElement('div'); row.className = 'vrow'
    row.innerHTML = '<span>Nov 21, 2026, 11:57 PM</span><span>Stream</span><span class="mono">1:23</span><span><span class="badge badge-ready">ready</span></span><span class="row-actions"><button>Play</button><button class="secondary">Copy</button></span>'
    host.appendChild(row)
  }
  document.body.appendChild(host)
  void host.scrollHeight
  return new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => { const t = performance.now() - t0; host.remove(); r(t) })))
})()`

export async function sessionsRows(): Promise<BenchRow[]> {
  const shell = await startWebShell()
  try {
    await waitLocalReady(shell)
    const seeded = await seedForBench(shell, SESSIONS)
    const { page, close } = await openPage(shell)
    try {
      const times: number[] = []
      const flat: number[] = []
      for (let i = 0; i < RENDER_RUNS; i++) {
        await clickNav(page, 'Streams')
        await page.getByRole('heading', { name: 'Streams', level: 1 }).waitFor()
        times.push((await page.evaluate(TIME_SESSIONS)) as number)
      }
      const scroll = (await page.evaluate(SCROLL)) as {
        frames: number[]
        maxRows: number
        loaded: string
      }
      for (let i = 0; i < 3; i++) flat.push((await page.evaluate(FLAT)) as number)
      return [
        {
          name: `Sessions screen shown, ${seeded} sessions (click to rows painted)`,
          value: Math.round(median(times)),
          unit: 'ms',
          reference: {
            name: `${SESSIONS} rows without windowing`,
            value: Math.round(median(flat)),
            unit: 'ms'
          },
          note: `median of ${RENDER_RUNS}; first page = 200 rows over the web shell and the studio API`
        },
        {
          name: 'Sessions scroll: frame interval p95 (15 rows/frame, 3,000 rows)',
          value: Math.round(percentile(scroll.frames, 95) * 10) / 10,
          unit: 'ms',
          reference: {
            name: 'frame interval median',
            value: Math.round(median(scroll.frames) * 10) / 10,
            unit: 'ms'
          },
          note: `at most ${scroll.maxRows} rows in the DOM while scrolling; list said "${scroll.loaded}"`
        }
      ]
    } finally {
      await close()
    }
  } finally {
    await shell.stop()
  }
}

async function waitLocalReady(shell: TestWebShell): Promise<void> {
  // The core starts the local studio on first use; asking for the ingest address is such a use.
  await shell.core.getIngest()
  for (let i = 0; i < 180; i++) {
    const s = await shell.core.connectionStatus()
    if (s.local.state === 'ready') return
    if (s.local.state === 'failed') throw new Error(`local studio failed: ${JSON.stringify(s.local.error)}`)
    await new Promise((r) => setTimeout(r, 500))
  }
  throw new Error('local studio did not become ready')
}

/** Stop pressed (in-page clock) to the stream's session row showing "ready", through the real UI. */
export async function stopToReadyRows(): Promise<BenchRow[]> {
  const shell = await startWebShell()
  try {
    await waitLocalReady(shell)
    const { page, close } = await openPage(shell)
    const waits: number[] = []
    try {
      for (let run = 0; run < READY_RUNS; run++) {
        const name = `Bench ${run}`
        await shell.core.createStream({ name, profiles: [...RECOMMENDED_PROFILES], record: true })
        await clickNav(page, 'Streams')
        await page.getByRole('button', { name, exact: true }).click()
        await page.getByTestId('stream-go-live').click()
        await page.getByTestId('source-camera').check()
        await page.waitForFunction(previewOpen)
        await page.getByTestId('go-live').click()
        await page
          .locator('[data-testid=live-banner][data-state=live]')
          .waitFor({ timeout: 90_000 })
        await page.waitForTimeout(LIVE_SECONDS * 1000)
        await clickNav(page, 'Streams')
        await page.getByRole('button', { name, exact: true }).click()
        const ms = (await page.evaluate(`(async () => {
          const t0 = performance.now()
          document.querySelector('[data-testid=stop-live]').click()
          await new Promise((r) => { const f = () => document.querySelector('[data-testid=session-row][data-status=ready]') ? r() : setTimeout(f, 50); f() })
          return performance.now() - t0
        })()`)) as number
        waits.push(ms)
        await page.getByRole('button', { name: 'Dismiss' }).click()
      }
    } finally {
      await close()
    }
    return [
      {
        name: 'Stop to recording shown ready in the list (720p/480p/360p, camera, 8 s runs)',
        value: Math.round(median(waits) / 100) / 10,
        unit: 's',
        reference: { name: 'Livepeer Studio, documented', value: 300, unit: 's' },
        note: `median of ${READY_RUNS}: ${waits.map((w) => (w / 1000).toFixed(1)).join(', ')} s; list polls waiting rows every 1 s for 20 s, then every 3 s; reference quoted, not measured`
      }
    ]
  } finally {
    await shell.stop()
  }
}

/** The app's paths the monitor rows cover, each through the Go live screen (glass.ts). */
const APP_PATHS: AppPath[] = ['camera', 'test pattern', 'scene']

/**
 * The live monitor's "s behind" against the bar code it shows, for the camera, the test pattern and
 * a scene, each gone live through the app's own Go live screen on a stream with the recommended
 * ladder (glass.ts appPathMonitorRow). The page's camera carries the bar code (paintCameraClock);
 * main's test pattern draws it (testPatternClock, given to the shell's core).
 */
async function appPathRows(shell: TestWebShell, page: Page): Promise<BenchRow[]> {
  const rows: BenchRow[] = []
  for (const path of APP_PATHS) {
    const name = `Monitor ${path}`
    await shell.core.createStream({ name, profiles: [...RECOMMENDED_PROFILES], record: false })
    const row = await appPathMonitorRow(page, path, name)
    console.error(`${row.name}: ${row.value} s vs ${row.reference?.value} s; ${row.note}`)
    rows.push(row)
  }
  return rows
}

/** The live monitor's glass-to-glass delay (glass.ts), on a stream with the recommended ladder. */
export async function liveMonitorRows(hls = true, only?: 'app-paths'): Promise<BenchRow[]> {
  const lines: string[] = []
  const shell = await startWebShell({
    core: {
      log: (l) => lines.push(`${Date.now()} ${l}`),
      broadcast: { testPatternOverlay: testPatternClock() }
    }
  })
  try {
    await waitLocalReady(shell)
    // One page for all the rows: the web shell's session is the page's.
    const { page, close } = await openPage(shell, { paintedCamera: true })
    try {
      if (only === 'app-paths') return await appPathRows(shell, page)
      const rows: BenchRow[] = []
      if (hls) {
        const stream = await shell.core.createStream({
          name: 'Glass to glass',
          profiles: [...RECOMMENDED_PROFILES],
          record: false
        })
        rows.push(...(await glassToGlassRows(page, stream.id)))
        rows.push(...(await appPathRows(shell, page)))
      }
      // The WebRTC rows in the same run, on streams of the same ladder.
      const webrtc = await webrtcGlassRows(page, 'Glass to glass WebRTC', {
        createStream: (name) =>
          shell.core.createStream({ name, profiles: [...RECOMMENDED_PROFILES], record: false }),
        isActive: async (id) => (await shell.core.getStream(id)).isActive,
        logLines: () => lines
      })
      return [...rows, ...webrtc]
    } finally {
      await close()
    }
  } finally {
    await shell.stop()
  }
}

/** The measurements themselves; they need a keychain (the core keeps the local studio's key there). */
async function measureUi(): Promise<BenchRow[]> {
  // Our own keychain entries, never the user's.
  process.env.ONAIR_KEYCHAIN_SERVICE ??= 'onair-bench'
  ensureBuilt()
  // ONAIR_BENCH_ONLY=scenes: just the scene rows (the others take minutes).
  if (process.env.ONAIR_BENCH_ONLY === 'scenes') return sceneBenchRows()
  // ONAIR_BENCH_ONLY=monitor: just the live monitor's rows (glass-to-glass, shown vs measured).
  if (process.env.ONAIR_BENCH_ONLY === 'monitor') return liveMonitorRows()
  // ONAIR_BENCH_ONLY=monitor-paths: just the monitor's rows of the camera, test pattern and scene.
  if (process.env.ONAIR_BENCH_ONLY === 'monitor-paths') return liveMonitorRows(true, 'app-paths')
  // ONAIR_BENCH_ONLY=webrtc: just the WebRTC rows of the monitor run (go live, WHEP glass-to-glass).
  if (process.env.ONAIR_BENCH_ONLY === 'webrtc') return liveMonitorRows(false)
  // ONAIR_BENCH_ONLY=encoder: just the page encoder's bitrate against its target.
  if (process.env.ONAIR_BENCH_ONLY === 'encoder') return encoderBenchRows()
  // ONAIR_BENCH_ONLY=audio-sync: just the sync offset's row (audio-sync.ts).
  if (process.env.ONAIR_BENCH_ONLY === 'audio-sync') return audioSyncBenchRows()
  return [
    ...bundleRows(),
    ...(await sessionsRows()),
    ...(await stopToReadyRows()),
    ...(await liveMonitorRows()),
    ...(await sceneBenchRows()),
    ...(await encoderBenchRows()),
    ...(await audioSyncBenchRows())
  ]
}

/** The microphone's sync offset, applied against set (audio-sync.ts). */
async function audioSyncBenchRows(): Promise<BenchRow[]> {
  const shell = await startWebShell()
  try {
    await waitLocalReady(shell)
    return await audioSyncRows(shell)
  } finally {
    await shell.stop()
  }
}

/** The page encoder's output bitrate against its target, on noisy cameras (encoder.ts). */
async function encoderBenchRows(): Promise<BenchRow[]> {
  return encoderRows(async () => {
    const shell = await startWebShell()
    await waitLocalReady(shell).catch(async (e: unknown) => {
      await shell.stop()
      throw e
    })
    return shell
  })
}

/** Scenes against the bare camera (scenes.ts), with the recommended ladder transcoding. */
async function sceneBenchRows(): Promise<BenchRow[]> {
  const shell = await startWebShell()
  try {
    await waitLocalReady(shell)
    return await sceneRows(shell)
  } finally {
    await shell.stop()
  }
}

/** The UI measurements, in a private keyring session where needed (keyring-session.ts). */
export function runUiBench(): Promise<BenchRow[]> {
  return inKeyringSession('ui bench', __filename, measureUi)
}

/** Every run's rows (a partial run's too, ONAIR_BENCH_ONLY) go to bench/runs.jsonl, under its command. */
const recordAs = (): RecordAs => {
  const only = process.env.ONAIR_BENCH_ONLY
  return {
    section: 'Renderer',
    command: `${only ? `ONAIR_BENCH_ONLY=${only} ` : ''}npm run bench:ui`
  }
}

if (require.main === module) keyringScriptMain(runUiBench, measureUi, recordAs)

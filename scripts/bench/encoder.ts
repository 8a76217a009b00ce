// `encoder: bitrate vs target`: the page's own encoder (WebCodecs H.264, webcodecs-pusher.ts) in the
// built app in real Chromium, fed a 720p30 camera of testsrc2 with strong (alls=19) and moderate
// (alls=6) temporal noise, live at the default 2500 kbit/s to the local studio. After a warm-up, the
// encoder's own 2 s windows of video bitrate are read off the health strip for ~10 s; the figure is
// their mean over the target. Beside it, everything pushed to main (video, Opus, Matroska) counted in
// main as it arrives. (`ONAIR_BENCH_ONLY=encoder npm run bench:ui`.)
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { DEFAULT_OUTPUT } from '../../src/shared/output'
import { launchChromium } from '../../tests/helpers/browser'
import { makeFakeCamera } from '../../tests/helpers/fake-camera'
import { numberAbove, type Probe } from '../../tests/helpers/page-probe'
import type { TestWebShell } from '../../tests/helpers/web-shell'
import { wait, type BenchRow } from './types'

const WARMUP_S = 2
const MEASURE_S = 10
const TARGET = DEFAULT_OUTPUT.videoBitrateKbps

const NOISE = [
  { label: 'strong noise', alls: 19 },
  { label: 'moderate noise', alls: 6 }
]

interface Line {
  measured: number | null
  width: number
  height: number
  fps: number
  measuredFps: number
  backlog: string
  lag: string
  audioBehind: string
  audioJumps: string
  encoder: string
}

async function readLine(page: Page): Promise<Line> {
  const el = page.getByTestId('health-encoder')
  const a = async (n: string): Promise<string> => (await el.getAttribute(n)) ?? ''
  const m = await a('data-measured')
  return {
    measured: m ? Number(m) : null,
    width: Number(await a('data-width')),
    height: Number(await a('data-height')),
    fps: Number(await a('data-fps')),
    measuredFps: Number(await a('data-measured-fps')),
    backlog: await a('data-backlog'),
    lag: await a('data-lag'),
    audioBehind: await a('data-audio-behind'),
    audioJumps: await a('data-audio-jumps'),
    encoder: await a('data-encoder')
  }
}

/**
 * One app per camera: Chromium takes its fake camera file at launch, and the web shell's link opens
 * the app once, so each noise level gets its own shell (`openShell`, with the local studio ready).
 */
export async function encoderRows(openShell: () => Promise<TestWebShell>): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'onair-bench-encoder-'))
  const rows: BenchRow[] = []
  try {
    for (const n of NOISE) {
      const shell = await openShell()
      // Every byte the page pushes, counted in main as it arrives (dispatch calls core[name] each time).
      let pushed = 0
      const core = shell.core
      const push = core.pushMedia.bind(core)
      core.pushMedia = (runId, bytes) => {
        pushed += bytes.byteLength
        return push(runId, bytes)
      }
      const camera = makeFakeCamera(dir, {
        seconds: 4,
        tag: `noise${n.alls}`,
        lavfi: `testsrc2=size=1280x720:rate=30,noise=alls=${n.alls}:allf=t`
      })
      const browser = await launchChromium([camera.flag])
      try {
        const page = await browser.newPage({ viewport: { width: 1280, height: 860 } })
        await page.goto(shell.url)
        const name = `Encoder bench ${n.alls}`
        await core.createStream({ name, profiles: [], record: false })
        await page
          .getByRole('navigation', { name: 'Main' })
          .getByRole('button', { name: 'Streams' })
          .click()
        await page.getByRole('button', { name, exact: true }).click()
        await page.getByTestId('stream-go-live').click()
        await page.getByTestId('source-camera').check()
        await page.waitForFunction(numberAbove, ['[data-testid=preview]', 'videoWidth', 0] as Probe)
        await page.getByTestId('go-live').click()
        await page
          .locator('[data-testid=live-banner][data-state=live]')
          .waitFor({ timeout: 90_000 })
        await page.getByTestId('health-encoder').waitFor()
        await wait(WARMUP_S * 1000)
        // The encoder's windows that end inside the measured span, each read once.
        const windows: number[] = []
        const fpsSeen: number[] = []
        const lags: string[] = []
        let last = (await readLine(page)).measured
        const bytes0 = pushed
        const t0 = performance.now()
        while (performance.now() - t0 < MEASURE_S * 1000) {
          await wait(250)
          const l = await readLine(page)
          const m = l.measured
          if (m !== null && m !== last) {
            windows.push(m)
            fpsSeen.push(l.measuredFps)
            lags.push(`${l.lag} ms/${l.backlog} B/audio ${l.audioBehind} ms behind`)
          }
          last = m
        }
        const totalKbps = ((pushed - bytes0) * 8) / ((performance.now() - t0) / 1000) / 1000
        const end = await readLine(page)
        await page.getByTestId('stop-live').click()
        await page
          .locator('[data-testid=live-banner][data-state=ended]')
          .waitFor({ timeout: 60_000 })
        const mean = windows.reduce((s, w) => s + w, 0) / Math.max(1, windows.length)
        rows.push({
          name: `encoder: bitrate vs target (${n.label})`,
          value: Math.round((mean / TARGET) * 1000) / 1000,
          unit: 'x',
          goal: { min: 0.85, max: 1.15 },
          note:
            `${end.encoder} H.264 (WebCodecs), 720p30 camera testsrc2 + noise=alls=${n.alls}:allf=t (MJPEG file), ` +
            `target ${TARGET} kbps; video windows (2 s each, after ${WARMUP_S} s): ${windows.join(', ')} kbps, mean ${Math.round(mean)}; ` +
            `all pushed to main (video + Opus + Matroska): ${Math.round(totalKbps)} kbps; ` +
            `frames encoded a second in those windows: ${fpsSeen.join(', ')}; ` +
            `picture behind the clock / bytes waiting to be pushed, at each window: ${lags.join(', ')}; ` +
            `sound jumps forward (late sound) by the end: ${end.audioJumps}; ` +
            `encoded picture at the end ${end.width}x${end.height} ${end.fps} fps (stream 1280x720)`
        })
      } finally {
        await browser.close()
        await shell.stop()
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return rows
}

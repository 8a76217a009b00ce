// Scenes, measured in the built app in real Chromium, side by side in one run, while the local studio
// transcodes the recommended 3-rendition ladder:
//   - `scene compositor: frame cost p95`: draw time per frame at 720p30 with camera + screen + title;
//   - `scene live: delivered fps vs bare camera`: frames reaching the ingest with the PiP scene, counting
//     only distinct camera frames (a repeated frame is not delivered), divided by the frames reaching
//     the ingest with the bare camera. The camera is a 30 fps file (Chromium's own fake camera gives 20).
// Runs alternate camera, scene, camera, scene; each figure is the median of its runs.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import type { LiveHealthEvent } from '../../src/shared/contract'
import { RECOMMENDED_PROFILES } from '../../src/shared/profiles'
import { launchChromium } from '../../tests/helpers/browser'
import { makeFakeCamera } from '../../tests/helpers/fake-camera'
import { numberAbove, type Probe } from '../../tests/helpers/page-probe'
import type { TestWebShell } from '../../tests/helpers/web-shell'
import { median, wait, type BenchRow } from './types'

const MEASURE_SECONDS = 20
const WARMUP_SECONDS = 4
const PAIRS = 2

interface Compose {
  ticks: number
  distinct: number
  /** Camera frames that reached the compositor (drawn or not). */
  arrived: number
  late: number
  p95: number
}

async function composeStats(page: Page): Promise<Compose> {
  const el = page.getByTestId('compose-stats')
  const n = async (a: string): Promise<number> => Number(await el.getAttribute(a))
  return {
    ticks: await n('data-ticks'),
    distinct: await n('data-camera-distinct'),
    arrived: await n('data-camera-serial'),
    late: await n('data-late'),
    p95: await n('data-cost-p95')
  }
}

interface ComposeRun {
  /** Distinct camera frames per drawn frame. */
  ratio: number
  p95: number
  /** Per second: frames drawn, camera frames that reached the compositor, distinct ones drawn, late ticks. */
  perSecond: { ticks: number; arrived: number; drawn: number; late: number }
}

/** One live run from the stream's Go live screen; resolves the ingest frame rate and compositor figures. */
async function liveRun(
  shell: TestWebShell,
  page: Page,
  kind: 'camera' | 'scene'
): Promise<{ ingestFps: number; compose?: ComposeRun }> {
  await page.getByTestId(`source-${kind}`).check()
  if (kind === 'camera')
    await page.waitForFunction(numberAbove, ['[data-testid=preview]', 'videoWidth', 0] as Probe)
  else {
    await page.getByTestId('scene-canvas').waitFor()
    if (!(await page.getByTestId('stop-screen').isVisible())) {
      await page.getByTestId('share-screen').click()
      await page.getByTestId('stop-screen').waitFor()
    }
    if ((await page.getByTestId('title-source').count()) === 0)
      await page.getByTestId('add-title').click()
    await page.locator('[data-testid=compose-stats][data-camera-distinct]').waitFor()
  }
  const fps: number[] = []
  let measuring = false
  const off = shell.core.events.on('live:health', (h: LiveHealthEvent) => {
    if (measuring) fps.push(h.fps)
  })
  try {
    await page.getByTestId('go-live').click()
    await page.locator('[data-testid=live-banner][data-state=live]').waitFor({ timeout: 90_000 })
    await wait(WARMUP_SECONDS * 1000)
    measuring = true
    const a = kind === 'scene' ? await composeStats(page) : null
    await wait(MEASURE_SECONDS * 1000)
    const b = kind === 'scene' ? await composeStats(page) : null
    measuring = false
    await page.getByTestId('stop-live').click()
    await page.locator('[data-testid=live-banner][data-state=ended]').waitFor({ timeout: 60_000 })
    await page.getByRole('button', { name: 'Dismiss' }).click()
    const ingestFps = median(fps)
    if (!a || !b) return { ingestFps }
    return {
      ingestFps,
      compose: {
        ratio: (b.distinct - a.distinct) / Math.max(1, b.ticks - a.ticks),
        p95: b.p95,
        perSecond: {
          ticks: (b.ticks - a.ticks) / MEASURE_SECONDS,
          arrived: (b.arrived - a.arrived) / MEASURE_SECONDS,
          drawn: (b.distinct - a.distinct) / MEASURE_SECONDS,
          late: (b.late - a.late) / MEASURE_SECONDS
        }
      }
    }
  } finally {
    off()
  }
}

export async function sceneRows(shell: TestWebShell): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'onair-bench-camera-'))
  const camera = makeFakeCamera(dir, { fps: 30 })
  const browser = await launchChromium([camera.flag])
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } })
    await page.goto(shell.url)
    // tsx (esbuild, keepNames) wraps inner functions in __name(): the page gets a no-op one.
    await page.evaluate('globalThis.__name = (f) => f')
    const pairs = async (ladder: boolean, n: number) => {
      const name = ladder ? 'Scene bench' : 'Scene bench (no ladder)'
      await shell.core.createStream({
        name,
        profiles: ladder ? [...RECOMMENDED_PROFILES] : [],
        record: false
      })
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('button', { name: 'Streams' })
        .click()
      await page.getByRole('button', { name, exact: true }).click()
      await page.getByTestId('stream-go-live').click()
      const bare: number[] = []
      const scene: number[] = []
      const p95: number[] = []
      const ratios: number[] = []
      const rates: string[] = []
      for (let i = 0; i < n; i++) {
        bare.push((await liveRun(shell, page, 'camera')).ingestFps)
        const s = await liveRun(shell, page, 'scene')
        ratios.push(s.compose!.ratio)
        p95.push(s.compose!.p95)
        // Frames at the ingest, of which only the share with a new camera frame counts as delivered.
        scene.push(s.ingestFps * s.compose!.ratio)
        const r = s.compose!.perSecond
        rates.push(
          `ingest ${s.ingestFps.toFixed(1)}, drawn ${r.ticks.toFixed(1)}, camera arrived ${r.arrived.toFixed(1)}, camera drawn ${r.drawn.toFixed(1)}, late ticks ${r.late.toFixed(1)}`
        )
      }
      return { bare, scene, p95, ratios, rates }
    }
    const { bare, scene, p95, ratios, rates } = await pairs(true, PAIRS)
    const quiet = await pairs(false, 1)
    const quietRatio = median(quiet.scene) / median(quiet.bare)
    const ratio = median(scene) / median(bare)
    return [
      {
        name: 'scene compositor: frame cost p95',
        value: Math.round(median(p95) * 100) / 100,
        unit: 'ms',
        goal: { max: 8 },
        note: `720p30, camera + screen + title, 2D canvas without GPU (Chromium --disable-gpu); p95 over the last 30 s of each scene run: ${p95.map((v) => v.toFixed(2)).join(', ')} ms`
      },
      {
        name: 'scene live: delivered fps vs bare camera',
        value: Math.round(ratio * 1000) / 1000,
        unit: 'x',
        goal: { min: 0.97 },
        note: `with the 3-rendition ladder transcoding; bare camera ${bare.map((v) => v.toFixed(1)).join(', ')} fps at the ingest; scene ${scene.map((v) => v.toFixed(1)).join(', ')} fps delivered (ingest fps x distinct camera frames per drawn frame: ${ratios.map((v) => v.toFixed(3)).join(', ')}; per second, ${rates.join('; ')}); ${MEASURE_SECONDS} s each after ${WARMUP_SECONDS} s, camera a 30 fps file; the same pair with no ladder running: ${quietRatio.toFixed(3)} (bare ${quiet.bare[0]?.toFixed(1)}, scene ${quiet.scene[0]?.toFixed(1)} fps)`
      }
    ]
  } finally {
    await browser.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

// `npm run bench:studio-mode`: `studio mode: transition click -> program frame at the ingest` (#34 §3,
// goal <= 150 ms). The app in real Chromium through the web shell (this process runs the core, the
// web shell and so the local studio), live on a scene with studio mode on. The camera is a solid blue
// file (tests/helpers/fake-camera.ts), so the "Camera" scene is blue in the middle and "Screen + camera"
// (no screen shared) is not. Each click of Transition (the scene change set to Cut) sends the other
// scene to program; the time is from the click (the page's own click event, Date.now()) to the arrival,
// at a player of the local studio's RTMP ingest, of the first frame whose middle has the new colour:
// an ffmpeg plays the stream from the ingest (the studio's own puller URL: its play token is read off
// the studio's first puller, node-media-server's prePlay event; so the studio runs in this process, the
// same code as the app's local studio, added as the app's service) with -fflags nobuffer and copies it
// out; each frame is stamped with its packet's arrival and known by its colour once decoded
// (IngestFrames). So the figure includes the page's compositor drawing the new scene, the capture and
// the page's encoder (the Output's encoder: on 2 cores Automatic picks the browser's), the transport to
// main and on to the ingest by RTMP, and the ingest's relay to a player. The note also gives the time
// the decoder showed each frame (before 28 Nov that was the figure, and so it included ffmpeg's own
// decoding lag of one or two frames). Both clocks are this machine's wall clock. Clicks alternate the
// two directions; the row is their median.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Context from 'node-media-server/src/core/context.js'
import type { Page } from 'playwright-core'
import { launchChromium } from '../../tests/helpers/browser'
import { makeFakeCamera } from '../../tests/helpers/fake-camera'
import { startTestStudio, testFfmpeg } from '../../tests/helpers/studio'
import { startWebShell } from '../../tests/helpers/web-shell'
import { inKeyringSession, keyringScriptMain } from './keyring-session'
import { median, type BenchRow } from './types'

const CLICKS = 8
const W = 32
const H = 18
/** How long the program holds a scene before the next click (the puller settles on the new colour). */
const HOLD_MS = 2000

type RGB = [number, number, number]
const isBlue = ([r, g, b]: RGB): boolean => b > 150 && r < 100 && g < 130

/**
 * Frames of the stream as the ingest hands them to a player: each with the time its packet arrived
 * (`at`), the time a decoder showed it (`shownAt`) and its middle colour. One ffmpeg pulls the stream
 * from the ingest and copies it out as FLV; this process reads the FLV tags as they come (the time of
 * each video packet) and hands the same bytes to a second ffmpeg that decodes them, one thread, scaled
 * to 32x18. ffmpeg's decoding pipeline shows frame N only once frame N+1 (here even N+2) has come in
 * (measured on 28 Nov by writing an FLV's tags one at a time into it: copied out at once, decoded two
 * frames later, with -flags low_delay and one thread as with slice threads), so a frame is
 * stamped with its packet's arrival: the k-th frame decoded is the k-th picture packet from the first
 * keyframe on (no B-frames: decode order is the order shown). Its decoded time is kept for the note.
 */
class IngestFrames {
  readonly frames: { at: number; shownAt: number; blue: boolean }[] = []
  private readonly puller: ChildProcess
  private readonly decoder: ChildProcess
  /** Arrival times of the picture packets from the first keyframe on, in order. */
  private readonly arrivals: number[] = []
  private flv = Buffer.alloc(0)
  private flvHeaderRead = false
  private pending = Buffer.alloc(0)
  private err = ''

  constructor(url: string) {
    const size = W * H * 3
    // prettier-ignore
    this.puller = spawn(testFfmpeg(), [
      '-hide_banner', '-loglevel', 'error', '-rw_timeout', '10000000',
      '-fflags', 'nobuffer', '-probesize', '32768', '-analyzeduration', '0', '-i', url,
      '-an', '-c:v', 'copy', '-f', 'flv', '-flush_packets', '1', 'pipe:1'
    ], { stdio: ['ignore', 'pipe', 'pipe'] })
    // prettier-ignore
    this.decoder = spawn(testFfmpeg(), [
      '-hide_banner', '-loglevel', 'error', '-threads', '1',
      '-probesize', '32768', '-analyzeduration', '0', '-f', 'flv', '-i', 'pipe:0',
      '-an', '-vf', `scale=${W}:${H}`, '-fps_mode', 'passthrough', '-pix_fmt', 'rgb24', '-f', 'rawvideo',
      '-flush_packets', '1', 'pipe:1'
    ], { stdio: ['pipe', 'pipe', 'pipe'] })
    for (const c of [this.puller, this.decoder])
      c.stderr!.setEncoding('utf8').on('data', (t: string) => (this.err += t))
    this.decoder.stdin!.on('error', () => undefined)
    this.puller.stdout!.on('data', (c: Buffer) => {
      this.stampPackets(c, Date.now())
      this.decoder.stdin!.write(c)
    })
    this.decoder.stdout!.on('data', (c: Buffer) => {
      const shownAt = Date.now()
      this.pending = Buffer.concat([this.pending, c])
      while (this.pending.length >= size) {
        const f = this.pending.subarray(0, size)
        this.pending = this.pending.subarray(size)
        // The middle 8x4 pixels' mean (the camera's moving white square is small beside it).
        const sum: RGB = [0, 0, 0]
        let n = 0
        for (let y = H / 2 - 2; y < H / 2 + 2; y++)
          for (let x = W / 2 - 4; x < W / 2 + 4; x++) {
            const i = (y * W + x) * 3
            sum[0] += f[i]!
            sum[1] += f[i + 1]!
            sum[2] += f[i + 2]!
            n++
          }
        const at = this.arrivals[this.frames.length]
        // Cannot be: a frame is decoded from a packet read before. Said, not stamped wrongly.
        if (at === undefined) {
          this.err += 'a frame was decoded before its packet was read; '
          continue
        }
        this.frames.push({ at, shownAt, blue: isBlue(sum.map((v) => v / n) as RGB) })
      }
    })
  }

  /** The picture packets (FLV video tags holding a picture, not the codec's headers) in `c`. */
  private stampPackets(c: Buffer, at: number): void {
    this.flv = Buffer.concat([this.flv, c])
    if (!this.flvHeaderRead) {
      if (this.flv.length < 13) return
      this.flv = this.flv.subarray(13)
      this.flvHeaderRead = true
    }
    // A tag: type (1 byte), payload size (3), timestamp (4), stream id (3), payload, previous size (4).
    while (this.flv.length >= 11) {
      const bytes = this.flv.readUIntBE(1, 3)
      if (this.flv.length < 15 + bytes) return
      const picture = this.flv[0] === 9 && bytes >= 2 && this.flv[12] === 1
      const key = this.flv[11]! >> 4 === 1
      if (picture && (key || this.arrivals.length > 0)) this.arrivals.push(at)
      this.flv = this.flv.subarray(15 + bytes)
    }
  }

  /** The first frame after `since` with the colour `blue`, waiting up to `ms`. */
  async first(
    since: number,
    blue: boolean,
    ms: number
  ): Promise<{ at: number; shownAt: number; blue: boolean }> {
    const until = Date.now() + ms
    for (;;) {
      const f = this.frames.find((x) => x.at >= since && x.blue === blue)
      if (f) return f
      if (Date.now() > until || this.puller.exitCode !== null || this.decoder.exitCode !== null)
        throw new Error(
          `no ${blue ? 'blue' : 'non-blue'} frame at the ingest within ${ms} ms (${this.frames.length} frames; ffmpeg: ${this.err.slice(-300) || 'running'})`
        )
      await new Promise((r) => setTimeout(r, 10))
    }
  }

  /** The colour has held for `ms` at the ingest (the frames flow and the last ones all agree). */
  async steady(blue: boolean, ms: number, timeout = 15_000): Promise<void> {
    const until = Date.now() + timeout
    for (;;) {
      const now = Date.now()
      const recent = this.frames.filter((f) => f.at >= now - ms)
      if (recent.length >= 3 && recent.every((f) => f.blue === blue)) return
      if (now > until)
        throw new Error(`the ingest did not hold ${blue ? 'blue' : 'non-blue'} for ${ms} ms`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }

  stop(): void {
    this.puller.kill('SIGKILL')
    this.decoder.kill('SIGKILL')
  }
}

/** The page's own time of the next click on Transition (Date.now() in its click listener). */
async function armClickClock(page: Page): Promise<void> {
  await page.evaluate(() => {
    const g = globalThis as unknown as {
      document: {
        addEventListener(t: string, f: (e: { target: unknown }) => void, c: boolean): void
      }
      __transitionClicks?: number[]
    }
    if (g.__transitionClicks) return
    const clicks: number[] = (g.__transitionClicks = [])
    g.document.addEventListener(
      'click',
      (e) => {
        const el = e.target as { closest(s: string): unknown } | null
        if (el?.closest('[data-testid=studio-transition]')) clicks.push(Date.now())
      },
      true
    )
  })
}
const lastClick = (page: Page): Promise<number> =>
  page.evaluate(() => {
    const c = (globalThis as unknown as { __transitionClicks: number[] }).__transitionClicks
    return c[c.length - 1] ?? NaN
  })

async function measure(): Promise<BenchRow[]> {
  process.env.ONAIR_KEYCHAIN_SERVICE ??= 'onair-bench'
  const dir = mkdtempSync(join(tmpdir(), 'onair-bench-studio-mode-'))
  const camera = makeFakeCamera(dir)
  let token: string | undefined
  const onPlay = (s: { streamQuery?: Record<string, unknown> }): void => {
    if (typeof s.streamQuery?.token === 'string') token ??= s.streamQuery.token
  }
  Context.eventEmitter.on('prePlay', onPlay)
  // The studio runs in this process (the app's own local studio is its child process, where no
  // event of its ingest can be heard): the same studio code, connected as the app's service.
  const studio = await startTestStudio()
  const shell = await startWebShell()
  const browser = await launchChromium([camera.flag])
  let frames: IngestFrames | undefined
  try {
    await shell.core.addConnection({
      kind: 'custom',
      baseUrl: studio.apiUrl,
      apiKey: studio.apiKey
    })
    const page = await browser.newPage({ viewport: { width: 1366, height: 768 } })
    const name = 'Studio mode bench'
    const created = await shell.core.createStream({ name, profiles: [], record: false })
    await page.goto(shell.url)
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('button', { name: 'Streams', exact: true })
      .click()
    await page.getByRole('button', { name, exact: true }).click()
    await page.getByTestId('stream-go-live').click()
    await page.getByTestId('source-scene').check()
    await page.getByTestId('scene-canvas').waitFor()
    await page.getByTestId('transition-kind').selectOption('cut')
    const local = page.getByTestId('record-locally')
    if ((await local.count()) && (await local.isChecked())) await local.uncheck()
    await page.getByTestId('go-live').click()
    await page
      .getByTestId('live-banner')
      .and(page.locator('[data-state=live]'))
      .waitFor({ timeout: 90_000 })
    const tab = (re: RegExp) => page.getByTestId('scene-tab').filter({ hasText: re })
    // On air: "Screen + camera" (not blue). The studio's own puller gave its token as it started.
    await tab(/^Screen \+ camera$/).click()
    const until = Date.now() + 30_000
    while (!token && Date.now() < until) await new Promise((r) => setTimeout(r, 100))
    if (!token) throw new Error("the local studio's puller never played the stream")
    const key = await shell.core.revealStreamKey(created.id)
    const port = new URL(studio.rtmpUrl).port
    frames = new IngestFrames(
      `rtmp://127.0.0.1:${port}/live/${key}?token=${token}&for=bench-studio-mode`
    )
    await frames.steady(false, 1000, 30_000)
    await page.getByTestId('studio-mode').check()
    await page.getByTestId('studio-preview-canvas').waitFor()
    await armClickClock(page)
    const delays: number[] = []
    const shown: number[] = []
    let blue = false
    for (let i = 0; i < CLICKS; i++) {
      // The other scene into the preview; the program (and so the ingest) keeps its colour.
      await tab(blue ? /^Screen \+ camera$/ : /^Camera$/).click()
      await frames.steady(blue, 500)
      await page.getByTestId('studio-transition').click()
      const clicked = await lastClick(page)
      const f = await frames.first(clicked, !blue, 10_000)
      delays.push(f.at - clicked)
      shown.push(f.shownAt - clicked)
      blue = !blue
      await frames.steady(blue, HOLD_MS)
    }
    const enc = await page
      .getByTestId('health-encoder')
      .textContent({ timeout: 2000 })
      .catch(() => '')
    return [
      {
        name: 'studio mode: transition click -> program frame at the ingest',
        value: Math.round(median(delays)),
        unit: 'ms',
        goal: { max: 150 },
        note:
          `median of ${delays.length} clicks of Transition (Cut), alternating Camera (blue) and Screen + camera: ` +
          `${delays.map((d) => d.toFixed(0)).join(', ')} ms; from the page's click event to the arrival of the first frame ` +
          `of the new scene at an ffmpeg pulling the studio's RTMP ingest (the studio in the bench's process; nobuffer; ` +
          `the frame known by its colour once decoded): the compositor, capture, the page's encoder${enc ? ` (${enc.replace(/\s+/g, ' ').trim()})` : ''}, ` +
          `the transport to main, the RTMP push and the ingest's relay; shown by ffmpeg's decoder (one thread, 32x18) ` +
          `${shown.map((d) => d.toFixed(0)).join(', ')} ms, median ${Math.round(median(shown))} ms; 1366x768 web shell, ` +
          `720p30 Output defaults, a stream without profiles`
      }
    ]
  } finally {
    frames?.stop()
    Context.eventEmitter.off('prePlay', onPlay)
    await browser.close()
    await shell.stop()
    await studio.cleanup()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** In a private keyring session where needed: the app's core keeps the local studio's key there. */
export function runStudioModeBench(): Promise<BenchRow[]> {
  return inKeyringSession('studio mode bench', __filename, measure)
}

if (require.main === module)
  keyringScriptMain(runStudioModeBench, measure, () => ({
    section: 'Studio mode',
    command: 'npm run bench:studio-mode'
  }))

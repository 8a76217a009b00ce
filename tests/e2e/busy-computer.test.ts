// A computer too busy to send in real time is named as such (#32, #33): sending to the local studio on
// this machine, every core is kept busy by spinning processes and the broadcaster's ffmpeg only gets
// the CPU in pulses (SIGSTOP/SIGCONT, as a starved process gets it), so media queues in main exactly
// as it does behind a short upload. The health strip must name the computer, with its CPU load, and
// never blame the upload: through Onair's x264 and through the browser's encoder (Automatic here). Real
// Chromium camera, real ffmpeg and x264, the real OS CPU counters. On the WebRTC path the local studio
// itself (which receives the stream on this computer) gets the CPU in pulses: WebRTC's estimate falls
// as behind a short upload, and the strip must say the computer all the same.
import { spawn, type ChildProcess } from 'node:child_process'
import { cpus } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { processesWith } from '../helpers/proc'
import { studioPid } from '../helpers/web-shell'
import {
  appForFile,
  createStream,
  eventually,
  goLive,
  goLiveWebRtc,
  SHOTS,
  stopLive,
  text
} from './app-page'

const app = appForFile()
const spinners: ChildProcess[] = []
let pulses: NodeJS.Timeout | undefined
let paused: number | undefined

/** `pid` stopped for 600 ms of every 1000 (a starved process's share of the CPU), until idle(). */
function pulse(pid: number): void {
  pulses = setInterval(() => {
    paused = pid
    try {
      process.kill(pid, 'SIGSTOP')
    } catch {
      // Gone (the run ended): the assertions say how.
      return
    }
    setTimeout(cont, 600)
  }, 1000)
}

const cont = (): void => {
  if (paused !== undefined) {
    try {
      process.kill(paused, 'SIGCONT')
    } catch {
      // Gone already.
    }
  }
}

/** The computer made idle again: after each test, passed or failed, before the app stops a run. */
const idle = (): void => {
  clearInterval(pulses)
  cont()
  for (const s of spinners.splice(0)) s.kill('SIGKILL')
}
afterEach(idle)
afterAll(idle)

describe('a busy computer', () => {
  // Through Onair's x264 the encoder is the first to starve: the strip says the computer cannot encode
  // fast enough (OBS's "encoding overloaded"), with the frames skipped. Through the browser's encoder
  // (Automatic on these 2 cores) the page keeps encoding and main's queue builds behind ffmpeg as it
  // would behind a short upload: the strip says the computer is too busy to encode and send.
  it.each([
    {
      path: 'x264',
      encoder: 'x264',
      said: /^(For \d+ s the stream has fallen short: t|T)his computer cannot encode fast enough \(CPU \d+ %\): \d+ frames? skipped/
    },
    {
      path: 'the browser',
      // Named: the Output remembers the x264 of the run before (Automatic is the browser's here).
      encoder: 'browser',
      said: /^This computer is too busy to encode and send in real time \(CPU \d+ %\): /
    }
  ])(
    'is named as the cause with its CPU load, the upload not blamed: $path',
    async ({ encoder, said, path }) => {
      const { page } = app()
      await createStream(page, `Busy machine ${path}`, { profiles: 'none', record: false })
      await goLive(page, 'camera', { encoder })
      // The broadcaster's ffmpeg: it reads the media on stdin and pushes FLV.
      const [pid] = processesWith('ffmpeg', 'pipe:0', 'flv')
      expect(pid).toBeDefined()
      for (let i = 0; i < cpus().length * 2; i++)
        spinners.push(spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }))
      // ffmpeg takes what it is handed late, and main's queue builds.
      pulse(pid!)
      const alert = page.locator('[data-testid=health-uplink], [data-testid=health-warning]')
      await eventually(
        async () => (await alert.count()) > 0 && text(alert.first()),
        60_000
      ).toMatch(said)
      const banner = page.getByTestId('live-banner')
      expect(await text(banner)).not.toContain('upload')
      expect(
        Number((await text(page.getByTestId('health-cpu'))).replace(' %', ''))
      ).toBeGreaterThan(80)
      if (encoder === 'browser')
        expect(await page.getByTestId('health-dropped').getAttribute('data-cause')).toBe('computer')
      else
        expect(
          Number(await page.getByTestId('health-skipped').getAttribute('data-encoder'))
        ).toBeGreaterThan(0)
      await banner.screenshot({
        path: join(SHOTS, `busy-computer-health${encoder ? `-${encoder}` : ''}.png`)
      })
      idle()
      await stopLive(page)
    }
  )

  it('is named as the cause on the WebRTC path too, the upload not blamed', async () => {
    const { page } = app()
    await createStream(page, 'Busy machine WebRTC', { profiles: 'none', record: false })
    await goLiveWebRtc(page, false)
    const banner = page.getByTestId('live-banner')
    const studio = studioPid()
    expect(studio).toBeDefined()
    // The receiver starves: its feedback comes late, and the page's estimate falls (0.1-0.4 Mbit/s on a
    // loaded machine in CI) until the size is let go and WebRTC says the link limits it.
    pulse(studio!)
    const limited = page.getByTestId('webrtc-limited')
    await eventually(() => limited.getAttribute('data-reason'), 60_000).toBe('bandwidth')
    expect(await limited.getAttribute('data-cause')).toBe('computer')
    expect(await text(limited)).toMatch(/^ · limited by this computer \(too busy to send/)
    expect(await text(banner)).not.toContain('upload')
    await banner.screenshot({ path: join(SHOTS, 'busy-computer-health-webrtc.png') })
    idle()
    await stopLive(page)
  })
})

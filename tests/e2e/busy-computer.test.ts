// A computer too busy to send in real time is named as such (#32): sending to the local studio on
// this machine, every core is kept busy by spinning processes and the broadcaster's ffmpeg only gets
// the CPU in pulses (SIGSTOP/SIGCONT, as a starved process gets it), so media queues in main exactly
// as it does behind a short upload. The health strip must say the computer is too busy, with its CPU
// load, and never blame the upload. Real Chromium camera, real ffmpeg, the real OS CPU counters.
import { spawn, type ChildProcess } from 'node:child_process'
import { cpus } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { processesWith } from '../helpers/proc'
import { appForFile, createStream, eventually, goLive, SHOTS, stopLive, text } from './app-page'

const app = appForFile()
const spinners: ChildProcess[] = []
let pulses: NodeJS.Timeout | undefined
let paused: number | undefined

const cont = (): void => {
  if (paused !== undefined) {
    try {
      process.kill(paused, 'SIGCONT')
    } catch {
      // Gone already.
    }
  }
}

afterAll(() => {
  clearInterval(pulses)
  cont()
  for (const s of spinners) s.kill('SIGKILL')
})

describe('a busy computer', () => {
  it('is named as the cause, with its CPU load; the upload is not blamed', async () => {
    const { page } = app()
    await createStream(page, 'Busy machine', { profiles: 'none', record: false })
    await goLive(page, 'camera')
    // The broadcaster's ffmpeg: it reads the page's media on stdin and pushes FLV.
    const [pid] = processesWith('ffmpeg', 'pipe:0', 'flv')
    expect(pid).toBeDefined()
    for (let i = 0; i < cpus().length * 2; i++)
      spinners.push(spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }))
    // 600 ms stopped of every 1000: ffmpeg takes what it is handed late, and main's queue builds.
    pulses = setInterval(() => {
      paused = pid
      process.kill(pid!, 'SIGSTOP')
      setTimeout(cont, 600)
    }, 1000)
    const alert = page.getByTestId('health-uplink')
    await eventually(() => text(alert), 60_000).toMatch(
      /^This computer is too busy to encode and send in real time \(CPU \d+ %\): /
    )
    expect(await text(alert)).not.toContain('upload')
    expect(Number((await text(page.getByTestId('health-cpu'))).replace(' %', ''))).toBeGreaterThan(
      80
    )
    expect(await page.getByTestId('health-dropped').getAttribute('data-cause')).toBe('computer')
    await page
      .getByTestId('live-banner')
      .screenshot({ path: join(SHOTS, 'busy-computer-health.png') })
    clearInterval(pulses)
    cont()
    for (const s of spinners.splice(0)) s.kill('SIGKILL')
    await stopLive(page)
  })
})

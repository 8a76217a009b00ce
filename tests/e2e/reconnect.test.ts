// The local studio dies in the middle of a broadcast (its process is killed, as a crash would): the UI
// shows "Reconnecting in N s (attempt n)" with Retry now, the core brings the studio back on the same
// ports, and the run returns to Live on its own or through Retry now. Stop still works afterwards, and
// the broadcast is one session with one recording across the crash (the studio came back within its
// resume window), which decodes end to end and lasts about the whole run.
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { decodeAll, ffprobe } from '../helpers/studio'
import { STUDIO_SCRIPT } from '../helpers/web-shell'
import { createStream, eventually, goLive, appForFile, shot, stopLive, text } from './app-page'

const app = appForFile()

/** The studio is a child of this test process (the core runs in-process): find it by its script. */
function studioPid(): number | undefined {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)]).toString()
  const line = out.split('\n').find((l) => l.includes(STUDIO_SCRIPT))
  return line ? Number(line.trim().split(/\s+/)[0]) : undefined
}

describe('reconnect', () => {
  it('shows Reconnecting with the attempt and Retry now, then returns to Live; Stop ends it', async () => {
    const { page } = app()
    await createStream(page, 'Reconnect me', { profiles: 'none', record: true })
    await goLive(page, 'test-pattern')
    const streamId = (await app().shell.core.liveStatus())!.streamId
    const sessionsOf = async () => (await app().shell.core.listSessions({ streamId })).items
    // Some media before the crash, recorded by the first studio process.
    await eventually(
      async () => (await sessionsOf())[0]?.sourceSegmentsDuration ?? 0,
      30_000
    ).toBeGreaterThan(5)
    const pid = studioPid()
    expect(pid).toBeGreaterThan(0)
    process.kill(pid as number, 'SIGKILL')

    const state = page.getByTestId('live-state')
    await eventually(() => text(state), 30_000).toMatch(/^Reconnecting in \d+ s \(attempt \d+\)$/)
    await eventually(() => page.getByTestId('retry-now').isVisible()).toBe(true)
    await shot(page, 'live-reconnecting')
    // The studio comes back by itself; Retry now skips whatever wait is left.
    await eventually(
      async () => (await app().shell.core.connectionStatus()).local.state,
      60_000
    ).toBe('ready')
    if (await page.getByTestId('retry-now').isVisible()) await page.getByTestId('retry-now').click()
    await eventually(() => text(state), 90_000).toBe('Live')
    // Some media after it, by the restarted one: 7 s, so that the whole recording is past 10 s with
    // room to spare (the crash costs the first run's unfinished segment; a run measured 9.9 s once).
    const before = (await sessionsOf())[0]?.sourceSegmentsDuration ?? 0
    await eventually(
      async () => (await sessionsOf())[0]?.sourceSegmentsDuration ?? 0,
      30_000
    ).toBeGreaterThan(before + 7)
    await stopLive(page)

    // One broadcast, one session, one recording of about the whole run.
    let sessions = await sessionsOf()
    await eventually(async () => {
      sessions = await sessionsOf()
      return sessions.map((x) => x.recordingStatus)
    }, 60_000).toEqual(['ready'])
    const s = sessions[0]!
    expect(s.sourceSegmentsDuration).toBeGreaterThan(10)
    // The HLS recording joins the two runs with a discontinuity (ffmpeg 5.1 flags the first packet
    // after it, see decodeAll); the MP4 is one file and decodes without a single error.
    const played = await decodeAll(s.recordingUrl!, false)
    expect(played.ok, played.stderr).toBe(true)
    expect((await ffprobe(s.recordingUrl!)).duration).toBeGreaterThan(10)
    const mp4 = await decodeAll(s.mp4Url!)
    expect(mp4.stderr).toBe('')
    expect((await ffprobe(s.mp4Url!)).duration).toBeGreaterThan(10)
  })
})

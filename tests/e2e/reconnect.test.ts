// The local studio dies in the middle of a broadcast (its process is killed, as a crash would): the UI
// shows "Reconnecting in N s (attempt n)" with Retry now, the core brings the studio back on the same
// ports, and the run returns to Live on its own or through Retry now. Stop still works afterwards, and
// the broadcast is one session with one recording across the crash (the studio came back within its
// resume window), which decodes end to end and lasts about the whole run. And when another program
// takes the studio's RTMP port while it restarts (a second Onair, another server), it comes back on
// another port and the run follows it there: each reconnect asks where the ingest is now.
import { createServer, type Server } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { decodeAll, ffprobe } from '../helpers/studio'
import { studioPid } from '../helpers/web-shell'
import { createStream, eventually, goLive, appForFile, shot, stopLive, text } from './app-page'

const app = appForFile()
let squatter: Server | undefined
afterAll(async () => {
  if (squatter) await new Promise((r) => squatter!.close(r))
})

/**
 * Takes `port` as soon as it is free (a killed studio's socket goes with its process), before the
 * studio's restart can: that takes a second or more (a new node process, its database), this a try
 * every few ms. What connects is closed at once, so nothing is ever read from it.
 */
async function takePort(port: number, withinMs = 5000): Promise<Server> {
  const until = Date.now() + withinMs
  for (;;) {
    const server = createServer((socket) => socket.destroy())
    const taken = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false))
      server.listen(port, '127.0.0.1', () => resolve(true))
    })
    if (taken) return server
    if (Date.now() > until) throw new Error(`port ${port} was not freed within ${withinMs} ms`)
    await new Promise((r) => setImmediate(r))
  }
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
  it('comes back on another port when its own was taken while it restarted, and the run follows it', async () => {
    const { page, shell } = app()
    await createStream(page, 'Reconnect elsewhere', { profiles: 'none', record: true })
    await goLive(page, 'test-pattern')
    const streamId = (await shell.core.liveStatus())!.streamId
    const sent = async () =>
      (await shell.core.listSessions({ streamId })).items[0]?.sourceSegmentsDuration ?? 0
    await eventually(sent, 30_000).toBeGreaterThan(2)
    const was = (await shell.core.connectionStatus()).local.rtmp!
    const pid = studioPid()
    expect(pid).toBeGreaterThan(0)
    process.kill(pid as number, 'SIGKILL')
    squatter = await takePort(Number(new URL(was).port))

    const state = page.getByTestId('live-state')
    await eventually(() => text(state), 30_000).toMatch(/^Reconnecting/)
    await eventually(async () => (await shell.core.connectionStatus()).local.state, 60_000).toBe(
      'ready'
    )
    const now = (await shell.core.connectionStatus()).local.rtmp!
    expect(now).not.toBe(was)
    if (await page.getByTestId('retry-now').isVisible()) await page.getByTestId('retry-now').click()
    await eventually(() => text(state), 90_000).toBe('Live')
    // The media reaches the studio at its new address: the same session keeps growing.
    const before = await sent()
    await eventually(sent, 30_000).toBeGreaterThan(before + 4)
    await shot(page, 'live-reconnected-elsewhere')
    await stopLive(page)
  })
})

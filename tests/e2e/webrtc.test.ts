// Low latency (WebRTC) end to end in real Chromium with the fake camera, against the local studio:
// Output's "Low latency (WebRTC)" goes live by WHIP straight from the page (no ffmpeg in the app);
// the health strip shows getStats' figures; the live monitor plays by WHEP and says so; Stop ends it;
// the session has a recording with the ladder, and a destination (a second stream of the same studio)
// got the stream.
import { describe, expect, it } from 'vitest'
import {
  appForFile,
  attr,
  createStream,
  eventually,
  ingestAddressOf,
  liveFor,
  numberAbove,
  playingPast,
  shot,
  stopLive,
  type Probe,
  watchWebRtcPicture
} from './app-page'

const app = appForFile()

describe('Low latency (WebRTC)', () => {
  it('goes live by WHIP, watches by WHEP, stops, and finds the recording with its ladder and the destination fed', async () => {
    const a = app()
    const { page } = a
    const core = a.shell.core
    await createStream(page, 'Relay target', { profiles: 'none', record: false })
    await createStream(page, 'Sub-second', { profiles: 'recommended', record: true })
    const streams = (await core.listStreams({ limit: 100 })).items
    const relay = streams.find((s) => s.name === 'Relay target')!
    const main = streams.find((s) => s.name === 'Sub-second')!
    const { server, key } = await ingestAddressOf(a, 'Relay target')
    await core.addDestination({
      streamId: main.id,
      name: 'Relay',
      url: `${server}/${key}`,
      profile: 'source',
      videoOnly: false
    })

    await page.getByTestId('stream-go-live').click()
    await page.getByTestId('source-camera').check()
    await page.waitForFunction(numberAbove, ['[data-testid=preview]', 'videoWidth', 0] as Probe, {
      timeout: 30_000
    })
    await page.getByTestId('output-transport').selectOption('webrtc')
    await page.getByTestId('output-transport-note').waitFor()
    // Without Record on this computer (its copy, the one thing a WebRTC run hands main, is
    // webrtc-promises.test.ts's).
    const record = page.getByTestId('record-locally')
    if (await record.isChecked()) await record.click()
    const callsBefore = a.calls.length
    await page.getByTestId('go-live').click()
    await page
      .getByTestId('live-banner')
      .and(page.locator('[data-state=live]'))
      .waitFor({ timeout: 60_000 })
    const picture = watchWebRtcPicture(page)
    // getStats' figures: bytes leave the page, and the congestion controller has an estimate.
    await eventually(
      async () => Number(await attr(page.getByTestId('webrtc-out'), 'data-kbps')),
      30_000
    ).toBeGreaterThan(0)
    expect(Number(await attr(page.getByTestId('webrtc-available'), 'data-kbps'))).toBeGreaterThan(0)
    // No media went through main: the page called whipStart, never pushMedia or goLive.
    const calls = a.calls.slice(callsBefore)
    expect(calls).toContain('whipStart')
    expect(calls).not.toContain('pushMedia')
    expect(calls).not.toContain('goLive')
    // The studio has the run as a live stream.
    await eventually(async () => (await core.getStream(main.id)).isActive, 30_000).toBe(true)

    // The live monitor plays by WHEP, and says so.
    await page.getByTestId('watch-live').click()
    const monitor = page.getByTestId('live-monitor')
    await monitor.waitFor()
    await eventually(
      () => attr(page.getByTestId('monitor-transport'), 'data-transport'),
      30_000
    ).toBe('webrtc')
    await playingPast(page, 1)
    await shot(page, 'webrtc-monitor', false)
    await monitor.getByRole('button', { name: 'Close' }).click()

    // The destination got the stream (the studio's forwarder pushes the run to the second stream).
    await eventually(async () => (await core.getStream(relay.id)).isActive, 45_000).toBe(true)
    // Some media for the ladder's segments.
    await liveFor(page, 8)
    console.log(`WebRTC picture sent, as the health strip said: ${await picture.stop()}`)

    await stopLive(page)
    await eventually(
      async () =>
        (await core.listSessions({ limit: 10, streamId: main.id })).items[0]?.recordingStatus,
      60_000
    ).toBe('ready')
    const s = (await core.listSessions({ limit: 10, streamId: main.id })).items[0]!
    expect(s.recordingStatus).toBe('ready')
    const master = await (await fetch(s.recordingUrl!)).text()
    // The source and the three renditions of the ladder.
    expect(master.match(/#EXT-X-STREAM-INF/g)?.length).toBe(4)
  })
})

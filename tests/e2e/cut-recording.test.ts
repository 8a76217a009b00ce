// The broadcast that cannot be lost (#35): the local studio's source recorder dies mid-way (its
// ffmpeg, found below the studio's process, is killed, and killed again each time it comes back,
// until the broadcast ends), so the service's recording stops where it died while Onair's local
// copy goes on. The Sessions row says what is missing ("Local studio recorded 0:08 of 0:30"), the
// full copy is uploaded from there, and the published video plays to its end in the app's player,
// as long as the copy. Real studio, real ffmpeg, real tus, real Chromium, at 1366x768.
import { describe, expect, it } from 'vitest'
import { commandOf, descendantsOf } from '../helpers/proc'
import { ffprobe } from '../helpers/studio'
import { studioPid } from '../helpers/web-shell'
import { formatDuration } from '../../src/renderer/src/lib/format'
import {
  appForFile,
  createStream,
  eventually,
  liveFor,
  nav,
  pressGoLive,
  savedLocalCopy,
  shot,
  stopLive,
  text
} from './app-page'

const app = appForFile()

/** The local studio: this test process's child (the core runs in-process) that runs its built script. */

/** The studio's source recorders: its ffmpegs writing a source/ playlist. */
const sourceRecorders = (studio: number): number[] =>
  descendantsOf(studio).filter((p) => {
    const cmd = commandOf(p)
    return cmd.includes('-hls_segment_filename') && /[\\/]source[\\/]seg%05d\.ts/.test(cmd)
  })

/** The video's property, read in the page. */
const videoProp = (page: import('playwright-core').Page, prop: 'currentTime' | 'duration') =>
  page.evaluate(
    (p) => (document.querySelector('[data-testid=player-video]') as HTMLVideoElement | null)?.[p],
    prop
  )

describe('a broadcast whose studio recording was cut', () => {
  it('says what is missing, uploads the full copy, and the video plays to its end', async () => {
    const { page, shell } = app()
    await page.setViewportSize({ width: 1366, height: 768 })
    await createStream(page, 'Cut show', { profiles: 'none', record: true })
    await page.getByTestId('stream-go-live').click()
    await page.getByTestId('source-test-pattern').check()
    await pressGoLive(page)
    const studio = studioPid()
    expect(studio).toBeGreaterThan(0)
    // Some media recorded by the studio before its recorder dies.
    const streamId = (await shell.core.liveStatus())!.streamId
    await eventually(
      async () =>
        (await shell.core.listSessions({ streamId })).items[0]?.sourceSegmentsDuration ?? 0,
      30_000
    ).toBeGreaterThan(6)
    await eventually(async () => sourceRecorders(studio!).length, 10_000).toBe(1)

    // The recorder dies, and each one the studio starts again dies too, until the broadcast ends.
    let killed = 0
    let cutting = true
    const killer = (async () => {
      while (cutting) {
        for (const pid of sourceRecorders(studio!)) {
          process.kill(pid, 'SIGKILL')
          killed++
        }
        await new Promise((r) => setTimeout(r, 50))
      }
    })()
    await liveFor(page, 30)
    await stopLive(page)
    cutting = false
    await killer
    expect(killed).toBeGreaterThan(0)
    const saved = await savedLocalCopy(shell)

    await nav(page, 'Sessions')
    const row = page.getByTestId('session-row').first()
    const sessionId = (await row.getAttribute('data-session-id')) ?? ''
    const session = (await shell.core.listSessions({ streamId })).items[0]!
    expect(session.id).toBe(sessionId)
    const copy = session.localRecording!
    expect(copy.file).toBe(saved.file)
    // The service's recording, once final, against the copy: short by far more than a few seconds.
    const attention = page.getByTestId('upload-attention')
    await attention.waitFor({ timeout: 60_000 })
    expect(await attention.getAttribute('data-session-id')).toBe(sessionId)
    const check = await shell.core.checkRecording(sessionId)
    expect(check.verdict.kind).toBe('short')
    if (check.verdict.kind !== 'short') return
    expect(check.verdict.localSec - check.verdict.recordedSec).toBeGreaterThan(15)
    const said = `Local studio recorded ${formatDuration(check.verdict.recordedSec)} of ${formatDuration(copy.durationSec!)}`
    expect(await text(attention.getByTestId('recording-verdict'))).toBe(said)
    const rowButton = row.getByTestId('row-upload-full-copy')
    await rowButton.waitFor({ timeout: 30_000 })
    expect(await rowButton.getAttribute('title')).toBe(`${said}: upload the full copy`)
    await shot(page, 'session-cut-recording', false)

    // Uploaded from the row's strip. The studio is held still (SIGSTOP) once it has a fifth of the
    // file, so the picture shows the upload under way; then it goes on.
    let held = false
    const off = shell.core.events.on('upload:progress', (v) => {
      if (held || v.state !== 'uploading' || v.sent < v.size / 5 || v.sent >= v.size) return
      process.kill(studio!, 'SIGSTOP')
      held = true
    })
    await attention.getByTestId('upload-full-copy').click()
    const line = page.getByTestId('upload-line').first()
    try {
      await eventually(async () => held, 30_000).toBe(true)
      await eventually(() => text(line.getByTestId('upload-progress')), 10_000).toMatch(
        /^Uploading [1-9]\d?% \(/
      )
      await shot(page, 'session-upload-in-progress', false)
    } finally {
      off()
      process.kill(studio!, 'SIGCONT')
    }
    await eventually(() => text(line.getByTestId('upload-progress')), 90_000).toBe(
      'Published on Local studio'
    )
    const [done] = await shell.core.listUploads()
    expect(done?.state).toBe('ready')
    expect(done?.sessionId).toBe(sessionId)

    // The published video in the app's player: its whole length, played to its end.
    const asset = await shell.core.getClip(done!.assetId!)
    expect(Math.abs(asset.duration! - copy.durationSec!)).toBeLessThan(1)
    expect(Math.abs((await ffprobe(asset.playbackUrl!)).duration - copy.durationSec!)).toBeLessThan(
      1
    )
    await line.getByTestId('upload-play').click()
    const player = page.getByTestId('asset-player')
    await player.waitFor()
    expect(await text(player.getByRole('heading'))).toBe(`Video: ${done!.name}`)
    await eventually(
      async () => (await videoProp(page, 'currentTime')) ?? 0,
      30_000
    ).toBeGreaterThan(0.5)
    const duration = (await videoProp(page, 'duration')) ?? 0
    expect(Math.abs(duration - copy.durationSec!)).toBeLessThan(1)
    // Played through at 4x, so the end comes sooner; the last second is reached.
    await page.evaluate(() => {
      const v = document.querySelector('[data-testid=player-video]') as HTMLVideoElement
      v.playbackRate = 4
    })
    await eventually(
      async () => (await videoProp(page, 'currentTime')) ?? 0,
      (copy.durationSec! / 4) * 1000 + 30_000
    ).toBeGreaterThan(copy.durationSec! - 1)
    await shot(page, 'session-uploaded-video-playing', false)
  }, 300_000)
})

// Clips and markers (#20) from the app: while live, a marker dropped by the creator's key (with a word) and "Clip last 30 s", which
// plays and saves as an MP4; after, the recording's player shows the marker on its timeline where it
// was dropped, and a clip made from marks in and out joins the session's clips. Real Chromium, real
// hls.js, the local studio's clips (cut by ffmpeg from the recorded source).
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ffprobe } from '../helpers/studio'
import {
  appForFile,
  attr,
  createStream,
  eventually,
  goLive,
  liveFor,
  nav,
  playingPast,
  shot,
  SHOTS,
  stopLive,
  text
} from './app-page'

const app = appForFile()

describe('clips and markers', () => {
  let markedAt = 0

  it('while live: a marker by its key, with a word, and the last 30 s as a clip that plays and saves', async () => {
    const { page } = app()
    // The creator's key for a marker (Keys screen): pressed while live, it drops one.
    await nav(page, 'Keys')
    await page.getByTestId('key-change-marker').click()
    await page.getByTestId('key-change-marker').press('Control+Shift+8')
    await eventually(() => text(page.getByTestId('key-marker'))).toBe('Ctrl+Shift+8')
    await createStream(page, 'Clip show', { profiles: 'none', record: true })
    await goLive(page, 'test-pattern')
    await liveFor(page, 8)
    markedAt = Date.now()
    await page.keyboard.press('Control+Shift+8')
    const marker = page.getByTestId('live-marker')
    await marker.waitFor()
    await marker.getByTestId('marker-word').fill('the goal')
    await marker.getByTestId('marker-word-save').click()
    await eventually(() => text(marker)).toContain('“the goal”')
    await liveFor(page, 16)

    await page.getByTestId('clip-live').click()
    const clip = page.getByTestId('live-clip')
    await eventually(() => attr(clip, 'data-state'), 45_000).toBe('ready')
    await shot(page, 'clips-live-bar', false)
    await clip.getByTestId('clip-play').click()
    const player = page.getByTestId('clip-player')
    await player.waitFor()
    await playingPast(page, 1)
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      player.getByTestId('player-clip-save').click()
    ])
    expect(download.suggestedFilename()).toMatch(/^Clip show .+\.mp4$/)
    const saved = join(SHOTS, '..', 'e2e-live-clip.mp4')
    await download.saveAs(saved)
    expect(readFileSync(saved).subarray(4, 8).toString('latin1')).toBe('ftyp')
    const probed = await ffprobe(saved)
    rmSync(saved)
    // Live for about 16 s when clipped: the clip holds what there was of the last 30 s, whole
    // segments, within one segment (2 s) of the live time (the ingest starts a moment after Live).
    const clipView = (
      await app().shell.core.listClips({
        streamId: (await app().shell.core.listStreams({ limit: 100 })).items.find(
          (s) => s.name === 'Clip show'
        )!.id
      })
    )[0]!
    expect(Math.abs(probed.duration - clipView.duration!)).toBeLessThan(0.3)
    expect(probed.duration).toBeGreaterThan(12)
    expect(probed.duration).toBeLessThan(22)
    expect(probed.streams.map((x) => x.codec_type).sort()).toEqual(['audio', 'video'])
    await player.getByRole('button', { name: 'Close' }).click()
    await stopLive(page)
  })

  it('after: the marker sits on the recording’s timeline; marks in and out make a clip', async () => {
    const { page } = app()
    await nav(page, 'Sessions')
    const row = page.locator('[data-testid=session-row][data-status=ready]').first()
    await row.waitFor({ timeout: 120_000 })
    const sessionId = await attr(row, 'data-session-id')
    const session = await app().shell.core.getSession(sessionId)
    await row.getByTestId('play-session').click()
    const player = page.getByTestId('player')
    await player.waitFor()
    await playingPast(page, 1)
    const tick = player.getByTestId('timeline-marker')
    await tick.waitFor()
    expect(await tick.getAttribute('title')).toBe('the goal')
    // Where the marker was dropped: its time after the session's first media, within a segment.
    const position = Number(await attr(tick, 'data-position'))
    expect(Math.abs(position - (markedAt - session.createdAt) / 1000)).toBeLessThan(2.5)
    await expect.poll(() => player.getByTestId('clip-row').count()).toBe(1)

    const seek = (t: number): Promise<void> =>
      page.evaluate((at) => {
        const v = document.querySelector<HTMLVideoElement>('[data-testid=player-video]')!
        v.pause()
        v.currentTime = at
      }, t)
    await seek(2)
    await player.getByTestId('mark-in').click()
    await seek(9)
    await player.getByTestId('mark-out').click()
    await player.getByTestId('clip-from-marks').click()
    await eventually(() => attr(player.getByTestId('new-clip'), 'data-state'), 45_000).toBe('ready')
    await expect.poll(() => player.getByTestId('clip-row').count()).toBe(2)
    const made = (await app().shell.core.listClips({ streamId: session.parentId, sessionId }))[0]!
    // 7 s between the marks, cut on the nearest segment boundaries: within one segment.
    expect(Math.abs(made.duration! - 7)).toBeLessThanOrEqual(2.05)
    await tick.click()
    await eventually(() =>
      page.evaluate(
        () => document.querySelector<HTMLVideoElement>('[data-testid=player-video]')!.currentTime
      )
    ).toBeCloseTo(position, 0)
    await shot(page, 'clips-player', false)
    await player.getByRole('button', { name: 'Close' }).click()
  })
})

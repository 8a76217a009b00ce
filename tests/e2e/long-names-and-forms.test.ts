// What a new user hit: a very long stream name (the longest the studio takes, and one unbroken word)
// is cut with an ellipsis and whole in its tooltip, and no screen grows wider than the window (the
// table, the stream page, the live bar, the live monitor); a form's error is outside its label (the
// field is still named "Name") and is the field's description; the player opens with sound, titled
// with the stream's name, and saves the recording's MP4 or any rendition of it.
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Locator, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { FIXTURE_RENDITIONS, writeRecording } from '../helpers/recording-fixture'
import { localStudioKey } from '../helpers/local-key'
import { seedSessions } from '../helpers/seed-sessions'
import { ffprobe } from '../helpers/studio'
import {
  SHOTS,
  appForFile,
  nav,
  numberAbove,
  pressGoLive,
  shot,
  stopLive,
  text,
  type Probe
} from './app-page'

const app = appForFile()

/** The page is no wider than the window: nothing pushed out sideways. */
async function noSidewaysOverflow(page: Page, where: string): Promise<void> {
  const { scroll, client } = await page.evaluate(() => {
    const el = (
      globalThis as unknown as {
        document: { documentElement: { scrollWidth: number; clientWidth: number } }
      }
    ).document.documentElement
    return { scroll: el.scrollWidth, client: el.clientWidth }
  })
  expect(scroll, `${where}: page ${scroll}px wide in a ${client}px window`).toBeLessThanOrEqual(
    client
  )
}

/** The element is cut (its text is wider than its box) and its title holds the whole name. */
async function cutWithTooltip(el: Locator, name: string): Promise<void> {
  expect(await el.getAttribute('title')).toContain(name)
  const { scroll, client, overflow } = await el.evaluate((e) => ({
    scroll: e.scrollWidth,
    client: e.clientWidth,
    overflow: getComputedStyle(e).textOverflow
  }))
  expect(overflow).toBe('ellipsis')
  expect(scroll).toBeGreaterThan(client)
}

/** The longest name the studio takes: 5,000 characters, or the longest of its limits below that. */
async function longestName(unit: (n: number) => string): Promise<{ id: string; name: string }> {
  for (const n of [5000, 500, 255, 128]) {
    const name = unit(n)
    try {
      const s = await app().shell.core.createStream({ name, profiles: [], record: true })
      return { id: s.id, name }
    } catch {
      // Refused as too long: the next length down.
    }
  }
  throw new Error('the studio refused every long name')
}

const words = (n: number): string =>
  Array.from({ length: Math.ceil(n / 8) }, (_, i) => `word${String(i).padStart(3, '0')}`)
    .join(' ')
    .slice(0, n)
    .trim()
const unbroken = (n: number): string => 'W'.repeat(n)

describe('long names, form errors and the player', () => {
  it("a form's error is the field's description, outside its label: the field is still named Name", async () => {
    const { page } = app()
    await nav(page, 'Streams')
    await page.getByTestId('new-stream').click()
    await page.getByTestId('create-stream-submit').click()
    const name = page.getByRole('textbox', { name: 'Name', exact: true })
    await expect.poll(() => name.getAttribute('aria-invalid')).toBe('true')
    const describedBy = await name.getAttribute('aria-describedby')
    expect(describedBy).toBeTruthy()
    const issue = page.locator(`[id="${describedBy}"]`)
    expect(await text(issue)).toBe('name is required')
    // Not inside the label: the label's own text is the name, alone.
    expect(await page.locator('label', { has: issue }).count()).toBe(0)
    await shot(page, 'form-error-name', false)
    await page.getByRole('button', { name: 'Cancel' }).click()
  })

  for (const [kind, unit] of [
    ['words', words],
    ['one unbroken word', unbroken]
  ] as const)
    it(`the longest name the studio takes (${kind}): cut with an ellipsis, whole in the tooltip, nothing wider than the window`, async () => {
      const { page } = app()
      const { id, name } = await longestName(unit)
      expect(name.length).toBeGreaterThanOrEqual(128)
      const slug = kind.replace(/ /g, '-')

      await nav(page, 'Streams')
      await page.reload()
      await nav(page, 'Streams')
      const link = page.locator(`[data-testid=stream-row][data-stream-id="${id}"] button.link`)
      await link.waitFor()
      await cutWithTooltip(link, name)
      await noSidewaysOverflow(page, 'streams table')
      await shot(page, `long-name-${slug}-table`, false)

      await link.click()
      const title = page.locator('#stream-title')
      await title.waitFor()
      expect(await text(title)).toBe(name)
      await cutWithTooltip(title, name)
      await noSidewaysOverflow(page, 'stream page')
      await shot(page, `long-name-${slug}-stream-page`, false)

      // Live on it: the live bar, then the live monitor.
      await page.getByTestId('stream-go-live').click()
      await page.getByTestId('source-test-pattern').check()
      await pressGoLive(page)
      const bar = page.getByTestId('live-title')
      await cutWithTooltip(bar, name)
      await noSidewaysOverflow(page, 'live bar')
      await shot(page, `long-name-${slug}-live-bar`, false)

      await page.getByTestId('watch-live').click()
      const monitor = page.getByTestId('live-monitor')
      await monitor.waitFor()
      const monitorTitle = monitor.locator('#player-title')
      await cutWithTooltip(monitorTitle, name)
      expect(await text(monitorTitle)).toBe(`Live monitor: ${name}`)
      // The monitor opens with sound (this browser's policy allows it).
      await page.waitForFunction(
        numberAbove,
        ['[data-testid=player-video]', 'currentTime', 0.5] as Probe,
        { timeout: 60_000 }
      )
      expect(
        await page.getByTestId('player-video').evaluate((v) => (v as HTMLVideoElement).muted)
      ).toBe(false)
      expect(await page.getByTestId('player-sound').count()).toBe(0)
      await noSidewaysOverflow(page, 'live monitor')
      await shot(page, `long-name-${slug}-monitor`, false)
      await monitor.getByRole('button', { name: 'Close' }).click()
      await stopLive(page)
    })

  it('the player: titled with the stream, muted with "click for sound" only when the browser refuses sound; saves the MP4 or a rendition', async () => {
    const { page, shell } = app()
    const localKey = await localStudioKey(shell.appDataDir)
    const { streamId } = await seedSessions(join(shell.appDataDir, 'studio'), localKey, 1, {
      streamName: 'Rendition show'
    })
    const [session] = (await shell.core.listSessions({ streamId })).items
    writeRecording(join(shell.appDataDir, 'studio', 'media', session!.id))

    // A browser that refuses to start a video with sound (its autoplay policy): this Chromium is
    // started allowing it, so the refusal is the browser's own NotAllowedError, raised here.
    await page.evaluate(() => {
      const play = HTMLMediaElement.prototype.play
      HTMLMediaElement.prototype.play = function (this: HTMLMediaElement) {
        if (!this.muted)
          return Promise.reject(new DOMException('play() needs a gesture', 'NotAllowedError'))
        return play.call(this)
      }
    })
    await nav(page, 'Sessions')
    const row = page.locator(`[data-testid=session-row][data-session-id="${session!.id}"]`)
    await row.getByTestId('play-session').click()
    const player = page.getByTestId('player')
    await player.waitFor()
    expect(await text(player.locator('#player-title'))).toMatch(/^Rendition show: recorded /)
    await page.waitForFunction(
      numberAbove,
      ['[data-testid=player-video]', 'currentTime', 0.3] as Probe,
      {
        timeout: 60_000
      }
    )
    const video = page.getByTestId('player-video')
    expect(await video.evaluate((v) => (v as HTMLVideoElement).muted)).toBe(true)
    const sound = page.getByTestId('player-sound')
    await sound.waitFor()
    await shot(page, 'player-click-for-sound', false)
    await sound.click()
    expect(await video.evaluate((v) => (v as HTMLVideoElement).muted)).toBe(false)
    expect(await sound.count()).toBe(0)

    // Every rendition is offered, beside the recording's own MP4.
    const choice = page.getByTestId('download-choice')
    const options = await choice.locator('option').allTextContents()
    expect(options[0]).toBe('Source (the MP4 the service keeps)')
    expect(options.slice(1)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^360p \(640×360\), /),
        expect.stringMatching(/^180p \(320×180\), /)
      ])
    )
    const save = async (label: RegExp): Promise<string> => {
      const value = await choice.locator('option').filter({ hasText: label }).getAttribute('value')
      await choice.selectOption(value!)
      const [download] = await Promise.all([
        page.waitForEvent('download', { timeout: 60_000 }),
        page.getByTestId('player-download').click()
      ])
      const file = join(SHOTS, '..', download.suggestedFilename())
      await download.saveAs(file)
      return file
    }
    const small = await save(/^180p/)
    expect(small).toMatch(/Rendition show \d{4}-\d{2}-\d{2} \d{2}\.\d{2} 180p\.mp4$/)
    const probed = await ffprobe(small)
    expect(probed.streams.find((s) => s.codec_type === 'video')).toMatchObject({
      width: FIXTURE_RENDITIONS[1].width,
      height: FIXTURE_RENDITIONS[1].height
    })
    expect(probed.duration).toBeGreaterThan(3)
    rmSync(small)
    const source = await save(/^Source/)
    expect(readFileSync(source).subarray(4, 8).toString('latin1')).toBe('ftyp')
    expect((await ffprobe(source)).streams.find((s) => s.codec_type === 'video')).toMatchObject({
      width: 640,
      height: 360
    })
    rmSync(source)
    await player.getByRole('button', { name: 'Close' }).click()
  })
})

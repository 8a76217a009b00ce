// Every state the live bar shows is true (issue 18 §2), in the real app (web shell + core + local
// studio) in real Chromium: "Live on <stream>" only once the run is live; the stream's health in the
// creator's words (a destination whose key the server refuses); and after a run Onair never ended
// (its crash marker left in the app data folder, as a kill leaves it: the kill itself is
// tests/integration/core/app-crash.test.ts), the next start's notice, in words, once.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, describe, expect, it } from 'vitest'
import { CrashMarker } from '../../src/main/core/crash-marker'
import { buildTargetUrl } from '../../src/shared/destinations'
import { launchChromium } from '../helpers/browser'
import { startWebShell, type TestWebShell } from '../helpers/web-shell'
import { waitUntil } from '../helpers/wait-until'
import {
  createStream,
  eventually,
  goLive,
  liveFor,
  shot,
  stopLive,
  text,
  waitLocalReady
} from './app-page'

const dir = mkdtempSync(join(tmpdir(), 'onair-truth-'))
const NAME = 'Evening show'
let shell: TestWebShell | undefined
let browser: Browser | undefined
afterAll(async () => {
  await browser?.close()
  await shell?.stop()
  rmSync(dir, { recursive: true, force: true })
})

async function open(s: TestWebShell): Promise<Page> {
  browser ??= await launchChromium()
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } })
  await page.goto(s.url)
  await waitLocalReady(page)
  return page
}

describe('true states', () => {
  let streamId = ''

  it('says Live only once live, and the stream health in words: a destination with a refused key', async () => {
    shell = await startWebShell({ appDataDir: dir, core: { broadcast: { preset: 'ultrafast' } } })
    const page = await open(shell)
    await createStream(page, NAME, { profiles: 'none', record: true })
    const stream = (await shell.core.listStreams({})).items.find((s) => s.name === NAME)!
    streamId = stream.id
    await shell.core.addDestination({
      streamId,
      name: 'Wrong key',
      url: buildTargetUrl((await shell.core.getIngest()).rtmp, 'no-such-key-24680'),
      profile: 'source',
      videoOnly: false
    })
    // Every (state, title) pair the bar shows, from the first render on.
    await page.evaluate(() => {
      const g = globalThis as unknown as {
        document: {
          querySelector(
            s: string
          ): { getAttribute(n: string): string | null; textContent: string | null } | null
          body: unknown
        }
        MutationObserver: new (fn: () => void) => { observe(n: unknown, o: unknown): void }
        __bar: string[]
      }
      g.__bar = []
      const note = (): void => {
        const bar = g.document.querySelector('[data-testid=live-banner]')
        const title = g.document.querySelector('[data-testid=live-title]')
        if (bar) g.__bar.push(`${bar.getAttribute('data-state')}|${title?.textContent ?? ''}`)
      }
      new g.MutationObserver(note).observe(g.document.body, {
        subtree: true,
        childList: true,
        characterData: true,
        attributes: true
      })
    })
    await goLive(page, 'test-pattern')
    const health = page.getByTestId('stream-health')
    await eventually(() => text(health), 45_000).toContain(
      '"Wrong key" is not receiving the stream: '
    )
    await shot(page, 'health-wording')
    const bar = await page.evaluate(() => (globalThis as unknown as { __bar: string[] }).__bar)
    expect(bar.some((b) => b === `connecting|${NAME}`)).toBe(true)
    expect(
      bar.filter((b) => b.endsWith(`|Live on ${NAME}`)).every((b) => b.startsWith('live|'))
    ).toBe(true)
    await eventually(() => text(page.getByTestId('live-title'))).toBe(`Live on ${NAME}`)
    await liveFor(page, 3)
    await stopLive(page)
    await page.close()
  })

  it('after a run Onair never ended, the next start says so once, with the recording and a link', async () => {
    // The session of that run, finalized with its recording.
    const { core } = shell!
    let session = (await core.listSessions({ streamId })).items[0]
    await waitUntil(
      async () => {
        session = (await core.listSessions({ streamId })).items[0]
        return session?.recordingStatus === 'ready'
      },
      'the recording to be ready',
      60_000,
      500
    )
    await shell!.stop()
    shell = undefined
    // What a kill leaves: the marker of a run that started before that session.
    new CrashMarker(dir, () => session!.createdAt - 2000).started({
      runId: 'killed-run',
      streamId,
      streamName: NAME,
      connectionId: 'local'
    })

    shell = await startWebShell({ appDataDir: dir })
    const page = await open(shell)
    const notice = page.getByTestId('cut-off-notice')
    await notice.waitFor({ timeout: 30_000 })
    // The time of day as the page's own locale and clock write it.
    const at = await page.evaluate(
      (ms) => new Date(ms).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' }),
      session!.lastSeen
    )
    const seconds = Math.floor(session!.sourceSegmentsDuration)
    const length = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`
    expect(await text(page.getByTestId('cut-off-words'))).toBe(
      `Your broadcast on ${NAME} was cut off at ${at} when Onair closed. Its recording is saved (${length}).`
    )
    await shot(page, 'cut-off-notice')
    // Its link plays the session's recording.
    await page.getByTestId('cut-off-play').click()
    await page.getByTestId('player').waitFor()
    // Once: the next load of the app says nothing more.
    await waitUntil(async () => (await shell!.core.cutOffNotice()) === null, 'the notice dismissed')
    await page.reload()
    await waitLocalReady(page)
    expect(await page.getByTestId('cut-off-notice').count()).toBe(0)
  })
})

// The page's CSP is built from the active connection's hosts: a second studio on another port is
// refused while it is not the active service, and its recordings play once it is (added as a custom
// connection). The page reloads itself to get the new policy.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { pushTestPattern, startTestStudio, studioCalls, type TestStudio } from '../helpers/studio'
import {
  eventually,
  nav,
  openApp,
  playFirstReady,
  shot,
  waitLocalReady,
  type App
} from './app-page'

let app: App
let second: TestStudio

/** Fetches url from inside the page: 'ok', or the reason the browser refused. */
const pageFetch = (url: string): Promise<string> =>
  app.page.evaluate(
    (u) =>
      fetch(u).then(
        (r) => (r.ok ? 'ok' : `http ${r.status}`),
        (e: Error) => `refused: ${e.message}`
      ),
    url
  )

describe('CSP from the active connection', () => {
  beforeAll(async () => {
    app = await openApp()
    await waitLocalReady(app.page)
    second = await startTestStudio()
    // A recorded session on the second studio: 5 s of test pattern, no transcoding.
    const calls = studioCalls(second)
    const stream = await calls.createStream({ name: 'Second origin', profiles: [], record: true })
    const push = pushTestPattern(`${second.rtmpUrl}/${stream.streamKey}`, {
      seconds: 5,
      width: 640,
      height: 360
    })
    expect(await push.done).toBe(0)
    const session = await calls.finished(stream.id)
    expect(session.recordingStatus).toBe('ready')
  })
  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail' && app) await shot(app.page, `fail-${task.name.slice(0, 40)}`)
  })
  afterAll(async () => {
    await app?.close()
    await second?.cleanup()
  })

  it('refuses the second studio while it is not active, plays its HLS once it is', async () => {
    const { page } = app
    const secondOrigin = new URL(second.apiUrl).origin
    const localOrigin = new URL((await app.shell.core.connectionStatus()).local.api as string)
      .origin
    expect(secondOrigin).not.toBe(localOrigin)
    // The policy names the active service exactly: no wildcard port on 127.0.0.1.
    const csp = (await page.request.get(app.shell.origin)).headers()['content-security-policy']
    expect(csp).toContain(localOrigin)
    expect(csp).not.toContain(secondOrigin)
    expect(csp).not.toMatch(/127\.0\.0\.1:\*/)
    expect(await pageFetch(`${second.apiUrl}/stream`)).toMatch(/^refused/)

    await nav(page, 'Connection')
    await page.getByTestId('connection-kind').selectOption('custom')
    await page.getByLabel('Name (optional)').fill('Second studio')
    await page.getByTestId('connection-url').fill(second.apiUrl)
    await page.getByTestId('connection-key').fill(second.apiKey)
    // Adding makes it the active service: the page reloads with a policy that allows it.
    await Promise.all([
      page.waitForEvent('load', { timeout: 30_000 }),
      page.getByTestId('connection-save').click()
    ])
    await eventually(() => page.getByTestId('connection-badge').textContent()).toContain(
      'Second studio'
    )
    // Reachable now (401 without a key is an answer, not a refusal).
    expect(await pageFetch(`${second.apiUrl}/stream`)).not.toMatch(/^refused/)

    await nav(page, 'Sessions')
    const options = await playFirstReady(page, 'csp-second-origin-playing')
    expect(options.length).toBeGreaterThan(0)
  })
})

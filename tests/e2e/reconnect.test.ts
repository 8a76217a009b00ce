// The local studio dies in the middle of a broadcast (its process is killed, as a crash would): the UI
// shows "Reconnecting in N s (attempt n)" with Retry now, the core brings the studio back on the same
// ports, and the run returns to Live on its own or through Retry now. Stop still works afterwards.
import { execFileSync } from 'node:child_process'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  createStream,
  eventually,
  goLive,
  openApp,
  shot,
  stopLive,
  text,
  waitLocalReady,
  type App
} from './app-page'

let app: App

/** The studio is a child of this test process (the core runs in-process): find it by its script. */
function studioPid(): number | undefined {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)]).toString()
  const line = out.split('\n').find((l) => l.includes('src/studio/cli.ts'))
  return line ? Number(line.trim().split(/\s+/)[0]) : undefined
}

describe('reconnect', () => {
  beforeAll(async () => {
    app = await openApp()
    await waitLocalReady(app.page)
  })
  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail' && app) await shot(app.page, `fail-${task.name.slice(0, 40)}`)
  })
  afterAll(async () => {
    await app?.close()
  })

  it('shows Reconnecting with the attempt and Retry now, then returns to Live; Stop ends it', async () => {
    const { page } = app
    await createStream(page, 'Reconnect me', { profiles: 'none', record: false })
    await goLive(page, 'test-pattern')
    const pid = studioPid()
    expect(pid).toBeGreaterThan(0)
    process.kill(pid as number, 'SIGKILL')

    const state = page.getByTestId('live-state')
    await eventually(() => text(state), 30_000).toMatch(/^Reconnecting in \d+ s \(attempt \d+\)$/)
    await eventually(() => page.getByTestId('retry-now').isVisible()).toBe(true)
    await shot(page, 'live-reconnecting')
    // The studio comes back by itself; Retry now skips whatever wait is left.
    await eventually(
      async () => (await app.shell.core.connectionStatus()).local.state,
      60_000
    ).toBe('ready')
    if (await page.getByTestId('retry-now').isVisible()) await page.getByTestId('retry-now').click()
    await eventually(() => text(state), 90_000).toBe('Live')
    await stopLive(page)
  })
})

// Secrets never leak: after a journey through the real renderer bridge (web shell, real core, local studio
// child, real ffmpeg, real keychain), neither the stream key nor the API key appears in anything Onair
// printed, in any Result or event the renderer received (other than the one reveal the user asked for),
// in the browser console, or in any file Onair wrote. The studio's own database must hold the stream key
// (it is the service) but only a hash of the API key.
import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { AsyncEntry } from '@napi-rs/keyring'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import type { Result } from '../../src/shared/result'
import { launchChromium } from '../helpers/browser'
import { localKeyAccountOf } from '../helpers/local-key'
import { startWebShell, type TestWebShell } from '../helpers/web-shell'

const service = `onair-test-${randomBytes(4).toString('hex')}`
let shell: TestWebShell
let browser: Browser
let page: Page
const printed: string[] = []
const consoleLines: string[] = []
const restore: (() => void)[] = []

function capture(stream: NodeJS.WriteStream): void {
  const original = stream.write.bind(stream)
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    printed.push(String(chunk))
    return (original as (...a: unknown[]) => boolean)(chunk, ...rest)
  }) as typeof stream.write
  restore.push(() => (stream.write = original))
}

function filesUnder(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    const st = statSync(p)
    if (st.isDirectory()) out.push(...filesUnder(p))
    else out.push(p)
  }
  return out
}

beforeAll(async () => {
  capture(process.stdout)
  capture(process.stderr)
  shell = await startWebShell({ core: { keychainService: service } })
  browser = await launchChromium()
  page = await browser.newPage()
  page.on('console', (m) => consoleLines.push(m.text()))
  page.on('pageerror', (e) => consoleLines.push(String(e)))
  await page.goto(shell.url)
})

afterAll(async () => {
  await browser?.close()
  await shell?.stop()
  for (const r of restore) r()
  if (shell)
    await new AsyncEntry(service, localKeyAccountOf(shell.appDataDir))
      .deletePassword()
      .catch(() => undefined)
})

describe('secrets', () => {
  it('leave no trace of the stream key or the API key outside the keychain and the service', async () => {
    // The whole journey runs in the page, through window.onair, as the renderer would.
    const journey = await page.evaluate(async () => {
      const seen: unknown[] = []
      const call = async <T>(p: Promise<Result<T>>): Promise<T> => {
        const r = await p
        seen.push(r)
        if (!r.ok) throw new Error(JSON.stringify(r.error))
        return r.value
      }
      const onair = window.onair
      onair.on('live:state', (e) => seen.push(e))
      onair.on('live:health', (e) => seen.push(e))
      onair.on('connection:status', (e) => seen.push(e))
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
      const stream = await call(
        onair.createStream({
          name: 'Secret keeping',
          profiles: [{ name: '360p', width: 640, height: 360, bitrate: 600_000, fps: 0 }],
          record: true
        })
      )
      await call(onair.getStream(stream.id))
      await call(onair.listStreams({ limit: 5 }))
      await call(onair.getIngest())
      const status = await call(onair.connectionStatus())
      // Errors on purpose: they must not carry secrets either.
      seen.push(await onair.getStream('00000000-0000-0000-0000-000000000000'))
      seen.push(
        await onair.addConnection({
          kind: 'custom',
          baseUrl: status.local.api,
          apiKey: 'wrong-key-1234'
        })
      )
      const { runId } = await call(
        onair.goLive({
          streamId: stream.id,
          source: { kind: 'test-pattern' },
          output: {
            width: 640,
            height: 360,
            fps: 25,
            videoBitrateKbps: 800,
            audioBitrateKbps: 96,
            keyframeIntervalSec: 2
          }
        })
      )
      for (let i = 0; i < 60; i++) {
        const s = await call(onair.liveStatus())
        if (s?.state === 'live') break
        await sleep(250)
      }
      // Six seconds of media out (the run's own clock: its health's at - mediaEpoch), then stop.
      const sent = (): number =>
        Math.max(
          0,
          ...seen.map((e) => {
            const h = e as { runId?: string; at?: number; mediaEpoch?: number }
            return h.runId === runId && h.at !== undefined && h.mediaEpoch !== undefined
              ? h.at - h.mediaEpoch
              : 0
          })
        )
      for (let i = 0; i < 120 && sent() < 6000; i++) await sleep(250)
      await call(onair.stopLive(runId))
      let ready = false
      for (let i = 0; i < 60 && !ready; i++) {
        const page1 = await call(onair.listSessions({ streamId: stream.id }))
        ready = page1.items.some((s) => s.recordingStatus === 'ready')
        if (!ready) await sleep(500)
      }
      await call(onair.listSessions({}))
      // The one place the key may appear: the reveal the user asked for. Kept apart from `seen`.
      const key = (await onair.revealStreamKey(stream.id)) as { ok: boolean; value?: string }
      return { seen: JSON.stringify(seen), streamKey: key.value ?? '', ready }
    })

    expect(journey.ready).toBe(true)
    const streamKey = journey.streamKey
    expect(streamKey).toMatch(/^[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}$/)
    const apiKey = await new AsyncEntry(service, localKeyAccountOf(shell.appDataDir)).getPassword()
    expect(apiKey && apiKey.length).toBeGreaterThan(8)
    const secrets = { streamKey, apiKey: apiKey as string }

    const leaks: string[] = []
    const check = (
      where: string,
      text: string,
      which: (keyof typeof secrets)[] = ['streamKey', 'apiKey']
    ): void => {
      for (const k of which) if (text.includes(secrets[k])) leaks.push(`${k} in ${where}`)
    }
    check('results and events the renderer received', journey.seen)
    check('browser console', consoleLines.join('\n'))
    check('process output', printed.join(''))
    const studioDb = /[/\\]studio[/\\][^/\\]*\.(db|sqlite)(-wal|-shm)?$/
    let serviceHoldsStreamKey = false
    for (const file of filesUnder(shell.appDataDir)) {
      if (/\.(ts|m4s|mp4|aac)$/.test(file)) continue // media segments
      const text = readFileSync(file).toString('latin1')
      if (studioDb.test(file) && text.includes(streamKey)) serviceHoldsStreamKey = true
      // The service stores its streams' keys; everything else must not.
      check(file, text, studioDb.test(file) ? ['apiKey'] : ['streamKey', 'apiKey'])
    }
    expect(leaks).toEqual([])
    // The scan reads what it should: the one place the stream key belongs is found.
    expect(serviceHoldsStreamKey).toBe(true)
  })
})

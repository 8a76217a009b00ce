// Browser sources through the real web shell over HTTP (#34 §4): with a page factory (the Node painter,
// as the e2e tests pass it) readBrowserFrame's bytes are the body itself, header and pixels; the plain
// web shell (no factory) says the page needs the desktop app.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createCore, type Core } from '../../../src/main/core/core'
import { startWebShell, type RunningWebShell } from '../../../src/main/web/web-shell'
import {
  BROWSER_FRAME_HEADER_BYTES,
  BROWSER_FRAME_PREMULTIPLIED,
  type BrowserStateEvent
} from '../../../src/shared/contract'
import { counterOf, painter, type BrowserPainter } from '../../helpers/browser-painter'

interface Shell {
  core: Core
  shell: RunningWebShell
}

let dir: string
let painted: Shell
let plain: Shell
let paint: BrowserPainter

async function open(name: string, withPages: boolean): Promise<Shell> {
  const core = await createCore({
    appDataDir: join(dir, name),
    shell: 'web',
    appVersion: '9.9.9',
    ...(withPages ? { browserPages: paint } : {})
  })
  const shell = await startWebShell({ core, staticDir: join(dir, 'renderer') })
  return { core, shell }
}

const rpc = async (s: Shell, name: string, args: unknown[]): Promise<Response> =>
  fetch(`${s.shell.origin}/rpc/${name}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.shell.session}`, 'content-type': 'application/json' },
    body: JSON.stringify({ args })
  })

const page = {
  url: 'https://alerts.example/box?token=SECRET#3366cc',
  width: 40,
  height: 20,
  fps: 20
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'onair-wsb-'))
  mkdirSync(join(dir, 'renderer'))
  writeFileSync(join(dir, 'renderer', 'index.html'), '<!doctype html><title>Onair</title>')
  paint = painter()
  painted = await open('painted', true)
  plain = await open('plain', false)
})

afterAll(async () => {
  for (const s of [painted, plain]) {
    await s?.shell.close()
    await s?.core.shutdown()
  }
  rmSync(dir, { recursive: true, force: true })
})

describe('web shell: browser sources', () => {
  it("answers a page's frame as the body: the 16-byte header, then BGRA pixels", async () => {
    const ws = new WebSocket(`${painted.shell.origin.replace('http', 'ws')}/events`, {
      headers: { authorization: `Bearer ${painted.shell.session}` }
    })
    await new Promise((res) => ws.on('open', res))
    const states: BrowserStateEvent[] = []
    ws.on('message', (m) => {
      const e = JSON.parse(String(m)) as { event: string; payload: BrowserStateEvent }
      if (e.event === 'browser:state') states.push(e.payload)
    })
    try {
      expect(await (await rpc(painted, 'openBrowserSource', ['b1', page])).json()).toEqual({
        ok: true,
        value: { kind: 'loading' }
      })
      const res = await rpc(painted, 'readBrowserFrame', ['b1', 0])
      expect(res.headers.get('content-type')).toBe('application/octet-stream')
      const bytes = new Uint8Array(await res.arrayBuffer())
      const v = new DataView(bytes.buffer, 0, BROWSER_FRAME_HEADER_BYTES)
      const serial = v.getUint32(0, true)
      expect(serial).toBeGreaterThan(0)
      expect([v.getUint32(4, true), v.getUint32(8, true), v.getUint32(12, true)]).toEqual([
        40,
        20,
        BROWSER_FRAME_PREMULTIPLIED
      ])
      expect(bytes.byteLength).toBe(BROWSER_FRAME_HEADER_BYTES + 40 * 20 * 4)
      const px = bytes.subarray(BROWSER_FRAME_HEADER_BYTES)
      expect(counterOf(px)).toBeGreaterThan(0)
      expect([...px.subarray(4, 8)]).toEqual([0xcc, 0x66, 0x33, 255])
      // The next read waits for the next paint and brings a newer frame.
      const next = new Uint8Array(
        await (await rpc(painted, 'readBrowserFrame', ['b1', serial])).arrayBuffer()
      )
      expect(new DataView(next.buffer).getUint32(0, true)).toBeGreaterThan(serial)
      await expect.poll(() => states.map((s) => s.state.kind)).toContain('showing')
      expect(states[0]).toEqual({ sourceId: 'b1', state: { kind: 'showing' } })
      expect(await (await rpc(painted, 'closeBrowserSource', ['b1'])).json()).toEqual({ ok: true })
      await expect.poll(() => states.at(-1)?.state.kind).toBe('closed')
      expect(paint.openPages()).toEqual([])
      // Closed: a read is a not-found (JSON), not bytes.
      expect(await (await rpc(painted, 'readBrowserFrame', ['b1', 0])).json()).toMatchObject({
        ok: false,
        error: { code: 'not-found' }
      })
    } finally {
      ws.close()
    }
  })

  it('refuses an address that is not a web page before any page opens', async () => {
    const before = paint.pages.length
    const r = await rpc(painted, 'openBrowserSource', [
      'b2',
      { ...page, url: 'file:///etc/passwd' }
    ])
    const body = (await r.json()) as { ok: false; error: { code: string; message: string } }
    expect(body.error.code).toBe('bad-request')
    expect(body.error.message).toContain('http or https')
    expect(paint.pages.length).toBe(before)
  })

  it('says the plain web shell needs the desktop app', async () => {
    expect(await (await rpc(plain, 'openBrowserSource', ['b1', page])).json()).toEqual({
      ok: true,
      value: { kind: 'needs-desktop' }
    })
    expect(await (await rpc(plain, 'readBrowserFrame', ['b1', 0])).json()).toMatchObject({
      ok: false,
      error: { code: 'not-found' }
    })
  })
})

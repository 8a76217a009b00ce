// The web shell over real HTTP and a real WebSocket, with the real core behind it.
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createCore, type Core } from '../../../src/main/core/core'
import { startWebShell, type RunningWebShell } from '../../../src/main/web/web-shell'
import { i420Bytes, packRaw } from '../../../src/shared/raw-media'

let core: Core
let shell: RunningWebShell
let dir: string
let port: number

interface Reply {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
  bytes: Buffer
}

function http(
  path: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: opts.method ?? 'GET',
        headers: { host: `127.0.0.1:${port}`, ...opts.headers }
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            bytes: Buffer.concat(chunks)
          })
        )
      }
    )
    req.on('error', reject)
    req.end(opts.body)
  })
}

// Programmatic callers present the session secret the token is exchanged for (never the token).
const bearer = (): Record<string, string> => ({ authorization: `Bearer ${shell.session}` })
const rpc = (name: string, args: unknown, headers: Record<string, string> = bearer()) =>
  http(`/rpc/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ args })
  })

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'onair-ws-'))
  const staticDir = join(dir, 'renderer')
  mkdirSync(join(staticDir, 'assets'), { recursive: true })
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Onair</title>')
  writeFileSync(join(staticDir, 'assets', 'app.js'), 'console.log(1)')
  writeFileSync(join(dir, 'secret.txt'), 'outside')
  core = await createCore({ appDataDir: join(dir, 'data'), shell: 'web', appVersion: '9.9.9' })
  shell = await startWebShell({ core, staticDir })
  port = Number(new URL(shell.origin).port)
})

afterAll(async () => {
  await shell?.close()
  await core?.shutdown()
  rmSync(dir, { recursive: true, force: true })
})

describe('web shell', () => {
  it('listens on 127.0.0.1 only and prints a URL carrying the token', () => {
    expect(shell.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(shell.url).toBe(`${shell.origin}/?token=${shell.token}`)
    expect(shell.token.length).toBeGreaterThanOrEqual(32)
  })

  it('refuses everything without the token (401), and a wrong token', async () => {
    expect((await http('/')).status).toBe(401)
    expect((await http('/assets/app.js')).status).toBe(401)
    expect((await rpc('appInfo', [], {})).status).toBe(401)
    expect((await rpc('appInfo', [], { authorization: 'Bearer wrong' })).status).toBe(401)
    expect((await http('/?token=wrong')).status).toBe(401)
  })

  it('exchanges the token once for an HttpOnly SameSite=Strict cookie and drops it from the URL', async () => {
    const r = await http(`/streams?token=${shell.token}`)
    expect(r.status).toBe(303)
    expect(r.headers.location).toBe('/streams')
    const cookie = String(r.headers['set-cookie'])
    expect(cookie).toMatch(/HttpOnly/)
    expect(cookie).toMatch(/SameSite=Strict/)
    const page = await http('/streams', { headers: { cookie: cookie.split(';')[0] as string } })
    expect(page.status).toBe(200)
    expect(page.body).toContain('<title>Onair</title>')
    expect(page.headers['content-security-policy']).toContain("script-src 'self'")
    // The cookie carries a separate session secret, not the printed token.
    expect(cookie).not.toContain(shell.token)
    expect(cookie.split(';')[0]).toBe(`onair_token_${port}=${shell.session}`)
  })

  it('the token is one-time: a second, cookie-less use gets a page saying how to open Onair', async () => {
    const again = await http(`/?token=${shell.token}`)
    expect(again.status).toBe(403)
    expect(again.headers['content-type']).toContain('text/html')
    expect(again.body).toContain('This Onair link was already used')
    expect(again.body).toContain('npm start')
    expect(again.headers['set-cookie']).toBeUndefined()
    // The token itself is no credential: not as a bearer, not as the cookie.
    expect((await rpc('appInfo', [], { authorization: `Bearer ${shell.token}` })).status).toBe(401)
    const asCookie = { cookie: `onair_token_${port}=${shell.token}` }
    expect((await http('/', { headers: asCookie })).status).toBe(401)
    // The browser that has the session and comes back through the link just goes on.
    const withSession = { cookie: `onair_token_${port}=${shell.session}` }
    expect((await http(`/x?token=${shell.token}`, { headers: withSession })).status).toBe(303)
  })

  it('checks the Host header (DNS rebinding) and the Origin of calls', async () => {
    expect((await http('/', { headers: { ...bearer(), host: 'evil.example' } })).status).toBe(403)
    expect((await rpc('appInfo', [], { ...bearer(), origin: 'https://evil.example' })).status).toBe(
      403
    )
    expect((await rpc('appInfo', [], { ...bearer(), origin: shell.origin })).status).toBe(200)
  })

  it('serves nothing outside the renderer folder', async () => {
    const r = await http('/..%2fsecret.txt', { headers: bearer() })
    expect(r.body).not.toContain('outside')
    const r2 = await http('/assets/../../secret.txt', { headers: bearer() })
    expect(r2.body).not.toContain('outside')
  })

  it("answers a call with the core's value: appInfo with the ffmpeg it found", async () => {
    const r = await rpc('appInfo', [])
    expect(r.status).toBe(200)
    const body = JSON.parse(r.body)
    expect(body.ok).toBe(true)
    expect(body.value).toMatchObject({ name: 'Onair', version: '9.9.9', shell: 'web' })
    expect(body.value.ffmpeg.version).toMatch(/\d/)
  })

  it('answers bad input with an AppError, never a crash', async () => {
    const bad = JSON.parse((await rpc('createStream', [{ name: 5 }])).body)
    expect(bad).toMatchObject({ ok: false, error: { code: 'bad-request' } })
    const unknown = await rpc('dropDatabase', [])
    expect(unknown.status).toBe(404)
    const malformed = await http('/rpc/appInfo', {
      method: 'POST',
      headers: { ...bearer(), 'content-type': 'application/json' },
      body: '{"args":'
    })
    expect(malformed.status).toBe(400)
    expect(JSON.parse(malformed.body)).toMatchObject({ ok: false, error: { code: 'bad-request' } })
    const huge = await http('/rpc/appInfo', {
      method: 'POST',
      headers: { ...bearer(), 'content-type': 'application/json' },
      body: Buffer.alloc(17 * 1024 * 1024, 32)
    })
    expect(huge.status).toBe(413)
    // Still serving.
    expect(JSON.parse((await rpc('appInfo', [])).body).ok).toBe(true)
  })

  it('answers bad percent-encoding and an unparsable URL with 400, never 500', async () => {
    const asked = [
      { path: '/rpc/%E0%A4%A', method: 'POST' },
      { path: '/download/%E0%A4%A', method: 'GET' },
      { path: '/download/clip/%E0%A4%A', method: 'GET' },
      { path: '/%E0%A4%A', method: 'GET' },
      { path: '//[', method: 'GET' }
    ]
    for (const { path, method } of asked) {
      const r = await http(path, {
        method,
        headers: { ...bearer(), 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: '{"args":[]}' } : {})
      })
      expect([path, r.status]).toEqual([path, 400])
      expect(JSON.parse(r.body)).toMatchObject({ ok: false, error: { code: 'bad-request' } })
    }
    // A WebSocket upgrade to that URL is refused (it threw in the upgrade handler, out of the
    // server's reach), and the shell goes on serving.
    const answer = await new Promise<string>((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () =>
        s.write(
          `GET //[ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\n` +
            'Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n' +
            'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n'
        )
      )
      let got = ''
      s.setEncoding('utf8').on('data', (c: string) => (got += c))
      s.on('close', () => resolve(got))
      s.on('error', reject)
    })
    expect(answer).toMatch(/^HTTP\/1\.1 401 /)
    expect(JSON.parse((await rpc('appInfo', [])).body).ok).toBe(true)
  })

  it("keeps an idle connection open past Node's 5 s default: the browser, not the shell, closes it", async () => {
    // Chromium reuses an idle connection for up to 5 minutes and does not send a POST again when the
    // server closed the connection as it was sent: the page's call fails. So the shell must not close
    // first. The answer to each request is read off the one socket; 7 s idle between them (Node 20
    // closes at its 5 s and a second of grace).
    const s = connect(port, '127.0.0.1')
    await new Promise((r) => s.once('connect', r))
    let got = ''
    let closedAt: number | undefined
    s.setEncoding('utf8').on('data', (c: string) => (got += c))
    s.on('close', () => (closedAt = performance.now()))
    const ask = (): Promise<string> => {
      got = ''
      s.write(
        `POST /rpc/appInfo HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${shell.session}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 11\r\nConnection: keep-alive\r\n\r\n{"args":[]}'
      )
      return new Promise((resolve, reject) => {
        const check = (): void => {
          // The answer is chunked: it ends with the empty last chunk.
          if (got.includes('\r\n\r\n') && got.endsWith('\r\n0\r\n\r\n')) {
            s.off('data', check)
            resolve(got)
          }
        }
        s.on('data', check)
        s.once('close', () => reject(new Error(`the shell closed the connection: ${got}`)))
      })
    }
    expect(await ask()).toMatch(/^HTTP\/1\.1 200 /)
    // Idle 7 s, unless the shell closes the connection first (then at once: the test fails there).
    const idleFrom = performance.now()
    const closed = new Promise<'closed'>((r) => s.once('close', () => r('closed')))
    let timer: NodeJS.Timeout | undefined
    const idled = new Promise<'open'>((r) => (timer = setTimeout(() => r('open'), 7000)))
    const outcome = await Promise.race([closed, idled])
    clearTimeout(timer)
    expect(outcome, `closed after ${((closedAt ?? 0) - idleFrom).toFixed(0)} ms idle`).toBe('open')
    expect(await ask()).toMatch(/^HTTP\/1\.1 200 /)
    s.destroy()
  })

  it("carries pushFrames' raw frames as bytes: checked by the raw-media reader, then the core answers", async () => {
    const post = (runId: string, body: Buffer) =>
      http(`/rpc/pushFrames?runId=${encodeURIComponent(runId)}`, {
        method: 'POST',
        headers: { ...bearer(), 'content-type': 'application/octet-stream' },
        body
      })
    const frame = Buffer.from(
      packRaw(
        { kind: 'video', width: 16, height: 8, timestampUs: 0 },
        new Uint8Array(i420Bytes(16, 8))
      )
    )
    // Whole messages reach the core, which knows no such run.
    expect(
      JSON.parse((await post('no-such-run', Buffer.concat([frame, frame]))).body)
    ).toMatchObject({
      ok: false,
      error: { code: 'not-found' }
    })
    // A message cut short is refused before the core, in the format's words.
    const cut = JSON.parse((await post('no-such-run', frame.subarray(0, 50))).body)
    expect(cut).toMatchObject({ ok: false, error: { code: 'bad-request' } })
    expect(cut.error.message).toContain('the last message is cut short')
  })

  it('keeps a scene picture as a file named by its content, and gives its bytes back', async () => {
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.from('a picture')
    ])
    const post = (body: Buffer) =>
      http('/rpc/saveSceneImage', {
        method: 'POST',
        headers: { ...bearer(), 'content-type': 'application/octet-stream' },
        body
      })
    const saved = JSON.parse((await post(png)).body)
    const file = `${createHash('sha256').update(png).digest('hex')}.png`
    expect(saved).toEqual({ ok: true, value: file })
    expect(readdirSync(join(dir, 'data', 'scene-images'))).toEqual([file])
    expect(JSON.parse((await post(png)).body)).toEqual({ ok: true, value: file }) // one file
    const back = await rpc('readSceneImage', [file])
    expect(back.headers['content-type']).toBe('application/octet-stream')
    expect(back.headers['x-content-type-options']).toBe('nosniff')
    expect(back.bytes.equals(png)).toBe(true)
    // Not a picture, a path instead of a name, a name that is not kept: each a clear refusal.
    expect(JSON.parse((await post(Buffer.from('<svg onload=alert(1)>'))).body)).toMatchObject({
      ok: false,
      error: { code: 'bad-request' }
    })
    expect(JSON.parse((await rpc('readSceneImage', ['../settings.json'])).body)).toMatchObject({
      ok: false,
      error: { code: 'bad-request' }
    })
    expect(JSON.parse((await rpc('readSceneImage', [`${'0'.repeat(64)}.png`])).body)).toMatchObject(
      { ok: false, error: { code: 'not-found' } }
    )
  })

  it('delivers core events over the WebSocket to an authorized client only', async () => {
    const refused = new WebSocket(`ws://127.0.0.1:${port}/events`)
    await expect(
      new Promise((res, rej) => {
        refused.on('open', rej)
        refused.on('error', res)
      })
    ).resolves.toBeTruthy()

    const foreign = new WebSocket(`ws://127.0.0.1:${port}/events`, {
      headers: { ...bearer(), origin: 'https://evil.example' }
    })
    await expect(
      new Promise((res, rej) => {
        foreign.on('open', rej)
        foreign.on('error', res)
      })
    ).resolves.toBeTruthy()

    const ws = new WebSocket(`ws://127.0.0.1:${port}/events`, { headers: bearer() })
    await new Promise((res) => ws.on('open', res))
    const got = new Promise<unknown>((res) => ws.on('message', (m) => res(JSON.parse(String(m)))))
    const payload = { active: null, local: { state: 'starting' as const } }
    core.events.emit('connection:status', payload)
    await expect(got).resolves.toEqual({ event: 'connection:status', payload })
    ws.close()
  })
})

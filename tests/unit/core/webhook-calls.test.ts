// The webhook calls through the dispatcher against a real HTTP service that echoes what it was sent
// in its refusal (as a careless service might): the signing secret and the webhook's URL, which may
// carry a token of its own, never reach the error; the secret is answered once, on creation, and no
// other answer carries it.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { OnairCalls } from '../../../src/shared/contract'
import { ApiClient } from '../../../src/main/core/api-client'
import { dispatch } from '../../../src/main/core/dispatch'
import { webhookCalls } from '../../../src/main/core/webhooks'

const TOKEN_URL = 'https://hooks.example.com/services/T0001/B0002/abcdefghijklmnopqrstuvwx'
let server: Server
let base = ''
const sent: { method: string; url: string; body: string }[] = []

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      sent.push({ method: req.method ?? '', url: req.url ?? '', body })
      const json = (status: number, v: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(v))
      if (req.method === 'POST' && req.url === '/api/webhook') {
        const b = JSON.parse(body) as { url: string; name: string; events: string[] }
        if (b.name === 'refused') return json(422, { errors: [`cannot take ${body}`] })
        // Livepeer echoes the secret in its answer: the app must not pass it on.
        return json(201, { ...b, id: 'w1', createdAt: 1_700_000_000_000 })
      }
      if (req.method === 'GET' && req.url?.startsWith('/api/webhook/w1/log'))
        return json(200, [
          {
            id: 'l1',
            webhookId: 'w1',
            event: 'stream.started',
            createdAt: 1_700_000_001_000,
            duration: 0.012,
            success: true,
            request: { url: TOKEN_URL, headers: { 'Livepeer-Signature': 't=1,v1=abc' } },
            response: { status: 200, statusText: 'OK', body: 'b2s=' }
          }
        ])
      json(404, { errors: ['not found'] })
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))

const core = () =>
  webhookCalls(async () => new ApiClient({ baseUrl: base, apiKey: 'k'.repeat(32) })) as OnairCalls

describe('webhook calls', () => {
  it('answers the new secret once, sends it to the service, and keeps it out of the view', async () => {
    const r = await dispatch(core(), 'addWebhook', [
      { name: 'Chat', url: TOKEN_URL, events: ['stream.started'] }
    ])
    expect(r.ok).toBe(true)
    if (!r.ok) return
    const { webhook, secret } = r.value as { webhook: object; secret: string }
    expect(secret).toMatch(/^[A-Za-z0-9_-]{32}$/)
    expect(JSON.parse(sent.at(-1)!.body)).toMatchObject({ sharedSecret: secret })
    expect(JSON.stringify(webhook)).not.toContain(secret)
    // A second webhook gets a secret of its own.
    const again = await dispatch(core(), 'addWebhook', [
      { name: 'Chat 2', url: TOKEN_URL, events: ['stream.idle'] }
    ])
    expect(again.ok && (again.value as { secret: string }).secret).not.toBe(secret)
  })

  it('says why the service refused, without the secret or the URL', async () => {
    const r = await dispatch(core(), 'addWebhook', [
      { name: 'refused', url: TOKEN_URL, events: ['stream.started'] }
    ])
    expect(r.ok).toBe(false)
    if (r.ok) return
    const secret = (JSON.parse(sent.at(-1)!.body) as { sharedSecret: string }).sharedSecret
    expect(r.error.message).toContain('cannot take')
    expect(JSON.stringify(r.error)).not.toContain(secret)
    expect(JSON.stringify(r.error)).not.toContain('abcdefghijklmnopqrstuvwx')
  })

  it('refuses a URL that is not http(s) and an empty event list before the service', async () => {
    const before = sent.length
    for (const args of [
      { name: 'x', url: 'ftp://example.com/hook', events: ['stream.started'] },
      { name: 'x', url: 'https://example.com/hook', events: [] },
      { name: 'x', url: 'https://example.com/hook', events: ['stream.exploded'] }
    ]) {
      const r = await dispatch(core(), 'addWebhook', [args])
      expect(r.ok ? 'ok' : r.error.code).toBe('bad-request')
    }
    expect(sent.length).toBe(before)
  })

  it('lists deliveries with the answer and no headers (they carry the signature)', async () => {
    const r = await dispatch(core(), 'listWebhookDeliveries', ['w1'])
    expect(r.ok && r.value).toEqual([
      {
        id: 'l1',
        webhookId: 'w1',
        event: 'stream.started',
        createdAt: 1_700_000_001_000,
        success: true,
        status: 200,
        statusText: 'OK',
        durationMs: 12
      }
    ])
  })
})

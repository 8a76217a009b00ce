import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiClient, nextCursor } from '../../../src/main/core/api-client'
import {
  mapHttpError,
  mapNetworkError,
  readableValidation,
  retryAfterMs
} from '../../../src/main/core/api-errors'
import { mayResend, TransportTimeout } from '../../../src/main/core/http-transport'
import { AppFailure, type AppError } from '../../../src/shared/result'

const KEY = 'f00dcafe-1234-5678-9abc-def012345678'
const body = (...errors: string[]): string => JSON.stringify({ errors })
const map = (status: number, b = '', retryAfter: string | null = null): AppError =>
  mapHttpError({ status, body: b, retryAfter, what: 'stream', secrets: [KEY] })

describe('HTTP error mapping', () => {
  it('401: key rejected, never quoting the key Livepeer echoes', () => {
    const e = map(401, body(`no token ${KEY} found`))
    expect(e).toMatchObject({ code: 'key-rejected', status: 401 })
    expect(JSON.stringify(e)).not.toContain(KEY)
  })

  it('404: not found, naming what', () => {
    expect(map(404, body('not found'))).toMatchObject({
      code: 'not-found',
      message: 'The stream was not found (it may have been deleted).'
    })
  })

  it('422: Ajv errors become field + rule', () => {
    const ajv = (o: object): string => JSON.stringify(o)
    expect(
      map(
        422,
        body(
          ajv({
            instancePath: '/profiles/1/width',
            keyword: 'minimum',
            params: { comparison: '>=', limit: 128 },
            message: 'must be >= 128'
          })
        )
      )
    ).toMatchObject({
      code: 'validation',
      field: 'profiles.1.width',
      message: 'The service rejected the stream: profiles.1.width must be at least 128.'
    })
    expect(
      readableValidation(
        ajv({ instancePath: '', keyword: 'required', params: { missingProperty: 'name' } })
      )
    ).toEqual({
      field: 'name',
      message: 'name is required'
    })
    expect(
      readableValidation(
        ajv({
          instancePath: '',
          keyword: 'additionalProperties',
          params: { additionalProperty: 'livepeer' }
        })
      ).message
    ).toBe('the request body has an unknown field "livepeer"')
    expect(
      readableValidation(
        ajv({ instancePath: '/record', keyword: 'type', params: { type: 'boolean' } })
      ).message
    ).toBe('record must be of type boolean')
    expect(
      readableValidation(
        ajv({
          instancePath: '/profiles/0/profile',
          keyword: 'enum',
          params: { allowedValues: ['H264Baseline', 'H264Main'] }
        })
      ).message
    ).toBe('profiles.0.profile must be one of H264Baseline, H264Main')
    expect(readableValidation('Bad URL ftp://x').message).toBe('Bad URL ftp://x')
    // Writers that leave out params (the local studio) still read well.
    expect(
      readableValidation(
        ajv({
          instancePath: '/profiles/0/width',
          keyword: 'minimum',
          message: 'width must be at least 128'
        })
      )
    ).toEqual({
      field: 'profiles.0.width',
      message: 'profiles.0.width: width must be at least 128'
    })
    expect(
      readableValidation(ajv({ instancePath: '/name', keyword: 'type', message: 'must be string' }))
        .message
    ).toBe('name must be string')
  })

  it('400: the service rule in its words', () => {
    expect(map(400, body('profile cannot be named "source"'))).toMatchObject({
      code: 'rule',
      message: 'The service said no: profile cannot be named "source".'
    })
  })

  it('403, 429 with Retry-After, 5xx', () => {
    expect(map(403, body('user is suspended'))).toMatchObject({ code: 'forbidden' })
    expect(map(429, body('too many terminate requests'), '5')).toMatchObject({
      code: 'rate-limited',
      retryAfterMs: 5000
    })
    expect(retryAfterMs(new Date(10_000 + 3000).toUTCString(), 10_000)).toBeGreaterThanOrEqual(2000)
    expect(map(502, '<html>bad gateway</html>')).toMatchObject({ code: 'service', status: 502 })
  })
})

describe('network error mapping (node:http errors)', () => {
  const net = (e: unknown): AppError => mapNetworkError(e, 'h:1', 15_000)
  const sys = (code: string, message = code): Error => Object.assign(new Error(message), { code })

  it('names the reset, refused and DNS failures node:http reports, and our own timeout', () => {
    expect(net(sys('ECONNRESET', 'socket hang up')).message).toBe(
      'Could not reach h:1: the connection was reset.'
    )
    expect(net(sys('EPIPE')).message).toBe('Could not reach h:1: the connection was reset.')
    expect(net(sys('ECONNABORTED')).message).toBe('Could not reach h:1: the connection was reset.')
    expect(net(sys('ECONNREFUSED')).message).toBe(
      'Could not reach h:1: the connection was refused.'
    )
    expect(net(sys('ENOTFOUND')).message).toBe(
      'Could not reach h:1: the name could not be resolved.'
    )
    // fetch's shape: the code on the cause.
    expect(net(Object.assign(new TypeError('fetch failed'), { cause: sys('ECONNRESET') }))).toEqual(
      net(sys('ECONNRESET'))
    )
    expect(net(new TransportTimeout('timed out'))).toMatchObject({
      code: 'timeout',
      message: 'h:1 did not answer within 15 s.'
    })
    expect(net(sys('EWHATEVER', `token ${KEY}`)).message).not.toContain(KEY)
  })
})

describe('which failed requests may be sent again', () => {
  const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })
  const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })
  const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })

  it('idempotent methods after a reset or closed socket, written or not', () => {
    for (const m of ['GET', 'PUT', 'DELETE', 'PATCH', 'HEAD'])
      for (const written of [true, false]) {
        expect(mayResend(m, reset, written)).toBe(true)
        expect(mayResend(m, epipe, written)).toBe(true)
      }
  })

  it('a POST only when none of it was written', () => {
    expect(mayResend('POST', reset, false)).toBe(true)
    expect(mayResend('POST', reset, true)).toBe(false)
    expect(mayResend('POST', epipe, true)).toBe(false)
  })

  it('never after a timeout, a refusal or an answer-level failure', () => {
    expect(mayResend('GET', new TransportTimeout('timed out'), true)).toBe(false)
    expect(mayResend('GET', refused, false)).toBe(false)
    expect(mayResend('GET', new Error('no code'), true)).toBe(false)
    expect(mayResend('GET', undefined, false)).toBe(false)
  })
})

describe('API client over real HTTP', () => {
  let server: Server
  let base = ''
  let last: { url?: string; auth?: string } = {}
  beforeAll(async () => {
    server = createServer((req, res) => {
      last = { url: req.url, auth: req.headers.authorization }
      if (req.url?.startsWith('/api/stream?')) {
        res.setHeader(
          'link',
          `<http://h/api/stream?streamsonly=1&limit=2&cursor=skip2>; rel="next"`
        )
        res.setHeader('x-total-count', '5')
        res.end(JSON.stringify([{ name: 'a' }, { name: 'b' }]))
      } else if (req.url === '/api/session/slow') {
        setTimeout(() => res.end('{}'), 2000)
      } else if (req.url === '/api/session/busy') {
        res.writeHead(429, { 'retry-after': '2' }).end(body('slow down'))
      } else {
        res.writeHead(401).end(body(`no token ${KEY} found`))
      }
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`
  })
  afterAll(() => new Promise<void>((r) => server.close(() => r())))

  const failure = async (p: Promise<unknown>): Promise<AppError> => {
    try {
      await p
    } catch (e) {
      expect(e).toBeInstanceOf(AppFailure)
      return (e as AppFailure).error
    }
    throw new Error('expected a failure')
  }

  it('sends the bearer key and turns Link rel=next into an opaque cursor', async () => {
    const page = await new ApiClient({ baseUrl: base + '/', apiKey: KEY }).listStreams({ limit: 2 })
    expect(last.auth).toBe(`Bearer ${KEY}`)
    expect(last.url).toContain('limit=2')
    expect(page).toMatchObject({ next: 'skip2', total: 5 })
    expect(page.items).toHaveLength(2)
    expect(nextCursor('<https://x/api/session?cursor=abc%3D>; rel="next"')).toBe('abc=')
    expect(nextCursor(null)).toBeUndefined()
  })

  it('maps 401, 429, timeout and refused connections', async () => {
    const c = new ApiClient({ baseUrl: base, apiKey: KEY, timeoutMs: 300 })
    const e401 = await failure(c.getStream('x'))
    expect(e401.code).toBe('key-rejected')
    expect(JSON.stringify(e401)).not.toContain(KEY)
    expect(await failure(c.getSession('busy'))).toMatchObject({
      code: 'rate-limited',
      retryAfterMs: 2000
    })
    expect(await failure(c.getSession('slow'))).toMatchObject({ code: 'timeout' })
    // A port that was just free: nothing listens there.
    const probe = createServer()
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r))
    const port = (probe.address() as AddressInfo).port
    await new Promise<void>((r) => probe.close(() => r()))
    const refused = new ApiClient({ baseUrl: `http://127.0.0.1:${port}/api`, apiKey: KEY })
    const e = await failure(refused.getStream('x'))
    expect(e).toMatchObject({
      code: 'network',
      message: `Could not reach 127.0.0.1:${port}: the connection was refused.`
    })
  })
})

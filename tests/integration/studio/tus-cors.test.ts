// The studio's tus endpoint and a browser (#35): a page on one of the app's origins (StudioOptions
// appOrigins, --app-origin) passes the preflight of a tus request (Tus-Resumable, Upload-Length,
// Upload-Metadata, Upload-Offset allowed) and reads the tus answers' headers (Location,
// Upload-Offset, Tus-Resumable exposed); a page on any other origin is refused by the browser. Real
// studio, real Chromium making real cross-origin requests, and the raw preflight answers.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../../helpers/browser'
import { api, startTestStudio, type TestStudio } from '../../helpers/studio'

let studio: TestStudio
let browser: Browser
let app: { server: Server; origin: string }
let other: { server: Server; origin: string }

/** A page server on loopback: its origin is http://127.0.0.1:<port>. */
async function pageServer(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>page</title>')
  )
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

const tusEndpoint = async (): Promise<string> => {
  const r = await api<{ tusEndpoint: string }>(
    studio,
    studio.apiKey,
    'POST',
    '/asset/request-upload',
    { name: 'from a page' }
  )
  expect(r.status).toBe(200)
  return r.body.tusEndpoint
}

/** Creates a tus upload from a page on `origin` and sends its 5 bytes; what the page could read. */
async function uploadFrom(origin: string, endpoint: string) {
  const page = await browser.newPage()
  try {
    await page.goto(`${origin}/`)
    return await page.evaluate(async (url) => {
      try {
        const created = await fetch(url, {
          method: 'POST',
          headers: {
            'Tus-Resumable': '1.0.0',
            'Upload-Length': '5',
            'Upload-Metadata': `filename ${btoa('page.bin')}`
          }
        })
        const location = created.headers.get('Location')
        if (!location) return { created: created.status, location: null }
        const patched = await fetch(new URL(location, url), {
          method: 'PATCH',
          headers: {
            'Tus-Resumable': '1.0.0',
            'Upload-Offset': '0',
            'Content-Type': 'application/offset+octet-stream'
          },
          body: new Uint8Array([1, 2, 3, 4, 5])
        })
        return {
          created: created.status,
          location,
          patched: patched.status,
          offset: patched.headers.get('Upload-Offset'),
          resumable: patched.headers.get('Tus-Resumable')
        }
      } catch (e) {
        return { error: String(e) }
      }
    }, endpoint)
  } finally {
    await page.close()
  }
}

beforeAll(async () => {
  app = await pageServer()
  other = await pageServer()
  studio = await startTestStudio({ appOrigins: [app.origin, 'app://onair'] })
  browser = await launchChromium()
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await studio?.cleanup()
  app?.server.close()
  other?.server.close()
})

describe('the tus endpoint and a browser', () => {
  it('answers the preflight of the app’s origin with the tus headers, and nobody else’s', async () => {
    const endpoint = await tusEndpoint()
    const preflight = (origin: string) =>
      fetch(endpoint, {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'PATCH',
          'Access-Control-Request-Headers': 'tus-resumable,upload-offset,content-type'
        }
      })
    const ours = await preflight(app.origin)
    expect(ours.status).toBeLessThan(300)
    expect(ours.headers.get('access-control-allow-origin')).toBe(app.origin)
    const allowed = (ours.headers.get('access-control-allow-headers') ?? '').toLowerCase()
    for (const h of ['tus-resumable', 'upload-offset', 'upload-length', 'upload-metadata'])
      expect(allowed).toContain(h)
    expect(ours.headers.get('access-control-allow-methods')).toContain('PATCH')
    const theirs = await preflight(other.origin)
    expect(theirs.headers.get('access-control-allow-origin')).toBeNull()
    const file = await preflight('null')
    expect(file.headers.get('access-control-allow-origin')).toBeNull()
  })

  it('lets a page on the app’s origin upload by tus and read Location and Upload-Offset', async () => {
    const r = await uploadFrom(app.origin, await tusEndpoint())
    expect(r).toMatchObject({ created: 201, patched: 204, offset: '5', resumable: '1.0.0' })
    expect(r.location).toMatch(/\/api\/asset\/upload\/tus\/[0-9a-f]{32}$/)
  })

  it('refuses a page on another origin (the browser blocks it)', async () => {
    const r = await uploadFrom(other.origin, await tusEndpoint())
    expect(r).toEqual({ error: 'TypeError: Failed to fetch' })
  })
})

// Why an upload stopped (core/uploads/uploader.ts), against a real HTTP service speaking tus and
// Livepeer's asset API: main says it as a state with the service's or the OS's words (UploadProblem),
// never as its own sentence; the sessions list words it (features/sessions/upload-words.ts:
// tests/unit/renderer/upload-words.test.ts). Files gone or changed, and a list kept by an earlier
// version with its sentences, are read from a real uploads.json.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiClient } from '../../../src/main/core/api-client'
import { assetService } from '../../../src/main/core/uploads/publish'
import { Uploader } from '../../../src/main/core/uploads/uploader'
import type { UploadView } from '../../../src/shared/uploads'

let server: Server
let origin = ''
let dir: string
let video: string
let closedPort = 0
const GONE_TOKEN = 'tus-upload-token-0123456789'

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'onair-upload-problems-'))
  video = join(dir, 'copy.mp4')
  await writeFile(video, Buffer.alloc(4096, 1))
  const closed = createServer()
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r))
  closedPort = (closed.address() as AddressInfo).port
  await new Promise<void>((r) => closed.close(() => r()))
  server = createServer((req, res) => {
    const json = (status: number, v: unknown): void =>
      void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(v))
    const url = new URL(req.url ?? '/', origin)
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString()))
    req.on('end', () => {
      if (req.method === 'POST' && url.pathname === '/api/asset/request-upload') {
        const { name } = JSON.parse(body) as { name: string }
        return json(200, {
          url: `${origin}/direct`,
          // 'gone': a port nobody listens on; its address carries a token, as Livepeer's and the
          // local studio's tusEndpoint do (?token=...).
          tusEndpoint:
            name === 'gone'
              ? `http://127.0.0.1:${closedPort}/files/?token=${GONE_TOKEN}`
              : `${origin}/tus-${name}/`,
          asset: { id: `asset-${name}`, name, source: { type: 'directUpload' } }
        })
      }
      if (url.pathname === '/api/asset/asset-unplayable')
        return json(200, {
          id: 'asset-unplayable',
          name: 'unplayable',
          status: { phase: 'failed', updatedAt: 1, errorMessage: 'no video track' }
        })
      const tus = { 'Tus-Resumable': '1.0.0' }
      if (url.pathname === '/tus-refused/') return json(403, { errors: ['storage is full'] })
      if (req.method === 'POST' && url.pathname === '/tus-unplayable/')
        return void res.writeHead(201, { ...tus, Location: `${origin}/tus-unplayable/f1` }).end()
      if (req.method === 'PATCH' && url.pathname === '/tus-unplayable/f1')
        return void res.writeHead(204, { ...tus, 'Upload-Offset': '4096' }).end()
      json(404, { errors: ['not found'] })
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()))
  await rm(dir, { recursive: true, force: true })
})

async function until(u: Uploader, id: string, ok: (v: UploadView) => boolean): Promise<UploadView> {
  for (let i = 0; i < 400; i++) {
    const v = u.get(id)
    if (v && ok(v)) return v
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`upload ${id}: ${JSON.stringify(u.get(id))}`)
}

const uploaderIn = (appDataDir: string, base = `${origin}/api`): Uploader =>
  new Uploader({
    appDataDir,
    service: () => assetService(async () => new ApiClient({ baseUrl: base, apiKey: 'k' })),
    retryDelays: [],
    pollMs: 50
  })

describe('why an upload stopped, as a state', () => {
  it('a service that refuses the file: failed, with its words and its HTTP status', async () => {
    const u = uploaderIn(await mkdtemp(join(dir, 'a-')))
    const up = await u.start({ file: video, name: 'refused', connectionId: 'c1' })
    const v = await until(u, up.id, (x) => x.state === 'failed')
    expect(v.error).toEqual({ kind: 'refused', status: 403, message: 'storage is full' })
    await u.stop()
  })

  it('a service that could not process the video: failed, with its errorMessage', async () => {
    const u = uploaderIn(await mkdtemp(join(dir, 'b-')))
    const up = await u.start({ file: video, name: 'unplayable', connectionId: 'c1' })
    const v = await until(u, up.id, (x) => x.state === 'failed')
    expect(v.error).toEqual({ kind: 'processing-failed', message: 'no video track' })
    await u.stop()
  })

  it("a service gone from the network: paused, with the network's words", async () => {
    const u = uploaderIn(await mkdtemp(join(dir, 'c-')))
    const up = await u.start({ file: video, name: 'gone', connectionId: 'c1' })
    const v = await until(u, up.id, (x) => x.state === 'paused')
    expect(v.error).toMatchObject({ kind: 'connection-lost' })
    const detail = v.error?.kind === 'connection-lost' ? v.error.detail : ''
    expect(detail).toMatch(/ECONNREFUSED/)
    // The network's words only: not tus' account of the request, whose address carries the token.
    expect(detail).not.toContain(GONE_TOKEN)
    expect(detail).not.toMatch(/originated from|tus:/)
    await u.stop()
  })

  it('a file gone or changed since its upload began, read from the kept list', async () => {
    const app = await mkdtemp(join(dir, 'd-'))
    const changed = join(dir, 'changed.mp4')
    await writeFile(changed, Buffer.alloc(10, 1))
    const kept = (id: string, file: string, size: number, mtime: number): object => ({
      id,
      file,
      name: id,
      connectionId: 'c1',
      assetId: `asset-${id}`,
      tusEndpoint: `${origin}/tus-${id}/`,
      size,
      fileMtime: mtime,
      sent: 0,
      state: 'uploading',
      startedAt: 1,
      updatedAt: 1
    })
    const st = statSync(changed)
    await writeFile(
      join(app, 'uploads.json'),
      JSON.stringify({
        version: 1,
        uploads: [
          kept('gone', join(dir, 'no-such.mp4'), 10, 1),
          kept('changed', changed, 99, st.mtimeMs),
          // An earlier version kept its own sentence: it is shown as it was.
          { ...kept('earlier', changed, 10, st.mtimeMs), state: 'failed', error: 'Disk full.' }
        ]
      })
    )
    const u = uploaderIn(app)
    expect(u.get('earlier')?.error).toEqual({ kind: 'said', message: 'Disk full.' })
    u.resumeAll()
    expect(u.get('gone')).toMatchObject({ state: 'failed', error: { kind: 'file-gone' } })
    expect(u.get('changed')).toMatchObject({ state: 'failed', error: { kind: 'file-changed' } })
    await u.stop()
  })
})

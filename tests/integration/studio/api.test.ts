// The stream routes of the studio's API over real HTTP and SQLite: create, list and paging, patch,
// record, delete, terminate; auth, routing and their errors; two users. One studio for the file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApiKey } from '../../../src/studio/index'
import {
  api,
  LADDER_720_480_360,
  startTestStudio,
  type StudioStream as Stream,
  type TestStudio
} from '../../helpers/studio'

type Errors = { errors: string[] }

let studio: TestStudio
let otherKey: string

beforeAll(async () => {
  studio = await startTestStudio()
  otherKey = await createApiKey(studio.dataDir, 'second-user')
})
afterAll(async () => {
  await studio?.cleanup()
})

const create = async (body: unknown, key = studio.apiKey) =>
  api<Stream & Errors>(studio, key, 'POST', '/stream', body)

describe('POST /stream', () => {
  it('creates a stream with the reference fields and no default ladder', async () => {
    const t0 = Date.now()
    const res = await create({ name: 'plain' })
    expect(res.status).toBe(201)
    const s = res.body
    expect(s.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(s.streamKey).toMatch(/^[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}$/)
    expect(s.playbackId).toMatch(/^[0-9a-z]{16}$/)
    expect(s.streamKey.slice(0, 4)).toBe(s.id.slice(0, 4))
    expect(s.createdAt).toBeGreaterThanOrEqual(t0)
    expect(s).toMatchObject({
      name: 'plain',
      kind: 'stream',
      profiles: [],
      record: false,
      isActive: false,
      suspended: false,
      lastSeen: 0
    })
    expect(s).toHaveProperty('userId')
    expect(s).toHaveProperty('multistream', { targets: [] })
    expect(s).toHaveProperty('lastTerminatedAt', null)
    const got = await api<Stream>(studio, studio.apiKey, 'GET', `/stream/${s.id}`)
    expect(got.body).toEqual(s)
  })

  it('keeps profiles and record as given', async () => {
    const res = await create({ name: 'ladder', profiles: LADDER_720_480_360, record: true })
    expect(res.status).toBe(201)
    expect(res.body.profiles).toEqual(LADDER_720_480_360)
    expect(res.body.record).toBe(true)
  })

  it.each([
    ['missing name', {}, 'required'],
    ['null body', 'null', 'type'],
    ['unknown field', { name: 'x', livepeer: 'x' }, 'additionalProperties'],
    ['id is read-only', { name: 'x', id: 'x' }, 'additionalProperties'],
    ['name not a string', { name: 5 }, 'type'],
    ['record not a boolean', { name: 'x', record: 'true' }, 'type'],
    [
      'width under 128',
      { name: 'x', profiles: [{ name: 'a', width: 100, height: 200, bitrate: 1000, fps: 30 }] },
      'minimum'
    ],
    [
      'bitrate missing',
      { name: 'x', profiles: [{ name: 'a', width: 200, height: 200, fps: 30 }] },
      'required'
    ],
    [
      'bad h264 profile',
      {
        name: 'x',
        profiles: [{ name: 'a', width: 200, height: 200, bitrate: 1000, fps: 30, profile: 'x' }]
      },
      'enum'
    ],
    ['profiles not a list', { name: 'x', profiles: 'a' }, 'type']
  ])('422 for %s', async (_what, body, keyword) => {
    const res = await create(body)
    expect(res.status).toBe(422)
    expect(res.body.errors).toHaveLength(1)
    expect(res.body.errors[0]).toContain(keyword)
  })

  it('400 for a profile named source and for duplicate names', async () => {
    const p = { width: 640, height: 360, bitrate: 800_000, fps: 30 }
    const source = await create({ name: 'x', profiles: [{ ...p, name: 'source' }] })
    expect(source.status).toBe(400)
    expect(source.body.errors).toEqual(['profile cannot be named "source"'])
    const dup = await create({
      name: 'x',
      profiles: [
        { ...p, name: 'a' },
        { ...p, name: 'a' }
      ]
    })
    expect(dup.status).toBe(400)
    expect(dup.body.errors).toEqual(['duplicate profile name "a"'])
  })

  it('422 for a name over 500 characters and for a profile no H.264 encoder makes (deviations)', async () => {
    expect((await create({ name: 'x'.repeat(500) })).status).toBe(201)
    const long = await create({ name: 'x'.repeat(501) })
    expect(long.status).toBe(422)
    expect(JSON.parse(long.body.errors[0]!)).toMatchObject({
      instancePath: '/name',
      keyword: 'maxLength',
      params: { limit: 500 }
    })
    const wide = await create({
      name: 'wide',
      profiles: [{ name: 'x', width: 99999, height: 720, bitrate: 3_000_000, fps: 30 }]
    })
    expect(wide.status).toBe(422)
    expect(JSON.parse(wide.body.errors[0]!)).toMatchObject({
      instancePath: '/profiles/0/width',
      message: 'width 99999 is more than 4096'
    })
  })

  it('400 for recordingSpec without record, malformed JSON; 413 for an oversized body', async () => {
    const spec = await create({ name: 'x', recordingSpec: { profiles: null } })
    expect(spec.status).toBe(400)
    expect(spec.body.errors[0]).toContain('recordingSpec is only supported with record=true')
    const bad = await create('{"name": ')
    expect(bad.status).toBe(400)
    expect(bad.body.errors[0]).toContain('malformed JSON')
    const huge = await create({ name: 'x'.repeat(200_000) })
    expect(huge.status).toBe(413)
    expect(huge.body.errors).toEqual(['request entity too large'])
  })
})

describe('auth and routing', () => {
  it('401 without a key or with an unknown key, and never echoes the key', async () => {
    const none = await api<Errors>(studio, undefined, 'GET', '/stream')
    expect(none.status).toBe(401)
    expect(none.body.errors).toEqual(['request is not authenticated'])
    const unknown = await api<Errors>(studio, 'not-a-key-123', 'GET', '/stream')
    expect(unknown.status).toBe(401)
    expect(JSON.stringify(unknown.body)).not.toContain('not-a-key-123')
    const basic = await fetch(`${studio.apiUrl}/stream`, {
      headers: { authorization: 'Basic abc' }
    })
    expect(basic.status).toBe(401)
    const lower = await fetch(`${studio.apiUrl}/stream`, {
      headers: { authorization: `bearer   ${studio.apiKey}` }
    })
    expect(lower.status).toBe(200)
  })

  it('404 for unknown routes and ids, 405 for a wrong method, CORS for the app', async () => {
    expect((await api<Errors>(studio, studio.apiKey, 'GET', '/nope')).body.errors).toEqual([
      'not found'
    ])
    expect((await api(studio, studio.apiKey, 'GET', '/stream/not-a-uuid')).status).toBe(404)
    expect(
      (await api(studio, studio.apiKey, 'GET', '/stream/00000000-0000-4000-8000-000000000000'))
        .status
    ).toBe(404)
    const put = await api<Errors>(studio, studio.apiKey, 'PUT', '/stream')
    expect(put.status).toBe(405)
    expect(put.body.errors).toEqual(['method not allowed'])
    const pre = await fetch(`${studio.apiUrl}/stream`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-headers': 'authorization'
      }
    })
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-origin')).toBe('*')
    expect(pre.headers.get('access-control-allow-headers')).toContain('Authorization')
  })

  it('keys are stored hashed, never in clear', async () => {
    const Database = (await import('libsql')).default
    const db = new Database(`${studio.dataDir}/studio.db`, { readonly: true })
    const rows = db.prepare('SELECT key_hash FROM api_keys').all() as Array<{ key_hash: string }>
    db.close()
    expect(rows.length).toBeGreaterThanOrEqual(2)
    expect(rows.map((r) => r.key_hash)).not.toContain(studio.apiKey)
    rows.forEach((r) => expect(r.key_hash).toMatch(/^[0-9a-f]{64}$/))
  })
})

describe('stream list, patch, record, delete', () => {
  it('pages with limit, cursor and Link rel="next"; count gives X-Total-Count', async () => {
    const key = await createApiKey(studio.dataDir, 'pager')
    for (let i = 0; i < 5; i++) expect((await create({ name: `p${i}` }, key)).status).toBe(201)
    const seen: string[] = []
    let path: string | undefined = '/stream?limit=2&count=1'
    let pages = 0
    while (path) {
      const res: Awaited<ReturnType<typeof api<Stream[]>>> = await api<Stream[]>(
        studio,
        key,
        'GET',
        path
      )
      expect(res.status).toBe(200)
      expect(res.headers.get('x-total-count')).toBe('5')
      seen.push(...res.body.map((s) => s.name))
      const link = res.headers.get('link')
      path = link ? /<[^>]*\/api(\/[^>]+)>; rel="next"/.exec(link)![1] : undefined
      pages++
    }
    expect(pages).toBe(3)
    expect(seen).toEqual(['p4', 'p3', 'p2', 'p1', 'p0'])
    const def = await api<Stream[]>(studio, key, 'GET', '/stream?limit=abc')
    expect(def.body).toHaveLength(5)
    expect(def.headers.get('link')).toBeNull()
    const badCursor = await api<Errors>(studio, key, 'GET', '/stream?cursor=%27%3B--')
    expect(badCursor.status).toBe(400)
  })

  it('PATCH updates given fields (204), validates types (422), 404 for others', async () => {
    const s = (await create({ name: 'patch-me' })).body
    const res = await api(studio, studio.apiKey, 'PATCH', `/stream/${s.id}`, {
      name: 'patched',
      record: true,
      profiles: LADDER_720_480_360
    })
    expect(res.status).toBe(204)
    const got = (await api<Stream>(studio, studio.apiKey, 'GET', `/stream/${s.id}`)).body
    expect(got).toMatchObject({ name: 'patched', record: true, profiles: LADDER_720_480_360 })
    expect((await api(studio, studio.apiKey, 'PATCH', `/stream/${s.id}`, {})).status).toBe(204)
    const wrong = await api<Errors>(studio, studio.apiKey, 'PATCH', `/stream/${s.id}`, {
      record: 'true'
    })
    expect(wrong.status).toBe(422)
    expect(wrong.body.errors[0]).toContain('type')
    expect(
      (await api(studio, studio.apiKey, 'PATCH', `/stream/${s.id}`, { streamKey: 'x' })).status
    ).toBe(422)
    expect((await api(studio, otherKey, 'PATCH', `/stream/${s.id}`, { name: 'mine' })).status).toBe(
      404
    )
  })

  it('PATCH /record sets record (204) and needs a boolean (400)', async () => {
    const s = (await create({ name: 'rec' })).body
    expect(
      (await api(studio, studio.apiKey, 'PATCH', `/stream/${s.id}/record`, { record: true })).status
    ).toBe(204)
    expect((await api<Stream>(studio, studio.apiKey, 'GET', `/stream/${s.id}`)).body.record).toBe(
      true
    )
    const bad = await api<Errors>(studio, studio.apiKey, 'PATCH', `/stream/${s.id}/record`, {
      record: 1
    })
    expect(bad.status).toBe(400)
    expect(bad.body.errors).toEqual(['record field required'])
  })

  it('DELETE removes the stream (204, then 404) and it leaves the list', async () => {
    const s = (await create({ name: 'gone' })).body
    expect((await api(studio, studio.apiKey, 'DELETE', `/stream/${s.id}`)).status).toBe(204)
    expect((await api(studio, studio.apiKey, 'DELETE', `/stream/${s.id}`)).status).toBe(404)
    expect((await api(studio, studio.apiKey, 'GET', `/stream/${s.id}`)).status).toBe(404)
    const list = (await api<Stream[]>(studio, studio.apiKey, 'GET', '/stream?limit=1000')).body
    expect(list.map((x) => x.id)).not.toContain(s.id)
  })

  it('terminate on an idle stream is 204', async () => {
    const s = (await create({ name: 'idle' })).body
    expect((await api(studio, studio.apiKey, 'DELETE', `/stream/${s.id}/terminate`)).status).toBe(
      204
    )
  })
})

// The multistream routes of the studio's API over real HTTP and SQLite, two users: targets
// (create, list, get, patch, delete), a stream's targets (on create, PATCH, add one, remove one),
// and every 400/403/404/422 the reference gives for them. The target URL (its stream key) must
// never come back in any answer. One studio for the file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApiKey } from '../../../src/studio/index'
import {
  api,
  LADDER_720_480_360,
  startTestStudio,
  type ApiResponse,
  type StudioStream,
  type TestStudio
} from '../../helpers/studio'

type Errors = { errors: string[] }
interface Target {
  id: string
  name: string
  disabled: boolean
  createdAt: number
  userId: string
  url?: string
}
type TargetRef = { id?: string; profile: string; videoOnly?: boolean; spec?: unknown }
type Stream = StudioStream & {
  multistream: { targets: TargetRef[] }
  isHealthy: boolean | null
  issues: string[] | null
}

// Keys that must never be echoed: each test's URLs are built from these.
const KEY_A = 'sekret-key-aaaa-1111'
const KEY_B = 'sekret-key-bbbb-2222'
const URL_A = `rtmp://a.rtmp.example.com/live2/${KEY_A}`
const URL_B = `rtmps://live.example.net:443/app/${KEY_B}`

let studio: TestStudio
let otherKey: string
/** Every answer body the file saw, to check that no key was ever in one. */
const seen: string[] = []

const call = async <T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  key = studio.apiKey
): Promise<ApiResponse<T & Errors>> => {
  const res = await api<T & Errors>(studio, key, method, path, body)
  seen.push(JSON.stringify(res.body ?? null))
  return res
}
const createTarget = (body: unknown, key?: string) =>
  call<Target>('POST', '/multistream/target', body, key)
const createStream = (body: unknown, key?: string) => call<Stream>('POST', '/stream', body, key)

beforeAll(async () => {
  studio = await startTestStudio()
  otherKey = await createApiKey(studio.dataDir, 'second-user')
})
afterAll(async () => {
  await studio?.cleanup()
  // Checked last, over every answer of every test in the file (log lines too).
  const all = seen.join('\n') + studio.logLines().join('\n')
  expect(all).not.toContain(KEY_A)
  expect(all).not.toContain(KEY_B)
})

describe('/multistream/target', () => {
  it('creates a target (201) with the reference fields and without its url', async () => {
    const t0 = Date.now()
    const res = await createTarget({ name: 'YouTube', url: URL_A })
    expect(res.status).toBe(201)
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'YouTube',
      disabled: false,
      createdAt: expect.any(Number),
      userId: expect.any(String)
    })
    expect(res.body.createdAt).toBeGreaterThanOrEqual(t0)
    // No name: the URL's host, as the reference names it.
    const unnamed = await createTarget({ url: URL_B, disabled: true })
    expect(unnamed.status).toBe(201)
    expect(unnamed.body).toMatchObject({ name: 'live.example.net:443', disabled: true })
    expect(unnamed.body).not.toHaveProperty('url')
    const srt = await createTarget({ url: 'srt://srt.example.com:9000?streamid=abcdefgh' })
    expect(srt.status).toBe(201)
  })

  it.each([
    ['no url', { name: 'x' }, 'required'],
    ['an http url', { url: 'http://example.com/live/k' }, 'pattern'],
    ['an unknown field', { url: URL_A, extra: 1 }, 'additionalProperties'],
    ['url not a string', { url: 5 }, 'type'],
    ['disabled not a boolean', { url: URL_A, disabled: 'yes' }, 'type'],
    ['no body', undefined, 'type']
  ])('422 for %s', async (_why, body, keyword) => {
    const res = await createTarget(body)
    expect(res.status).toBe(422)
    expect(res.body.errors[0]).toContain(`"keyword":"${keyword}"`)
  })

  it('422 "Bad URL" for a URL the schema takes but that does not parse, key not echoed', async () => {
    const res = await createTarget({ url: `rtmp://bad.example.com:99999/app/${KEY_A}` })
    expect(res.status).toBe(422)
    expect(res.body.errors[0]).toMatch(/^Bad URL rtmp:\/\/bad\.example\.com:99999\/\*\*\*\*: /)
    expect(JSON.stringify(res.body)).not.toContain(KEY_A)
  })

  it("lists and gets the caller's own targets only; another user's are not found", async () => {
    const mine = (await createTarget({ name: 'mine', url: URL_A })).body
    const theirs = (await createTarget({ name: 'theirs', url: URL_B }, otherKey)).body
    const list = await call<Target[]>('GET', '/multistream/target')
    expect(list.status).toBe(200)
    const ids = list.body.map((t) => t.id)
    expect(ids).toContain(mine.id)
    expect(ids).not.toContain(theirs.id)
    for (const t of list.body) expect(t).not.toHaveProperty('url')
    const otherList = await call<Target[]>('GET', '/multistream/target', undefined, otherKey)
    expect(otherList.body.map((t) => t.id)).toEqual([theirs.id])
    // The reference's ?userId= form: one's own id works, another's is 403.
    const byId = await call<Target[]>('GET', `/multistream/target?userId=${mine.userId}`)
    expect(byId.body.map((t) => t.id)).toEqual(ids)
    const forbidden = await call('GET', `/multistream/target?userId=${theirs.userId}`)
    expect(forbidden.status).toBe(403)
    expect(forbidden.body.errors).toEqual(['users can only access their own multistream targets'])

    const got = await call<Target>('GET', `/multistream/target/${mine.id}`)
    expect(got.status).toBe(200)
    expect(got.body).toEqual(mine)
    for (const id of [theirs.id, '00000000-0000-4000-8000-000000000000', 'junk']) {
      const res = await call('GET', `/multistream/target/${id}`)
      expect([res.status, res.body.errors]).toEqual([404, ['not found']])
    }
  })

  it('pages with limit and cursor', async () => {
    const all = (await call<Target[]>('GET', '/multistream/target?limit=1000')).body
    expect(all.length).toBeGreaterThan(2)
    const first = await call<Target[]>('GET', '/multistream/target?limit=2')
    expect(first.body.map((t) => t.id)).toEqual(all.slice(0, 2).map((t) => t.id))
    expect(first.headers.get('link')).toContain('cursor=skip2')
    const next = await call<Target[]>('GET', '/multistream/target?limit=2&cursor=skip2')
    expect(next.body.map((t) => t.id)).toEqual(all.slice(2, 4).map((t) => t.id))
  })

  it('PATCH updates name, disabled and url (204); 422 for bad bodies; 404 for others', async () => {
    const t = (await createTarget({ name: 'before', url: URL_A })).body
    const path = `/multistream/target/${t.id}`
    expect((await call('PATCH', path, { name: 'after', disabled: true })).status).toBe(204)
    expect((await call<Target>('GET', path)).body).toMatchObject({ name: 'after', disabled: true })
    expect((await call('PATCH', path, { url: URL_B })).status).toBe(204)
    expect((await call('PATCH', path, {})).status).toBe(204)
    // An empty name is not applied (the reference patches only a non-empty one).
    expect((await call('PATCH', path, { name: '', disabled: false })).status).toBe(204)
    expect((await call<Target>('GET', path)).body).toMatchObject({ name: 'after', disabled: false })
    for (const [body, keyword] of [
      [{ disabled: 'no' }, 'type'],
      [{ url: 'https://example.com/x' }, 'pattern'],
      [{ other: 1 }, 'additionalProperties']
    ] as const) {
      const res = await call('PATCH', path, body)
      expect(res.status).toBe(422)
      expect(res.body.errors[0]).toContain(`"keyword":"${keyword}"`)
    }
    const other = await call('PATCH', path, { name: 'hijack' }, otherKey)
    expect([other.status, other.body.errors]).toEqual([404, ['not found']])
    expect((await call<Target>('GET', path)).body.name).toBe('after')
  })

  it("DELETE removes the target (204, then 404); another user's is 404", async () => {
    const t = (await createTarget({ url: URL_A })).body
    const path = `/multistream/target/${t.id}`
    const other = await call('DELETE', path, undefined, otherKey)
    expect([other.status, other.body.errors]).toEqual([404, ['not found']])
    expect((await call('DELETE', path)).status).toBe(204)
    expect((await call('DELETE', path)).status).toBe(404)
    expect((await call('GET', path)).status).toBe(404)
  })

  it('401 without a key', async () => {
    expect((await call('GET', '/multistream/target', undefined, '')).status).toBe(401)
    expect(
      (await api(studio, undefined, 'POST', '/multistream/target', { url: URL_A })).status
    ).toBe(401)
  })
})

describe("a stream's multistream.targets", () => {
  const ladder = LADDER_720_480_360

  it('stores targets by id; an inline spec makes a target; videoOnly is kept', async () => {
    const t = (await createTarget({ name: 'by id', url: URL_A })).body
    const res = await createStream({
      name: 'ms',
      profiles: ladder,
      multistream: {
        targets: [
          { id: t.id, profile: '720p' },
          { id: t.id, profile: 'source' },
          { profile: '360p', videoOnly: true, spec: { name: 'inline', url: URL_B } }
        ]
      }
    })
    expect(res.status).toBe(201)
    const targets = res.body.multistream.targets
    expect(targets).toHaveLength(3)
    expect(targets[0]).toEqual({ id: t.id, profile: '720p' })
    expect(targets[2]).toEqual({ id: expect.any(String), profile: '360p', videoOnly: true })
    expect(targets[2]).not.toHaveProperty('spec')
    const made = await call<Target>('GET', `/multistream/target/${targets[2]!.id}`)
    expect(made.status).toBe(200)
    expect(made.body.name).toBe('inline')
    const got = await call<Stream>('GET', `/stream/${res.body.id}`)
    expect(got.body.multistream).toEqual(res.body.multistream)
    // Not live: health is unknown, as before multistream.
    expect([got.body.isHealthy, got.body.issues]).toEqual([null, null])
  })

  it('refuses bad targets with the reference statuses and words', async () => {
    const t = (await createTarget({ url: URL_A })).body
    const theirs = (await createTarget({ url: URL_B }, otherKey)).body
    const cases: Array<[string, unknown, number, string]> = [
      ['no profile', [{ id: t.id }], 422, '"keyword":"required"'],
      [
        'an unknown profile',
        [{ id: t.id, profile: 'hello' }],
        400,
        'multistream target profile not found: "hello". available: ["720p","480p","360p","source"]'
      ],
      ['neither id nor spec', [{ profile: '720p' }], 400, 'must have either an "id" or a "spec"'],
      [
        'both id and spec',
        [{ id: t.id, profile: '720p', spec: { url: URL_A } }],
        400,
        'must have either an "id" or a "spec"'
      ],
      [
        'a duplicate {id,profile}',
        [
          { id: t.id, profile: '720p' },
          { id: t.id, profile: '720p', videoOnly: true }
        ],
        400,
        'multistream target {id,profile} must be unique'
      ],
      [
        "another user's target",
        [{ id: theirs.id, profile: '720p' }],
        400,
        `multistream target not found: "${theirs.id}"`
      ],
      [
        'a spec without url',
        [{ profile: '720p', spec: { name: 'x' } }],
        422,
        '"keyword":"required"'
      ],
      [
        'a spec with an http url',
        [{ profile: '720p', spec: { url: 'http://x.example/a/b' } }],
        422,
        '"keyword":"pattern"'
      ],
      [
        'a spec URL that does not parse',
        [{ profile: '720p', spec: { url: `rtmp://h.example:99999/app/${KEY_A}` } }],
        422,
        'Bad URL rtmp://h.example:99999/****'
      ],
      ['targets not an array', { id: t.id }, 422, '"keyword":"type"']
    ]
    const before = (await call<Target[]>('GET', '/multistream/target?limit=1000')).body.length
    for (const [why, targets, status, text] of cases) {
      const body = { targets }
      const res = await createStream({ name: why, profiles: ladder, multistream: body })
      expect([why, res.status]).toEqual([why, status])
      expect(res.body.errors[0]).toContain(text)
      // PATCH says the same (against the stored profiles).
      const s = (await createStream({ name: `patch ${why}`, profiles: ladder })).body
      const patched = await call('PATCH', `/stream/${s.id}`, { multistream: body })
      expect([why, patched.status]).toEqual([why, status])
      expect(patched.body.errors[0]).toContain(text)
    }
    // A refused request made no target from its inline specs.
    const after = (await call<Target[]>('GET', '/multistream/target?limit=1000')).body.length
    expect(after).toBe(before)
    // The same target with two profiles is fine.
    const ok = await createStream({
      name: 'two renditions',
      profiles: ladder,
      multistream: {
        targets: [
          { id: t.id, profile: '720p' },
          { id: t.id, profile: '360p' }
        ]
      }
    })
    expect(ok.status).toBe(201)
    // Without profiles only "source" exists.
    const plain = await createStream({
      name: 'plain',
      multistream: { targets: [{ id: t.id, profile: '720p' }] }
    })
    expect(plain.status).toBe(400)
    expect(plain.body.errors[0]).toBe(
      'multistream target profile not found: "720p". available: ["source"]'
    )
  })

  it('PATCH replaces the list (204); another user gets 404', async () => {
    const t = (await createTarget({ url: URL_A })).body
    const s = (await createStream({ name: 'patch me', profiles: ladder })).body
    const res = await call('PATCH', `/stream/${s.id}`, {
      multistream: { targets: [{ id: t.id, profile: '480p', videoOnly: false }] }
    })
    expect(res.status).toBe(204)
    const got = (await call<Stream>('GET', `/stream/${s.id}`)).body
    expect(got.multistream).toEqual({ targets: [{ id: t.id, profile: '480p', videoOnly: false }] })
    const other = await call('PATCH', `/stream/${s.id}`, { multistream: { targets: [] } }, otherKey)
    expect(other.status).toBe(404)
    expect((await call('PATCH', `/stream/${s.id}`, { multistream: { targets: [] } })).status).toBe(
      204
    )
    expect((await call<Stream>('GET', `/stream/${s.id}`)).body.multistream).toEqual({ targets: [] })
  })
})

describe('/stream/{id}/create-multistream-target and /stream/{id}/multistream/{targetId}', () => {
  it('adds a target by spec or id (200, the target without url) and removes it (204)', async () => {
    const s = (await createStream({ name: 'add', profiles: LADDER_720_480_360 })).body
    const added = await call<Target>('POST', `/stream/${s.id}/create-multistream-target`, {
      profile: '360p',
      spec: { name: 'added', url: URL_A }
    })
    expect(added.status).toBe(200)
    expect(added.body).toMatchObject({ name: 'added', disabled: false })
    expect(added.body).not.toHaveProperty('url')
    const byId = (await createTarget({ url: URL_B })).body
    const second = await call<Target>('POST', `/stream/${s.id}/create-multistream-target`, {
      id: byId.id,
      profile: 'source',
      videoOnly: true
    })
    expect(second.status).toBe(200)
    expect(second.body.id).toBe(byId.id)
    let got = (await call<Stream>('GET', `/stream/${s.id}`)).body
    expect(got.multistream.targets).toEqual([
      { id: added.body.id, profile: '360p' },
      { id: byId.id, profile: 'source', videoOnly: true }
    ])
    // The same pair again is refused.
    const dup = await call('POST', `/stream/${s.id}/create-multistream-target`, {
      id: byId.id,
      profile: 'source'
    })
    expect([dup.status, dup.body.errors]).toEqual([
      400,
      ['multistream target {id,profile} must be unique']
    ])

    expect((await call('DELETE', `/stream/${s.id}/multistream/${added.body.id}`)).status).toBe(204)
    got = (await call<Stream>('GET', `/stream/${s.id}`)).body
    expect(got.multistream.targets).toEqual([{ id: byId.id, profile: 'source', videoOnly: true }])
    // The target itself stays (only the stream's reference goes).
    expect((await call('GET', `/multistream/target/${added.body.id}`)).status).toBe(200)
    // Removing one that is not there is still 204.
    expect((await call('DELETE', `/stream/${s.id}/multistream/${added.body.id}`)).status).toBe(204)
  })

  it('refuses bad payloads and other users', async () => {
    const s = (await createStream({ name: 'guarded', profiles: LADDER_720_480_360 })).body
    const path = `/stream/${s.id}/create-multistream-target`
    const t = (await createTarget({ url: URL_A })).body
    const cases: Array<[unknown, number, string]> = [
      [{ id: t.id }, 422, '"keyword":"required"'],
      [{ id: t.id, profile: '720p', extra: 1 }, 422, '"keyword":"additionalProperties"'],
      [{ id: t.id, profile: 'nope' }, 400, 'multistream target profile not found: "nope"'],
      [{ profile: '720p' }, 400, 'must have either an "id" or a "spec"'],
      [{ profile: '720p', spec: { url: 'udp://x.example/a' } }, 422, '"keyword":"pattern"']
    ]
    for (const [body, status, text] of cases) {
      const res = await call('POST', path, body)
      expect(res.status).toBe(status)
      expect(res.body.errors[0]).toContain(text)
    }
    const other = await call('POST', path, { id: t.id, profile: '720p' }, otherKey)
    expect([other.status, other.body.errors]).toEqual([404, ['stream not found']])
    const theirs = (await createTarget({ url: URL_B }, otherKey)).body
    const notMine = await call('POST', path, { id: theirs.id, profile: '720p' })
    expect([notMine.status, notMine.body.errors]).toEqual([
      400,
      [`multistream target not found: "${theirs.id}"`]
    ])
    const del = await call('DELETE', `/stream/${s.id}/multistream/${t.id}`, undefined, otherKey)
    expect([del.status, del.body.errors]).toEqual([404, ['not found']])
    expect((await call<Stream>('GET', `/stream/${s.id}`)).body.multistream).toEqual({ targets: [] })
  })
})

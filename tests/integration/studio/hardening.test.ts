// Hardening: generated bad input over every route (fast-check), a second user against the first
// user's resources, and path traversal on the media trees.
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApiKey } from '../../../src/studio/index'
import { seedSessions } from '../../helpers/seed-sessions'
import { api, LADDER_720_480_360, startTestStudio, type TestStudio } from '../../helpers/studio'

let studio: TestStudio
// The fuzz's second user: its generated requests may create streams of its own.
let otherKey: string
// The isolation test's second user, used by nothing else, so it must own nothing at all.
let isolatedKey: string
let streamId: string
let playbackId: string
let sessionId: string
const base = (): string => studio.apiUrl.replace(/\/api$/, '')

beforeAll(async () => {
  studio = await startTestStudio()
  otherKey = await createApiKey(studio.dataDir, 'intruder')
  isolatedKey = await createApiKey(studio.dataDir, 'onlooker')
  const s = await api<{ id: string; playbackId: string }>(
    studio,
    studio.apiKey,
    'POST',
    '/stream',
    {
      name: 'owned',
      profiles: LADDER_720_480_360,
      record: true
    }
  )
  streamId = s.body.id
  playbackId = s.body.playbackId
  const seeded = await seedSessions(studio.dataDir, studio.apiKey, 5)
  const sessions = await api<Array<{ id: string; recordingStatus?: string }>>(
    studio,
    studio.apiKey,
    'GET',
    `/stream/${seeded.streamId}/sessions?record=1`
  )
  sessionId = sessions.body.find((x) => x.recordingStatus === 'ready')!.id
  // A recording file where a real one would be: the positive control for the traversal tests.
  await mkdir(join(studio.dataDir, 'media', sessionId), { recursive: true })
  await writeFile(join(studio.dataDir, 'media', sessionId, 'index.m3u8'), '#EXTM3U\n')
})
afterAll(async () => {
  await studio?.cleanup()
})

const nasty = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '',
    '..',
    '../../studio.db',
    '%00',
    '\u0000',
    'null',
    '-1',
    '1e309',
    'skip-1',
    'skip99999999999',
    "' OR 1=1 --",
    '\u202e\ufeff',
    'a'.repeat(5000)
  ),
  fc.uuid().map(String)
)

const badValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ unit: 'grapheme', maxLength: 300 }),
  fc.constantFrom('x'.repeat(20_000), -1, 0, 1.5, 1e308, true, null, [], {})
)

const profileLike = fc.record(
  {
    name: badValue,
    width: badValue,
    height: badValue,
    bitrate: badValue,
    fps: badValue,
    gop: badValue,
    extra: badValue
  },
  { requiredKeys: [] }
)

const body = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc
    .record(
      {
        name: badValue,
        profiles: fc.oneof(badValue, fc.array(profileLike, { maxLength: 4 })),
        record: badValue,
        extra: badValue
      },
      { requiredKeys: [] }
    )
    .map((v) => JSON.stringify(v)),
  fc
    .record(
      {
        record: badValue,
        suspended: badValue,
        creatorId: badValue,
        userTags: badValue,
        playbackPolicy: badValue,
        multistream: badValue,
        recordingSpec: badValue
      },
      { requiredKeys: [] }
    )
    .map((v) => JSON.stringify(v)),
  fc.integer({ min: 1, max: 5000 }).map((d) => '['.repeat(d) + ']'.repeat(d)),
  fc.integer({ min: 1, max: 5000 }).map((d) => '{"a":'.repeat(d) + '1' + '}'.repeat(d)),
  fc.string({ maxLength: 200 }),
  fc.constant(undefined)
)

type Target = { method: string; path: (id: string) => string }
const ROUTES: Target[] = [
  { method: 'POST', path: () => '/stream' },
  { method: 'GET', path: () => '/stream' },
  { method: 'GET', path: (id) => `/stream/${id}` },
  { method: 'PATCH', path: (id) => `/stream/${id}` },
  { method: 'DELETE', path: (id) => `/stream/${id}` },
  { method: 'PATCH', path: (id) => `/stream/${id}/record` },
  { method: 'PATCH', path: (id) => `/stream/${id}/suspended` },
  { method: 'DELETE', path: (id) => `/stream/${id}/terminate` },
  { method: 'GET', path: (id) => `/stream/${id}/sessions` },
  { method: 'GET', path: () => '/session' },
  { method: 'GET', path: (id) => `/session/${id}` },
  { method: 'GET', path: (id) => `/playback/${id}` },
  { method: 'GET', path: () => '/ingest' },
  { method: 'GET', path: (id) => `/../hls/${id}/index.m3u8` },
  { method: 'GET', path: (id) => `/../recordings/${id}/${id}` },
  { method: 'PUT', path: (id) => `/stream/${id}` },
  { method: 'POST', path: (id) => `/session/${id}` },
  { method: 'POST', path: () => '/webhook' },
  { method: 'GET', path: () => '/webhook' },
  { method: 'GET', path: (id) => `/webhook/${id}` },
  { method: 'PUT', path: (id) => `/webhook/${id}` },
  { method: 'DELETE', path: (id) => `/webhook/${id}` },
  { method: 'PATCH', path: (id) => `/webhook/${id}` },
  { method: 'GET', path: (id) => `/webhook/${id}/log` },
  { method: 'GET', path: (id) => `/webhook/${id}/log/${id}` },
  { method: 'POST', path: (id) => `/webhook/${id}/log/${id}/resend` },
  { method: 'POST', path: () => '/clip' },
  { method: 'GET', path: (id) => `/stream/${id}/clips` },
  { method: 'GET', path: (id) => `/session/${id}/clips` },
  { method: 'GET', path: () => '/asset' },
  { method: 'GET', path: (id) => `/asset/${id}` },
  { method: 'DELETE', path: (id) => `/asset/${id}` },
  { method: 'GET', path: (id) => `/../asset/${id}/download.mp4` }
]

describe('API fuzz', () => {
  it('answers generated bad requests on every route with 4xx {"errors":[...]}, never 5xx', async () => {
    // Its own stream: generated DELETEs and PATCHes may hit it; the isolation test's stream stays
    // intact.
    const fuzzStream = (
      await api<{ id: string }>(studio, studio.apiKey, 'POST', '/stream', { name: 'fuzz' })
    ).body.id
    let calls = 0
    const statuses = new Map<number, number>()
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ROUTES),
        fc.oneof(nasty.map(encodeURIComponent), fc.constant('STREAM')),
        fc.dictionary(
          fc.constantFrom('limit', 'cursor', 'record', 'count', 'streamsonly', 'active'),
          nasty,
          { maxKeys: 3 }
        ),
        body,
        fc.constantFrom('own', 'other', 'none', 'garbage'),
        async (route, rawId, query, payload, who) => {
          const id = rawId === 'STREAM' ? fuzzStream : rawId
          const qs = new URLSearchParams(query).toString()
          const url = new URL(`${studio.apiUrl}${route.path(id)}${qs ? `?${qs}` : ''}`)
          const headers: Record<string, string> = { 'content-type': 'application/json' }
          if (who === 'own') headers.authorization = `Bearer ${studio.apiKey}`
          if (who === 'other') headers.authorization = `Bearer ${otherKey}`
          if (who === 'garbage')
            headers.authorization = 'Bearer \u00ff'.replace('\u00ff', 'x'.repeat(300))
          const hasBody = route.method !== 'GET' && payload !== undefined
          const res = await fetch(url, {
            method: route.method,
            headers,
            body: hasBody ? payload : undefined
          })
          calls++
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
          const text = await res.text()
          expect(res.status).toBeLessThan(500)
          if (res.status >= 400) {
            const parsed = JSON.parse(text) as { errors: unknown }
            expect(Array.isArray(parsed.errors)).toBe(true)
            expect((parsed.errors as unknown[]).length).toBeGreaterThan(0)
            expect((parsed.errors as unknown[]).every((e) => typeof e === 'string')).toBe(true)
            expect(text).not.toContain(studio.apiKey)
          }
        }
      ),
      { numRuns: 1200 }
    )
    expect(calls).toBeGreaterThanOrEqual(1200)
    // The generators reached both sides: successes and several kinds of client errors.
    expect([...statuses.keys()].some((s) => s < 300)).toBe(true)
    for (const s of [400, 401, 404, 422]) expect(statuses.get(s) ?? 0).toBeGreaterThan(0)
    const alive = await api(studio, undefined, 'GET', '/ingest')
    expect(alive.status).toBe(200)
  }, 240_000)
})

describe('isolation', () => {
  it('a second user gets 404 on every route of the first user and sees none of it in lists', async () => {
    const tries: Array<[string, string, unknown?]> = [
      ['GET', `/stream/${streamId}`],
      ['PATCH', `/stream/${streamId}`, { name: 'stolen' }],
      ['PATCH', `/stream/${streamId}/record`, { record: false }],
      ['PATCH', `/stream/${streamId}/suspended`, { suspended: true }],
      ['DELETE', `/stream/${streamId}/terminate`],
      ['GET', `/stream/${streamId}/sessions`],
      ['GET', `/session/${sessionId}`],
      ['DELETE', `/stream/${streamId}`]
    ]
    for (const [method, path, b] of tries) {
      const other = await api<{ errors: string[] }>(studio, isolatedKey, method, path, b)
      expect([method, path, other.status]).toEqual([method, path, 404])
      expect(other.body.errors).toEqual(['not found'])
      const none = await api(studio, undefined, method, path, b)
      expect([method, path, none.status]).toEqual([method, path, 401])
    }
    const mine = await api<{ name: string; record: boolean; suspended: boolean }>(
      studio,
      studio.apiKey,
      'GET',
      `/stream/${streamId}`
    )
    expect(mine.body).toMatchObject({ name: 'owned', record: true, suspended: false })
    const streams = await api(studio, isolatedKey, 'GET', '/stream?limit=1000')
    const sessions = await api(studio, isolatedKey, 'GET', '/session?limit=1000')
    expect(streams.body).toEqual([])
    expect(sessions.body).toEqual([])
    expect(JSON.stringify(streams.body) + JSON.stringify(sessions.body)).not.toContain(streamId)
  })
})

describe('media paths', () => {
  it('serves the recording file and 404s every traversal attempt', async () => {
    const ok = await fetch(`${base()}/recordings/${sessionId}/index.m3u8`)
    expect(ok.status).toBe(200)
    expect(ok.headers.get('access-control-allow-origin')).toBe('*')
    const attempts = [
      `/recordings/${sessionId}/..%2F..%2Fstudio.db`,
      `/recordings/${sessionId}/..%2F..%2F..%2F..%2Fetc%2Fpasswd`,
      `/recordings/${sessionId}/%2e%2e/%2e%2e/studio.db`,
      `/recordings/${sessionId}/%252e%252e%252fstudio.db`,
      `/recordings/..%2F${sessionId}/index.m3u8`,
      `/recordings/${sessionId}/..\\..\\studio.db`,
      `/recordings/${sessionId}/index.m3u8%00.ts`,
      `/recordings/${sessionId}/studio.db`,
      `/recordings/${sessionId}/%2Fetc%2Fpasswd`,
      `/hls/${playbackId}/..%2F..%2Fstudio.db`,
      `/hls/..%2F..%2Fstudio.db/index.m3u8`,
      `/hls/${playbackId}/index.m3u8`,
      '/hls/%2e%2e/%2e%2e/studio.db',
      '/recordings/../studio.db',
      '/studio.db',
      '/media/' + sessionId + '/index.m3u8'
    ]
    for (const path of attempts) {
      const res = await fetch(`${base()}${path}`)
      expect([path, res.status]).toEqual([path, 404])
      expect(((await res.json()) as { errors: string[] }).errors).toEqual(['not found'])
    }
  })
})

// Sessions, playback, ingest and persistence over real HTTP and SQLite; sessions seeded into the
// store (tests/helpers/seed-sessions), live ones are covered by ingest.test.ts. One studio for the file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApiKey, startStudio } from '../../../src/studio/index'
import { seedSessions } from '../../helpers/seed-sessions'
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
const base = (): string => studio.apiUrl.replace(/\/api$/, '')

beforeAll(async () => {
  studio = await startTestStudio()
  otherKey = await createApiKey(studio.dataDir, 'second-user')
})
afterAll(async () => {
  await studio?.cleanup()
})

const create = async (body: unknown, key = studio.apiKey) =>
  api<Stream & Errors>(studio, key, 'POST', '/stream', body)

describe('sessions, playback and ingest', () => {
  it('lists the owner sessions newest first, pages them, and hides them from others', async () => {
    const key = await createApiKey(studio.dataDir, 'sessions-user')
    const { streamId } = await seedSessions(studio.dataDir, key, 25, { streamName: 'seeded' })
    const first = await api<Array<Record<string, unknown>>>(
      studio,
      key,
      'GET',
      '/session?limit=10&count=1'
    )
    expect(first.status).toBe(200)
    expect(first.body).toHaveLength(10)
    expect(first.headers.get('x-total-count')).toBe('25')
    expect(first.headers.get('link')).toContain('cursor=skip10')
    const times = first.body.map((s) => s.createdAt as number)
    expect([...times].sort((a, b) => b - a)).toEqual(times)
    for (const s of first.body) {
      expect(s.parentId).toBe(streamId)
      expect(typeof s.sourceSegmentsDuration).toBe('number')
      if (s.record && s.recordingStatus === 'ready') {
        expect(s.recordingUrl).toBe(`${base()}/recordings/${s.id}/index.m3u8`)
      } else {
        expect(s).not.toHaveProperty('recordingUrl')
      }
      if (!s.record) expect(s).not.toHaveProperty('recordingStatus')
    }
    const one = await api<Record<string, unknown>>(
      studio,
      key,
      'GET',
      `/session/${first.body[0]!.id}`
    )
    expect(one.body).toEqual(first.body[0])
    expect((await api(studio, otherKey, 'GET', `/session/${first.body[0]!.id}`)).status).toBe(404)
    expect((await api<unknown[]>(studio, otherKey, 'GET', '/session')).body).toHaveLength(0)

    const all = (
      await api<Array<{ record: boolean }>>(
        studio,
        key,
        'GET',
        `/stream/${streamId}/sessions?limit=100`
      )
    ).body
    expect(all).toHaveLength(25)
    const rec = (
      await api<Array<{ record: boolean }>>(
        studio,
        key,
        'GET',
        `/stream/${streamId}/sessions?record=1&limit=100`
      )
    ).body
    const unrec = (
      await api<Array<{ record: boolean }>>(
        studio,
        key,
        'GET',
        `/stream/${streamId}/sessions?record=0&limit=100`
      )
    ).body
    expect(rec.every((s) => s.record)).toBe(true)
    expect(unrec.every((s) => !s.record)).toBe(true)
    expect(rec.length + unrec.length).toBe(25)
    expect(
      (await api(studio, key, 'GET', `/stream/${streamId}/sessions?record=maybe`)).status
    ).toBe(400)
    expect((await api(studio, otherKey, 'GET', `/stream/${streamId}/sessions`)).status).toBe(404)
  })

  it('GET /ingest and /playback need no key', async () => {
    const ingest = await api<Array<Record<string, unknown>>>(studio, undefined, 'GET', '/ingest')
    expect(ingest.status).toBe(200)
    expect(ingest.body).toEqual([
      {
        ingest: studio.rtmpUrl,
        ingests: { rtmp: studio.rtmpUrl },
        playback: `${base()}/hls`,
        base: base()
      }
    ])
    const s = (await create({ name: 'pb' })).body
    const pb = await api<{
      type: string
      meta: { live: number; source: Array<{ url: string; hrn: string }> }
    }>(studio, undefined, 'GET', `/playback/${s.playbackId}`)
    expect(pb.status).toBe(200)
    expect(pb.body.type).toBe('live')
    expect(pb.body.meta.live).toBe(0)
    expect(pb.body.meta.source[0]).toMatchObject({
      hrn: 'HLS (TS)',
      url: `${base()}/hls/${s.playbackId}/index.m3u8`
    })
    expect(pb.headers.get('access-control-allow-origin')).toBe('*')
    const byId = await api<Errors>(studio, undefined, 'GET', `/playback/${s.id}`)
    expect(byId.status).toBe(404)
    expect(byId.body.errors[0]).toContain('No playback URL found')
  })
})

describe('persistence', () => {
  it('keeps streams, sessions and keys across a restart of the same data dir', async () => {
    const dir = (await import('node:fs/promises')).mkdtemp
    const dataDir = await dir(`${(await import('node:os')).tmpdir()}/onair-restart-`)
    const a = await startStudio({ dataDir })
    expect(a.apiKey).toBeDefined()
    const s = (
      await api<Stream>(a, a.apiKey!, 'POST', '/stream', {
        name: 'kept',
        profiles: LADDER_720_480_360
      })
    ).body
    await a.stop()
    await seedSessions(dataDir, a.apiKey!, 3)
    const b = await startStudio({ dataDir })
    try {
      expect(b.apiKey).toBeUndefined()
      const got = await api<Stream>(b, a.apiKey!, 'GET', `/stream/${s.id}`)
      expect(got.status).toBe(200)
      expect(got.body).toEqual({ ...s, sourceSegmentsDuration: got.body.sourceSegmentsDuration })
      expect((await api<unknown[]>(b, a.apiKey!, 'GET', '/session')).body).toHaveLength(3)
    } finally {
      await b.stop()
      await (await import('node:fs/promises')).rm(dataDir, { recursive: true, force: true })
    }
  })
})

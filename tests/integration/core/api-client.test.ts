// The API client against the real local studio (HTTP, SQLite, RTMP ingest, ffmpeg): every call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiClient } from '../../../src/main/core/api-client'
import { pushTestPattern, startTestStudio, waitFor, type TestStudio } from '../../helpers/studio'
import { failure } from '../../helpers/failure'

let studio: TestStudio
let client: ApiClient

beforeAll(async () => {
  studio = await startTestStudio()
  client = new ApiClient({ baseUrl: studio.apiUrl, apiKey: studio.apiKey })
})
afterAll(async () => {
  await studio?.cleanup()
})

const P360 = { name: '360p', width: 640, height: 360, bitrate: 600_000, fps: 30 }

describe('API client against the local studio', () => {
  it('reads the ingest points', async () => {
    const ingest = await client.getIngest()
    expect(ingest.rtmp).toBe(studio.rtmpUrl)
    expect(ingest.playbackBase).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hls$/)
  })

  it('creates, reads, updates, records, lists with paging, terminates and deletes streams', async () => {
    const created = await client.createStream({ name: 'first', profiles: [P360], record: false })
    expect(created).toMatchObject({ name: 'first', record: false })
    expect(created.streamKey).toMatch(/^\w{4}-\w{4}-\w{4}-\w{4}$/)
    expect((await client.getStream(created.id!)).playbackId).toBe(created.playbackId)

    const renamed = await client.updateStream(created.id!, { name: 'renamed', profiles: [] })
    expect(renamed).toMatchObject({ name: 'renamed', profiles: [] })
    expect((await client.setRecord(created.id!, true)).record).toBe(true)
    expect((await client.setRecord(created.id!, false)).record).toBe(false)

    for (let i = 0; i < 4; i++)
      await client.createStream({ name: `s${i}`, profiles: [], record: false })
    const seen: string[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const page = await client.listStreams({ limit: 2, cursor })
      seen.push(...page.items.map((s) => s.id!))
      cursor = page.next
      pages++
    } while (cursor && pages < 10)
    expect(new Set(seen).size).toBe(5)
    expect(pages).toBeGreaterThanOrEqual(3)

    await client.terminateStream(created.id!)
    await client.deleteStream(created.id!)
    expect(await failure(client.getStream(created.id!))).toMatchObject({
      code: 'not-found',
      status: 404
    })
  })

  it('maps the service errors: 422 with field, 400 rule, 401 without the key', async () => {
    const bad = await failure(
      client.createStream({ name: 'x', profiles: [{ ...P360, width: 100 }], record: false })
    )
    expect(bad).toMatchObject({ code: 'validation', status: 422, field: 'profiles.0.width' })
    expect(bad.message).toContain('at least 128')
    const rule = await failure(
      client.createStream({ name: 'x', profiles: [{ ...P360, name: 'source' }], record: false })
    )
    expect(rule).toMatchObject({ code: 'rule', status: 400 })
    expect(rule.message).toContain('source')
    const wrongKey = 'wrong-key-0000-1111-2222'
    const e = await failure(new ApiClient({ baseUrl: studio.apiUrl, apiKey: wrongKey }).checkKey())
    expect(e.code).toBe('key-rejected')
    expect(JSON.stringify(e)).not.toContain(wrongKey)
  })

  it('lists sessions (account-wide and per stream), reads one, and its playback', async () => {
    const s = await client.createStream({ name: 'with session', profiles: [], record: true })
    const push = pushTestPattern(`${studio.rtmpUrl}/${s.streamKey}`, {
      seconds: 4,
      width: 320,
      height: 180
    })
    expect(await push.done).toBe(0)
    const sessions = await waitFor(
      async () => {
        const p = await client.listStreamSessions(s.id!, { limit: 10 })
        return p.items.length > 0 && p
      },
      60_000,
      'a session of the stream'
    )
    const session = sessions.items[0]!
    expect(session.parentId).toBe(s.id)
    const all = await client.listSessions({ limit: 50 })
    expect(all.items.map((x) => x.id)).toContain(session.id)
    expect((await client.getSession(session.id!)).parentId).toBe(s.id)
    const ready = await waitFor(
      async () => {
        const x = await client.getSession(session.id!)
        return x.recordingStatus === 'ready' && x
      },
      60_000,
      'recording ready'
    )
    expect(ready.recordingUrl).toMatch(/\/recordings\/.+\/index\.m3u8$/)
    const live = await client.getPlayback(s.playbackId!)
    expect(live.type).toBe('live')
    expect(live.meta.source[0]!.url).toContain(`/hls/${s.playbackId}/index.m3u8`)
    expect(await failure(client.getSession('does-not-exist'))).toMatchObject({ code: 'not-found' })
  })
})

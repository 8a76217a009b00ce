// Destinations (multistream targets) through the app's own client and core module, against the real
// local studio (HTTP, SQLite, RTMP ingest, its ffmpeg forwarders): add, list, disable, delete, the
// errors a person sees, and each destination's state while live, read from the stream's issues.
import { beforeAll, describe, expect, it } from 'vitest'
import { ApiClient } from '../../../src/main/core/api-client'
import {
  addDestination,
  listDestinations,
  removeDestination,
  setDestinationEnabled
} from '../../../src/main/core/destinations'
import type { DestinationsView } from '../../../src/shared/contract'
import { buildTargetUrl } from '../../../src/shared/destinations'
import { NotingTransport, relay as relayOf, studioClientForFile } from '../../helpers/studio-client'
import { failure } from '../../helpers/failure'
import { api, pushTestPattern, waitFor, type TestStudio } from '../../helpers/studio'

const file = studioClientForFile()
let studio: TestStudio
let client: ApiClient
beforeAll(() => void ({ studio, client } = file()))

const P360 = { name: '360p', width: 640, height: 360, bitrate: 600_000, fps: 30 }

const relay = (name: string) => relayOf(file(), name)

const byName = (v: DestinationsView, name: string) => v.destinations.find((d) => d.name === name)

describe('destinations against the local studio', () => {
  it('adds two, lists them without their URLs, disables one, and deletes one with its target', async () => {
    const show = await client.createStream({ name: 'show', profiles: [P360], record: false })
    const a = await relay('relay a')
    const b = await relay('relay b')

    const one = await addDestination(client, {
      streamId: show.id!,
      name: 'Relay A',
      url: a.url,
      profile: 'source',
      videoOnly: false
    })
    expect(one).toEqual({
      streamId: show.id,
      streamActive: false,
      destinations: [
        {
          id: expect.any(String),
          name: 'Relay A',
          profile: 'source',
          videoOnly: false,
          disabled: false,
          state: 'idle'
        }
      ]
    })
    const two = await addDestination(client, {
      streamId: show.id!,
      name: 'Relay B',
      url: b.url,
      profile: '360p',
      videoOnly: true
    })
    expect(two.destinations.map((d) => [d.name, d.profile, d.videoOnly])).toEqual([
      ['Relay A', 'source', false],
      ['Relay B', '360p', true]
    ])
    expect(await listDestinations(client, show.id!)).toEqual(two)
    // Nothing the app reads back carries a URL or a key: not the view, not the raw stream or target.
    const idB = byName(two, 'Relay B')!.id
    const raw = JSON.stringify([
      two,
      await api(studio, studio.apiKey, 'GET', `/api/stream/${show.id}`),
      await api(studio, studio.apiKey, 'GET', `/api/multistream/target/${idB}`)
    ])
    for (const secret of [a.key, b.key, studio.rtmpUrl]) expect(raw).not.toContain(secret)

    const off = await setDestinationEnabled(client, show.id!, idB, false)
    expect(byName(off, 'Relay B')).toMatchObject({ disabled: true, state: 'disabled' })
    expect((await client.getTarget(idB)).disabled).toBe(true)
    const on = await setDestinationEnabled(client, show.id!, idB, true)
    expect(byName(on, 'Relay B')).toMatchObject({ disabled: false, state: 'idle' })

    const left = await removeDestination(client, show.id!, idB)
    expect(left.destinations.map((d) => d.name)).toEqual(['Relay A'])
    // The target object went too, not only the stream's reference to it.
    expect(await failure(client.getTarget(idB))).toMatchObject({ code: 'not-found', status: 404 })
    expect((await client.getStream(show.id!)).multistream?.targets).toHaveLength(1)
  })

  it("reads two or more targets in one request for the user's list, a deleted one on its own", async () => {
    const show = await client.createStream({ name: 'listed', profiles: [], record: false })
    for (const name of ['Listed A', 'Listed B'])
      await addDestination(client, {
        streamId: show.id!,
        name,
        url: (await relay(`relay ${name}`)).url,
        profile: 'source',
        videoOnly: false
      })
    const noting = new NotingTransport()
    const seen = noting.client(file())
    const both = await listDestinations(seen, show.id!)
    expect(both).toEqual(await listDestinations(client, show.id!))
    expect(both.destinations.map((d) => d.name)).toEqual(['Listed A', 'Listed B'])
    expect(noting.sent.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /api/stream/${show.id}`,
      'GET /api/multistream/target'
    ])
    // A target deleted behind our back is not in the list: read on its own, it shows as missing.
    const idA = byName(both, 'Listed A')!.id
    await client.deleteTarget(idA)
    noting.sent.length = 0
    expect((await listDestinations(seen, show.id!)).destinations.map((d) => d.name)).toEqual([
      'Missing destination',
      'Listed B'
    ])
    expect(noting.sent.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /api/stream/${show.id}`,
      'GET /api/multistream/target',
      `GET /api/multistream/target/${idA}`
    ])
  })

  it('names what is wrong: bad URL (before sending), unknown rendition, stream, or destination', async () => {
    const show = await client.createStream({ name: 'errors', profiles: [P360], record: false })
    const a = await relay('relay errors')
    const args = { streamId: show.id!, name: 'X', url: a.url, profile: 'source', videoOnly: false }

    const scheme = await failure(
      addDestination(client, { ...args, url: `https://example.com/live/${a.key}` })
    )
    expect(scheme).toMatchObject({ code: 'bad-request', field: 'url' })
    expect(scheme.message).toContain('rtmp://, rtmps:// or srt://')
    expect(JSON.stringify(scheme)).not.toContain(a.key)

    const rendition = await failure(addDestination(client, { ...args, profile: '1080p' }))
    expect(rendition).toMatchObject({ code: 'rule', status: 400 })
    expect(rendition.message).toContain('profile not found')
    expect(JSON.stringify(rendition)).not.toContain(a.key)

    expect(await failure(addDestination(client, { ...args, streamId: 'nope' }))).toMatchObject({
      code: 'not-found',
      status: 404
    })
    // Nothing was stored by the refused calls.
    expect((await listDestinations(client, show.id!)).destinations).toEqual([])

    // A destination of another stream cannot be switched or deleted from this one.
    const other = await client.createStream({ name: 'other', profiles: [], record: false })
    const added = await addDestination(client, { ...args, streamId: other.id! })
    const foreign = added.destinations[0]!.id
    for (const call of [
      setDestinationEnabled(client, show.id!, foreign, false),
      removeDestination(client, show.id!, foreign)
    ])
      expect(await failure(call)).toMatchObject({
        code: 'not-found',
        message: expect.stringContaining('not on the stream')
      })
    expect((await client.getTarget(foreign)).disabled).toBeFalsy()
  })

  it('a destination is starting until media has flowed to it for 1.5 s; one whose key the server refuses after the publish never shows live', async () => {
    const show = await client.createStream({ name: 'truth show', profiles: [], record: false })
    const a = await relay('truth relay')
    await addDestination(client, {
      streamId: show.id!,
      name: 'Takes it',
      url: a.url,
      profile: 'source',
      videoOnly: false
    })
    // The studio's own ingest with a key it does not know: node-media-server answers the publish
    // (NetStream.Publish.Start), then the studio refuses the key and drops the connection.
    await addDestination(client, {
      streamId: show.id!,
      name: 'Wrong key',
      url: buildTargetUrl(studio.rtmpUrl, 'no-such-stream-key-987654'),
      profile: 'source',
      videoOnly: false
    })
    const push = pushTestPattern(
      `${studio.rtmpUrl}/${(await client.getStream(show.id!)).streamKey}`,
      { seconds: 60, width: 640, height: 360, fps: 25 }
    )
    const seen: Record<string, string[]> = { 'Takes it': [], 'Wrong key': [] }
    const note = (v: DestinationsView): void => {
      for (const d of v.destinations) {
        const trail = seen[d.name]!
        if (trail[trail.length - 1] !== d.state) trail.push(d.state)
      }
    }
    try {
      await waitFor(
        async () => {
          const v = await listDestinations(client, show.id!)
          note(v)
          return v.streamActive && byName(v, 'Takes it')?.state === 'live'
        },
        45_000,
        'Takes it live'
      )
      // The refusing target goes on being refused (several attempts): it is never shown live.
      const from = Date.now()
      await waitFor(
        async () => {
          note(await listDestinations(client, show.id!))
          return Date.now() - from > 6000
        },
        15_000,
        'six more seconds of reads'
      )
      // The live target has no line left; the refused one has its retrying line, no starting one.
      const stream = await client.getStream(show.id!)
      expect(stream.issues?.filter((i) => i.includes('is starting'))).toEqual([])
      expect(stream.issues?.some((i) => i.includes('is retrying'))).toBe(true)
      expect(stream.isHealthy).toBe(false)
    } finally {
      await push.kill()
    }
    expect(seen['Wrong key']).not.toContain('live')
    expect(seen['Wrong key']).toContain('retrying')
    // Both began as starting (not live) once the stream was active.
    expect(seen['Takes it']!.filter((s) => s !== 'idle')[0]).toBe('starting')
    expect(seen['Wrong key']!.filter((s) => s !== 'idle')[0]).toBe('starting')
  })

  it('while live: forwards to a destination (live), reports one that refuses (retrying, with the reason), and a disabled one', async () => {
    const show = await client.createStream({ name: 'live show', profiles: [], record: false })
    const a = await relay('live relay')
    await addDestination(client, {
      streamId: show.id!,
      name: 'Works',
      url: a.url,
      profile: 'source',
      videoOnly: false
    })
    // Port 9 (discard) on loopback: nothing listens, so the push is refused at once.
    await addDestination(client, {
      streamId: show.id!,
      name: 'Refuses',
      url: 'rtmp://127.0.0.1:9/live/refused-key-123456',
      profile: 'source',
      videoOnly: false
    })
    const off = await addDestination(client, {
      streamId: show.id!,
      name: 'Off',
      url: buildTargetUrl(studio.rtmpUrl, 'never-used-key-123456'),
      profile: 'source',
      videoOnly: false
    })
    await setDestinationEnabled(client, show.id!, byName(off, 'Off')!.id, false)

    const push = pushTestPattern(
      `${studio.rtmpUrl}/${(await client.getStream(show.id!)).streamKey}`,
      {
        seconds: 60,
        width: 640,
        height: 360,
        fps: 25
      }
    )
    try {
      const seen = await waitFor(
        async () => {
          const v = await listDestinations(client, show.id!)
          return (
            v.streamActive &&
            byName(v, 'Works')?.state === 'live' &&
            byName(v, 'Refuses')?.state === 'retrying' &&
            v
          )
        },
        45_000,
        'Works live and Refuses retrying'
      )
      expect(byName(seen, 'Refuses')!.reason).toBeTruthy()
      expect(byName(seen, 'Refuses')!.reason).not.toContain('refused-key-123456')
      expect(byName(seen, 'Off')).toMatchObject({ state: 'disabled' })
      // The forwarding is real: the relay stream itself went active on the studio's ingest.
      await waitFor(async () => (await client.getStream(a.id)).isActive, 30_000, 'relay active')
      const stream = await client.getStream(show.id!)
      expect(stream.isHealthy).toBe(false)
      expect(stream.issues?.some((i) => i.includes(byName(seen, 'Refuses')!.id))).toBe(true)
    } finally {
      await push.kill()
    }
    const after = await waitFor(
      async () => {
        const v = await listDestinations(client, show.id!)
        return !v.streamActive && v
      },
      30_000,
      'stream idle'
    )
    expect(after.destinations.map((d) => d.state)).toEqual(['idle', 'idle', 'disabled'])
  })
})

// The renderer's stream store (src/renderer/src/lib/stream-store.ts) against the real local studio,
// without a browser: its calls go through the app's dispatcher and core functions to the studio over
// HTTP, and a real transport notes each request that reaches the studio. One poller for however many
// screens ask, a tick reads the stream once, the destinations' states follow that read, and the
// targets are read only when the stream's targets change or are due. (The page's side of it is in
// destinations.test.ts.)
import { describe, expect, it } from 'vitest'
import {
  addDestination,
  listDestinations,
  setDestinationEnabled
} from '../../src/main/core/destinations'
import { dispatch } from '../../src/main/core/dispatch'
import { toStreamView } from '../../src/main/core/view-models'
import {
  STREAM_POLL_MS,
  StreamStore,
  TARGETS_REFRESH_MS
} from '../../src/renderer/src/lib/stream-store'
import type { OnairApi, OnairCalls } from '../../src/shared/contract'
import { pushTestPattern, waitFor } from '../helpers/studio'
import { NotingTransport, relay, studioClientForFile } from '../helpers/studio-client'

const file = studioClientForFile()

describe('the stream store against the local studio', () => {
  it('reads a live stream once a tick, its targets only when they change or are due', async () => {
    const { studio, client } = file()
    const noting = new NotingTransport()
    const seen = noting.client(file())
    const ingest = await client.getIngest()
    // The two calls the store makes, through the same dispatcher and core functions as the app's.
    const calls = {
      getStream: async (id: string) => toStreamView(await seen.getStream(id), ingest),
      listDestinations: (id: string) => listDestinations(seen, id)
    } as unknown as OnairCalls
    const api = {
      getStream: (id: string) => dispatch(calls, 'getStream', [id]),
      listDestinations: (id: string) => dispatch(calls, 'listDestinations', [id])
    } as unknown as OnairApi
    // The store's clock, moved on by hand to make the targets due without waiting 15 s.
    let ahead = 0
    const store = new StreamStore(api, () => Date.now() + ahead)

    const show = await client.createStream({ name: 'polled', profiles: [], record: false })
    const id = show.id!
    const a = await relay(file(), 'polled relay a')
    const b = await relay(file(), 'polled relay b')
    const added = await addDestination(client, {
      streamId: id,
      name: 'A',
      url: a.url,
      profile: 'source',
      videoOnly: false
    })
    const streamPath = `/api/stream/${id}`
    const reads = (from: number) => noting.sent.slice(from).filter((r) => r.path === streamPath)
    const targetReads = (from: number) =>
      noting.sent.slice(from).filter((r) => r.path.startsWith('/api/multistream/target'))

    await store.loadStream(id)
    await store.loadDestinations(id)
    // Three screens ask (the page, its Destinations, the banner): one poller.
    const stops = [store.poll(id), store.poll(id), store.poll(id)]
    const push = pushTestPattern(`${studio.rtmpUrl}/${show.streamKey}`, {
      seconds: 90,
      width: 320,
      height: 180,
      fps: 25
    })
    try {
      // The destination goes live from the stream's own answers: no target is read for it.
      let from = noting.sent.length
      await waitFor(
        async () => store.destinations(id).value?.destinations[0]?.state === 'live',
        45_000,
        'A live in the store'
      )
      expect(store.stream(id).value?.isActive).toBe(true)
      await waitFor(async () => reads(from).length >= 4, 20_000, 'four ticks')
      const ticks = reads(from)
      for (let i = 1; i < ticks.length; i++)
        expect(ticks[i]!.at - ticks[i - 1]!.at).toBeGreaterThan(STREAM_POLL_MS - 250)
      expect(targetReads(from)).toEqual([])

      // Switched off elsewhere (another app): shown once the targets are due, by that tick's read.
      await setDestinationEnabled(client, id, added.destinations[0]!.id, false)
      from = noting.sent.length
      ahead += TARGETS_REFRESH_MS
      await waitFor(
        async () => store.destinations(id).value?.destinations[0]?.state === 'disabled',
        10_000,
        'A disabled in the store'
      )
      expect(reads(from)).toHaveLength(1)
      expect(targetReads(from)).toHaveLength(1)

      // Added elsewhere: a tick's stream read sees a new target, the next one reads the targets.
      await addDestination(client, {
        streamId: id,
        name: 'B',
        url: b.url,
        profile: 'source',
        videoOnly: false
      })
      await waitFor(
        async () => store.destinations(id).value?.destinations[1]?.name === 'B',
        10_000,
        'B in the store'
      )
      expect(store.destinations(id).value?.destinations.map((d) => d.name)).toEqual(['A', 'B'])
    } finally {
      for (const stop of stops) stop()
      await push.kill()
    }
  })
})

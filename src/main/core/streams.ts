// Streams and their sessions on the active service, as the renderer sees them (view-models.ts):
// a live stream's read carries its health conditions, and a session its local copy, if any.
import type { OnairCalls, SessionView } from '../../shared/contract'
import { AppFailure } from '../../shared/result'
import type { ActiveService } from './connections'
import type { LocalRecordings } from './local-recording/recordings'
import { healthConditionsOf, toPlaybackView, toSessionView, toStreamView } from './view-models'

export type StreamCalls = Pick<
  OnairCalls,
  | 'listStreams'
  | 'getStream'
  | 'createStream'
  | 'updateStream'
  | 'setRecord'
  | 'deleteStream'
  | 'terminateStream'
  | 'revealStreamKey'
  | 'listSessions'
  | 'getSession'
  | 'getPlayback'
  | 'getIngest'
>

export function streamCalls(
  active: () => Promise<ActiveService>,
  recordings: LocalRecordings
): StreamCalls {
  /** Services that answered 404 for a stream's health: they have no such endpoint. */
  const noHealthAt = new Set<string>()
  /** A session with its local copy, when this computer has one. */
  const withLocal = (v: SessionView): SessionView => {
    const local = recordings.forSession(v)
    return local ? { ...v, localRecording: local } : v
  }
  return {
    async listStreams(args) {
      const { client, ingest } = await active()
      const page = await client.listStreams(args)
      return { ...page, items: page.items.map((s) => toStreamView(s, ingest)) }
    },
    async getStream(id) {
      const { client, ingest } = await active()
      const view = toStreamView(await client.getStream(id), ingest)
      // While live, the same read carries the service's health conditions (Livepeer's
      // /data/stream/{id}/health), so the one poller needs no second request of its own. A service
      // without that endpoint (404) is not asked again.
      if (!view.isActive || noHealthAt.has(client.baseUrl)) return view
      const health = await client.getStreamHealth(id).catch(() => undefined)
      if (health === null) noHealthAt.add(client.baseUrl)
      const healthConditions = healthConditionsOf(health)
      return healthConditions ? { ...view, healthConditions } : view
    },
    async createStream(args) {
      const { client, ingest } = await active()
      return toStreamView(await client.createStream(args), ingest)
    },
    async updateStream(args) {
      const { client, ingest } = await active()
      const patch = { name: args.name, profiles: args.profiles }
      return toStreamView(await client.updateStream(args.id, patch), ingest)
    },
    async setRecord(id, record) {
      const { client, ingest } = await active()
      return toStreamView(await client.setRecord(id, record), ingest)
    },
    async deleteStream(id) {
      await (await active()).client.deleteStream(id)
    },
    async terminateStream(id) {
      await (await active()).client.terminateStream(id)
    },
    async revealStreamKey(id) {
      const s = await (await active()).client.getStream(id)
      if (!s.streamKey)
        throw new AppFailure({ code: 'not-found', message: 'This stream has no stream key.' })
      return s.streamKey
    },

    async listSessions(args) {
      const { client } = await active()
      const page = args.streamId
        ? await client.listStreamSessions(args.streamId, args)
        : await client.listSessions(args)
      return { ...page, items: page.items.map((x) => withLocal(toSessionView(x))) }
    },
    async getSession(id) {
      return withLocal(toSessionView(await (await active()).client.getSession(id)))
    },
    async getPlayback(playbackId) {
      return toPlaybackView(await (await active()).client.getPlayback(playbackId))
    },
    async getIngest() {
      return (await active()).ingest
    }
  }
}

// Going live, by RTMP (the Broadcaster) or by WebRTC (WHIP): one run at a time, of either kind, on a
// stream that has a stream key. A WHIP run's local copy is the Matroska the page encodes a second
// time and hands over with pushMedia(runId), written as a camera run's copy is.
import type { IngestView, OnairCalls } from '../../shared/contract'
import { AppFailure } from '../../shared/result'
import { beginLocalCopy, type Broadcaster } from './broadcaster'
import type { ActiveService } from './connections'
import type { CrashMarker } from './crash-marker'
import type { LocalRecording, LocalRecordings } from './local-recording/recordings'
import type { Recorder } from './recorder'
import type { ApiStream } from './view-models'
import { whipUrl, type WhipRuns } from './whip'

export type LiveRunCalls = Pick<OnairCalls, 'goLive' | 'pushMedia' | 'whipStart' | 'whipStop'>

export interface LiveRunsOptions {
  live: Broadcaster
  whip: WhipRuns
  /** Record without going live: while it records, its file is the run's copy. */
  recorder: Recorder
  recordings: LocalRecordings
  /** The crash marker (crash-marker.ts): a run started is written down. */
  marker: CrashMarker
  active: () => Promise<ActiveService>
  /** Where a connection takes RTMP now (Connections.ingestOf): asked again at each reconnect. */
  ingestOf: (connectionId: string) => Promise<IngestView>
  /** The active connection's id ('' when none). */
  connectionId: () => Promise<string>
}

export function liveRunCalls(o: LiveRunsOptions): {
  calls: LiveRunCalls
  /** Closes a WHIP run's copy, and waits for one being saved (shutdown). */
  stop(): Promise<void>
} {
  let whipCopy: { runId: string; rec: LocalRecording } | null = null
  let whipCopySaved: Promise<void> = Promise.resolve()

  /** The stream to go live on, and its key: a stream without one cannot go live. */
  const liveStream = async (
    streamId: string
  ): Promise<{ stream: ApiStream; key: string; service: ActiveService }> => {
    const service = await o.active()
    const stream = await service.client.getStream(streamId)
    if (!stream.streamKey)
      throw new AppFailure({
        code: 'not-found',
        message: 'This stream has no stream key to go live with.'
      })
    return { stream, key: stream.streamKey, service }
  }

  const calls: LiveRunCalls = {
    async goLive(args) {
      o.live.assertIdle()
      o.whip.assertIdle()
      const { stream, key, service } = await liveStream(args.streamId)
      const connectionId = await o.connectionId()
      const started = await o.live.begin({
        // While a recording goes, its file is the copy: the run makes none of its own.
        args: o.recorder.id ? { ...args, recordLocally: false } : args,
        streamName: stream.name,
        streamKey: key,
        ingestRtmp: service.ingest.rtmp,
        // The service it went live on, whichever is active later.
        ingestNow: async () => (await o.ingestOf(service.conn.id)).rtmp
      })
      const { runId } = started
      o.marker.started({ runId, streamId: args.streamId, streamName: stream.name, connectionId })
      return started
    },
    async pushMedia(runId, chunk) {
      if (whipCopy?.runId !== runId) return o.live.pushMedia(runId, chunk)
      whipCopy.rec.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength))
    },
    async whipStart({ streamId, offer, recordLocally }) {
      o.live.assertIdle()
      const { stream, key, service } = await liveStream(streamId)
      const url = whipUrl(service.ingest.playbackBase, key)
      const r = await o.whip.start(streamId, url, key, offer)
      if (recordLocally) {
        try {
          const run = { runId: r.runId, streamId, streamName: stream.name }
          whipCopy = { runId: r.runId, rec: beginLocalCopy(o.recordings, run) }
        } catch (e) {
          await o.whip.stop(r.runId)
          throw e
        }
      }
      return { ...r, streamName: stream.name }
    },
    async whipStop(runId) {
      await o.whip.stop(runId)
      const copy = whipCopy
      if (copy?.runId !== runId) return
      whipCopy = null
      // Closed and remuxed after the answer: the page need not wait for the MP4.
      whipCopySaved = copy.rec.finish()
    }
  }
  return {
    calls,
    async stop() {
      await whipCopy?.rec.finish()
      await whipCopySaved
    }
  }
}

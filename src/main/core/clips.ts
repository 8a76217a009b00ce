// Clips on the active service (#20): a stretch of a stream's live run or recorded session cut by
// the service (POST /clip), read, listed newest first and deleted. Saving one is downloads.ts's.
import type { OnairCalls } from '../../shared/contract'
import { AppFailure } from '../../shared/result'
import type { ApiClient } from './api-client'
import { toClipView } from './view-models'

export function clipCalls(
  client: () => Promise<ApiClient>
): Pick<OnairCalls, 'createClip' | 'getClip' | 'listClips' | 'deleteClip'> {
  return {
    async createClip(args) {
      const c = await client()
      const stream = await c.getStream(args.streamId)
      if (!stream.playbackId)
        throw new AppFailure({
          code: 'not-found',
          message: 'This stream has no playback id to clip.'
        })
      const asset = await c.createClip({
        playbackId: stream.playbackId,
        startTime: Math.round(args.startTime),
        endTime: Math.round(args.endTime),
        ...(args.name?.trim() ? { name: args.name.trim() } : {}),
        ...(args.sessionId ? { sessionId: args.sessionId } : {})
      })
      return toClipView(asset)
    },
    getClip: async (id) => toClipView(await (await client()).getAsset(id)),
    listClips: async (args) =>
      (await (await client()).listClips(args))
        .map(toClipView)
        .sort((a, b) => b.createdAt - a.createdAt),
    deleteClip: async (id) => (await client()).deleteAsset(id)
  }
}

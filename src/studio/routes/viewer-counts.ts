// GET /api/data/views/now (#20): viewers now, in Livepeer's realtime-viewership-metric shape, over the
// caller's own streams only (another user's playbackId is not found, as every other route says).
import { requireUser, type StudioContext } from '../context'
import type { Router } from '../http'
import { getStreamByPlaybackId, listStreams } from '../stream-store'
import { HttpError } from '../validate'
import type { Breakdown } from '../viewers'

const BREAKDOWNS: readonly Breakdown[] = ['playbackId', 'device', 'browser', 'country']
/** Every stream of a user, for a query without a playbackId (the studio serves one machine). */
const ALL_STREAMS = 100_000

export function viewRoutes(router: Router, ctx: StudioContext): void {
  router.add('GET', /^\/api\/data\/views\/now\/?$/, async (req) => {
    const user = requireUser(ctx, req.raw)
    const q = req.url.searchParams
    const by = [...q.getAll('breakdownBy[]'), ...q.getAll('breakdownBy')]
    for (const b of by)
      if (!(BREAKDOWNS as readonly string[]).includes(b))
        throw new HttpError(
          400,
          `breakdownBy[] must be one of ${BREAKDOWNS.join(', ')}, not "${b.slice(0, 40)}"`
        )
    const playbackId = q.get('playbackId')
    const creatorId = q.get('creatorId')
    let ids: string[]
    if (playbackId !== null) {
      const stream = getStreamByPlaybackId(ctx.db, playbackId.slice(0, 200))
      if (!stream || stream.userId !== user.id) throw new HttpError(404, 'not found')
      ids = [stream.playbackId]
    } else {
      ids = listStreams(ctx.db, user.id, 0, ALL_STREAMS, false)
        .rows.filter((s) => creatorId === null || s.doc.creatorId?.value === creatorId)
        .map((s) => s.playbackId)
    }
    return { status: 200, body: ctx.viewers.metrics(ids, by as Breakdown[]) }
  })
}

// Clips and the assets they make (#20), as Livepeer answers them: POST /api/clip, the clips of a
// stream (by id or playbackId) and of a session, and the minimum of /api/asset a clip needs (get,
// list, delete). The caller's own only: another user's stream, session or asset is "not found".
import { requireUser, type StudioContext } from '../context'
import { pageHeaders, parseCursor, parseLimit, type Router } from '../http'
import { assetToApi, getAsset, listAssets } from '../asset-store'
import { getSession } from '../session-store'
import { getOwnStream, getStreamByPlaybackId } from '../stream-store'
import { checkClip, HttpError } from '../validate'
import { ID } from './streams'

/** Every clip of a stream or a session in one answer, as the reference's (unpaged) lists. */
const ALL = 10_000

export function clipRoutes(router: Router, ctx: StudioContext): void {
  router.add('POST', /^\/api\/clip\/?$/, async (req) => {
    const user = requireUser(ctx, req.raw)
    const body = checkClip(await req.body())
    const stream = getStreamByPlaybackId(ctx.db, body.playbackId.slice(0, 200))
    if (!stream || stream.userId !== user.id || stream.deleted)
      throw new HttpError(404, 'stream not found')
    const asset = ctx.clips.create(user.id, stream, body)
    // The reference answers 200 with the asset and the task that makes it.
    return { status: 200, body: { asset: assetToApi(asset, ctx.base()), task: { id: asset.id } } }
  })

  router.add('GET', /^\/api\/stream\/([^/]{1,200})\/clips$/, async (req) => {
    const user = requireUser(ctx, req.raw)
    const id = req.params[0]!
    // The parent stream's id or its playbackId.
    const stream = getOwnStream(ctx.db, user.id, id) ?? getStreamByPlaybackId(ctx.db, id)
    if (!stream || stream.userId !== user.id) throw new HttpError(404, 'stream not found')
    const { rows } = listAssets(ctx.db, user.id, { streamId: stream.id }, 0, ALL)
    return { status: 200, body: rows.map((a) => assetToApi(a, ctx.base())) }
  })

  router.add('GET', new RegExp(`^/api/session/${ID}/clips$`), async (req) => {
    const user = requireUser(ctx, req.raw)
    const session = getSession(ctx.db, req.params[0]!)
    if (!session || session.userId !== user.id) throw new HttpError(404, 'session not found')
    const { rows } = listAssets(ctx.db, user.id, { sessionId: session.id }, 0, ALL)
    return { status: 200, body: rows.map((a) => assetToApi(a, ctx.base())) }
  })

  router.add('GET', /^\/api\/asset\/?$/, async (req) => {
    const user = requireUser(ctx, req.raw)
    const limit = parseLimit(req.url)
    const offset = parseCursor(req.url)
    const { rows, total } = listAssets(ctx.db, user.id, {}, offset, limit)
    const base = ctx.base()
    const headers = pageHeaders(base, req.url, offset, limit, rows.length, total)
    return { status: 200, body: rows.map((a) => assetToApi(a, base)), headers }
  })

  router.add('GET', new RegExp(`^/api/asset/${ID}$`), async (req) => {
    const user = requireUser(ctx, req.raw)
    const asset = getAsset(ctx.db, req.params[0]!)
    if (!asset || asset.userId !== user.id) throw new HttpError(404, 'asset not found')
    return { status: 200, body: assetToApi(asset, ctx.base()) }
  })

  router.add('DELETE', new RegExp(`^/api/asset/${ID}$`), async (req) => {
    const user = requireUser(ctx, req.raw)
    const asset = getAsset(ctx.db, req.params[0]!)
    if (!asset || asset.userId !== user.id) throw new HttpError(404, 'asset not found')
    await ctx.clips.remove(asset)
    return { status: 204 }
  })
}

// /api/multistream/target: a user's multistream targets (create, list, get, patch, delete), as
// Livepeer Studio's controllers/multistream.ts answers them. The URL is write-only: no answer ever
// carries it. Another user's target is "not found".
import { requireUser, type StudioContext } from '../context'
import { pageHeaders, parseCursor, parseLimit, type Router } from '../http'
import { requireParsableUrl } from '../multistream'
import {
  deleteTarget,
  getOwnTarget,
  insertTarget,
  listTargets,
  newTarget,
  targetToApi,
  updateTarget
} from '../multistream-store'
import { checkTargetCreate, checkTargetPatch, HttpError } from '../validate'

// Target ids are made here (UUIDs), but any id the client sends is only looked up, never trusted.
const TARGET_ID = '([^/]{1,200})'

export function multistreamRoutes(router: Router, ctx: StudioContext): void {
  router.add('GET', /^\/api\/multistream\/target\/?$/, async (req) => {
    const user = requireUser(ctx, req.raw)
    // The reference lists by ?userId= (its own id only, 403 otherwise). Its OpenAPI documents the
    // list without it, so no userId means the caller's own list here.
    const userId = req.url.searchParams.get('userId')
    if (userId && userId !== user.id)
      throw new HttpError(403, 'users can only access their own multistream targets')
    const limit = parseLimit(req.url)
    const offset = parseCursor(req.url)
    const { rows, total } = listTargets(ctx.db, user.id, offset, limit)
    const headers = pageHeaders(ctx.base(), req.url, offset, limit, rows.length, total)
    return { status: 200, body: rows.map(targetToApi), headers }
  })

  router.add('POST', /^\/api\/multistream\/target\/?$/, async (req) => {
    const user = requireUser(ctx, req.raw)
    const body = checkTargetCreate(await req.body())
    requireParsableUrl(body.url)
    const t = newTarget(user.id, { name: body.name, url: body.url, disabled: body.disabled })
    insertTarget(ctx.db, t)
    return { status: 201, body: targetToApi(t) }
  })

  router.add('GET', new RegExp(`^/api/multistream/target/${TARGET_ID}$`), async (req) => {
    const user = requireUser(ctx, req.raw)
    const t = getOwnTarget(ctx.db, user.id, req.params[0]!)
    if (!t) throw new HttpError(404, 'not found')
    return { status: 200, body: targetToApi(t) }
  })

  router.add('PATCH', new RegExp(`^/api/multistream/target/${TARGET_ID}$`), async (req) => {
    const user = requireUser(ctx, req.raw)
    const body = checkTargetPatch((await req.body()) ?? {})
    const t = getOwnTarget(ctx.db, user.id, req.params[0]!)
    if (!t) throw new HttpError(404, 'not found')
    // The reference applies a boolean disabled, a non-empty name and a non-empty url.
    const patch: { name?: string; url?: string; disabled?: boolean } = {}
    if (typeof body.disabled === 'boolean') patch.disabled = body.disabled
    if (body.name) patch.name = body.name
    if (body.url) {
      requireParsableUrl(body.url)
      patch.url = body.url
    }
    if (Object.keys(patch).length > 0) {
      updateTarget(ctx.db, t.id, patch)
      // Disabled, enabled, renamed or moved: live streams that push to it follow at once.
      ctx.live.multistreamChanged(user.id)
    }
    return { status: 204 }
  })

  router.add('DELETE', new RegExp(`^/api/multistream/target/${TARGET_ID}$`), async (req) => {
    const user = requireUser(ctx, req.raw)
    const t = getOwnTarget(ctx.db, user.id, req.params[0]!)
    if (!t) throw new HttpError(404, 'not found')
    // As the reference: streams may still name it (their forwarders to it stop now).
    deleteTarget(ctx.db, t.id)
    ctx.live.multistreamChanged(user.id)
    return { status: 204 }
  })
}

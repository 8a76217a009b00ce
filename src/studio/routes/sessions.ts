// /api/session and /api/stream/{parentId}/sessions: the key owner's sessions only, newest first.
import { requireUser, type StudioContext } from '../context'
import { pageHeaders, parseCursor, parseLimit, type Router } from '../http'
import { getSession, listParentSessions, listUserSessions, sessionToApi } from '../session-store'
import { getOwnStream } from '../stream-store'
import { HttpError } from '../validate'
import { ID } from './streams'

function recordFilter(v: string | null): boolean | undefined {
  if (v === null || v === '') return undefined
  if (v === '1' || v === 'true') return true
  if (v === '0' || v === 'false') return false
  throw new HttpError(400, 'record must be one of 1, 0, true, false')
}

export function sessionRoutes(router: Router, ctx: StudioContext): void {
  router.add('GET', /^\/api\/session\/?$/, async (req) => {
    const user = requireUser(ctx, req.raw)
    const limit = parseLimit(req.url)
    const offset = parseCursor(req.url)
    const { rows, total } = listUserSessions(ctx.db, user.id, offset, limit)
    const base = ctx.base()
    const headers = pageHeaders(base, req.url, offset, limit, rows.length, total)
    return { status: 200, body: rows.map((s) => sessionToApi(s, base)), headers }
  })

  router.add('GET', new RegExp(`^/api/session/${ID}$`), async (req) => {
    const user = requireUser(ctx, req.raw)
    const s = getSession(ctx.db, req.params[0]!)
    if (!s || s.userId !== user.id) throw new HttpError(404, 'not found')
    return { status: 200, body: sessionToApi(s, ctx.base()) }
  })

  router.add('GET', new RegExp(`^/api/stream/${ID}/sessions$`), async (req) => {
    const user = requireUser(ctx, req.raw)
    const record = recordFilter(req.url.searchParams.get('record'))
    const limit = parseLimit(req.url)
    const offset = parseCursor(req.url)
    const parent = getOwnStream(ctx.db, user.id, req.params[0]!)
    if (!parent) throw new HttpError(404, 'not found')
    const { rows, total } = listParentSessions(ctx.db, parent.id, record, offset, limit)
    const base = ctx.base()
    const headers = pageHeaders(base, req.url, offset, limit, rows.length, total)
    return { status: 200, body: rows.map((s) => sessionToApi(s, base)), headers }
  })
}

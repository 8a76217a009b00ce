// /api/webhook: a user's webhooks (create, list, get, replace, delete) and each one's delivery log
// (list, one entry, resend), as Livepeer Studio's controllers/webhook.ts and webhook-log.ts answer
// them. The sharedSecret is write-only. Another user's webhook, or its log, is "not found".
import { requireUser, type StudioContext } from '../context'
import { pageHeaders, parseCursor, parseLimit, type Router } from '../http'
import { getOwnStream } from '../stream-store'
import { checkWebhook, HttpError } from '../validate'
import {
  deleteWebhook,
  getLog,
  getOwnWebhook,
  insertWebhook,
  listLogs,
  listWebhooks,
  replaceWebhook,
  webhookToApi,
  type WebhookInput,
  type WebhookRow
} from '../webhook-store'

// Webhook and log ids are made here (UUIDs), but any id the client sends is only looked up.
const ID = '([^/]{1,200})'

export function webhookRoutes(router: Router, ctx: StudioContext): void {
  /** The body as stored: checked, and a streamId must name one of the caller's streams. */
  const input = async (raw: unknown, userId: string): Promise<WebhookInput> => {
    const body = checkWebhook(raw)
    // The reference checks this on PATCH only; here on every write, so a webhook never names
    // a stream its owner cannot see.
    if (body.streamId) {
      const s = getOwnStream(ctx.db, userId, body.streamId)
      if (!s || s.deleted) throw new HttpError(404, 'stream not found')
    }
    return {
      name: body.name,
      url: body.url,
      events: body.events,
      ...(body.sharedSecret ? { sharedSecret: body.sharedSecret } : {}),
      ...(body.streamId ? { streamId: body.streamId } : {})
    }
  }

  const own = (userId: string, id: string): WebhookRow => {
    const w = getOwnWebhook(ctx.db, userId, id)
    if (!w) throw new HttpError(404, 'not found')
    return w
  }

  router.add('GET', /^\/api\/webhook\/?$/, async (req) => {
    const user = requireUser(ctx, req.raw)
    const limit = parseLimit(req.url)
    const offset = parseCursor(req.url)
    const { rows, total } = listWebhooks(ctx.db, user.id, offset, limit)
    const headers = pageHeaders(ctx.base(), req.url, offset, limit, rows.length, total)
    return { status: 200, body: rows.map(webhookToApi), headers }
  })

  router.add('POST', /^\/api\/webhook\/?$/, async (req) => {
    const user = requireUser(ctx, req.raw)
    const w = insertWebhook(ctx.db, user.id, await input(await req.body(), user.id))
    // 201, as the reference answers (its OpenAPI says 200).
    return { status: 201, body: webhookToApi(w) }
  })

  router.add('GET', new RegExp(`^/api/webhook/${ID}$`), async (req) => {
    const user = requireUser(ctx, req.raw)
    return { status: 200, body: webhookToApi(own(user.id, req.params[0]!)) }
  })

  router.add('PUT', new RegExp(`^/api/webhook/${ID}$`), async (req) => {
    const user = requireUser(ctx, req.raw)
    const body = await req.body()
    const w = own(user.id, req.params[0]!)
    const next = replaceWebhook(ctx.db, w, await input(body, user.id))
    return { status: 200, body: webhookToApi(next) }
  })

  router.add('DELETE', new RegExp(`^/api/webhook/${ID}$`), async (req) => {
    const user = requireUser(ctx, req.raw)
    deleteWebhook(ctx.db, own(user.id, req.params[0]!).id)
    return { status: 204 }
  })

  router.add('GET', new RegExp(`^/api/webhook/${ID}/log/?$`), async (req) => {
    const user = requireUser(ctx, req.raw)
    const w = getOwnWebhook(ctx.db, user.id, req.params[0]!)
    if (!w) throw new HttpError(404, 'webhook not found')
    const limit = parseLimit(req.url)
    const offset = parseCursor(req.url)
    const { rows, total } = listLogs(ctx.db, w.id, offset, limit)
    const headers = pageHeaders(ctx.base(), req.url, offset, limit, rows.length, total)
    return { status: 200, body: rows, headers }
  })

  const ownLog = (userId: string, id: string, logId: string) => {
    const w = getOwnWebhook(ctx.db, userId, id)
    if (!w) throw new HttpError(404, 'webhook not found')
    const entry = getLog(ctx.db, w.id, logId)
    if (!entry) throw new HttpError(404, 'webhook log not found')
    return { w, ...entry }
  }

  router.add('GET', new RegExp(`^/api/webhook/${ID}/log/${ID}$`), async (req) => {
    const user = requireUser(ctx, req.raw)
    return { status: 200, body: ownLog(user.id, req.params[0]!, req.params[1]!).log }
  })

  router.add('POST', new RegExp(`^/api/webhook/${ID}/log/${ID}/resend$`), async (req) => {
    const user = requireUser(ctx, req.raw)
    const { w, log, eventId } = ownLog(user.id, req.params[0]!, req.params[1]!)
    return { status: 200, body: await ctx.webhooks.resend(w, log, eventId) }
  })
}

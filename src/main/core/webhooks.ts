// Webhooks on the active service (#34 §7): list, add with a new signing secret, delete, the last
// deliveries and a resend. The secret is made here, sent once to the service (which never returns
// it) and answered once to the renderer; nothing logs it. A delivery keeps no headers or body: the
// headers carry the signature, the body is the service's own.
import { randomBytes } from 'node:crypto'
import type { OnairCalls } from '../../shared/contract'
import type { WebhookDelivery, WebhookView } from '../../shared/webhooks'
import type { ApiClient, ApiWebhook, ApiWebhookLog } from './api-client'

/** The deliveries shown: the newest of the service's log. */
const LAST_DELIVERIES = 20

type WebhookCalls = Pick<
  OnairCalls,
  | 'listWebhooks'
  | 'addWebhook'
  | 'deleteWebhook'
  | 'listWebhookDeliveries'
  | 'resendWebhookDelivery'
>

export function webhookCalls(client: () => Promise<ApiClient>): WebhookCalls {
  return {
    async listWebhooks() {
      const page = await (await client()).listWebhooks({ limit: 100 })
      return page.items.map(toWebhookView).sort((a, b) => b.createdAt - a.createdAt)
    },
    async addWebhook(args) {
      // 32 URL-safe characters, 192 bits: Livepeer signs with it (HMAC-SHA256).
      const secret = randomBytes(24).toString('base64url')
      const created = await (
        await client()
      ).createWebhook({
        name: args.name.trim(),
        url: args.url.trim(),
        events: args.events,
        sharedSecret: secret,
        ...(args.streamId ? { streamId: args.streamId } : {})
      })
      return { webhook: toWebhookView(created), secret }
    },
    deleteWebhook: async (id) => (await client()).deleteWebhook(id),
    async listWebhookDeliveries(webhookId) {
      const page = await (await client()).listWebhookLogs(webhookId, { limit: LAST_DELIVERIES })
      return page.items.map(toDelivery).sort((a, b) => b.createdAt - a.createdAt)
    },
    resendWebhookDelivery: async (webhookId, deliveryId) =>
      toDelivery(await (await client()).resendWebhookLog(webhookId, deliveryId))
  }
}

export function toWebhookView(w: ApiWebhook): WebhookView {
  const failure = w.status?.lastFailure
  return {
    id: w.id ?? '',
    name: w.name,
    url: w.url,
    events: w.events ?? [],
    ...(w.streamId ? { streamId: w.streamId } : {}),
    createdAt: w.createdAt ?? 0,
    ...(w.status?.lastTriggeredAt ? { lastTriggeredAt: w.status.lastTriggeredAt } : {}),
    ...(failure?.timestamp
      ? {
          lastFailure: {
            at: failure.timestamp,
            ...(failure.statusCode ? { statusCode: failure.statusCode } : {}),
            ...(failure.error ? { error: failure.error } : {})
          }
        }
      : {})
  }
}

export function toDelivery(l: ApiWebhookLog): WebhookDelivery {
  return {
    id: l.id,
    webhookId: l.webhookId,
    event: l.event ?? '',
    createdAt: l.createdAt ?? 0,
    success: l.success === true,
    ...(typeof l.response?.status === 'number' ? { status: l.response.status } : {}),
    ...(l.response?.statusText ? { statusText: l.response.statusText } : {}),
    ...(typeof l.duration === 'number' ? { durationMs: Math.round(l.duration * 1000) } : {})
  }
}

// The webhooks of the active service and one webhook's last deliveries, each with its own reload.
import { useApi } from '../../lib/api'
import { useResult, type Loaded } from '../../lib/use-result'
import type { WebhookDelivery, WebhookView } from '../../../../shared/webhooks'

export function useWebhooks(): Loaded<WebhookView[]> {
  const api = useApi()
  return useResult(() => api.listWebhooks(), [api])
}

export function useDeliveries(webhookId: string): Loaded<WebhookDelivery[]> {
  const api = useApi()
  return useResult(() => api.listWebhookDeliveries(webhookId), [api, webhookId])
}

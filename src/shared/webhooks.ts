// Webhooks (#34 §7): where the service POSTs a user's events, and the log of each delivery. What the
// renderer sees of them: never the signing secret, which is made by the app, sent once to the service
// (write-only there) and shown to the creator once, on creation. Pure: both sides use it.

/** Livepeer's webhook events (its OpenAPI webhook.events enum), in its order. */
export const WEBHOOK_EVENTS = [
  'stream.started',
  'stream.detection',
  'stream.idle',
  'recording.ready',
  'recording.started',
  'recording.waiting',
  'multistream.connected',
  'multistream.error',
  'multistream.disconnected',
  'playback.user.new',
  'playback.accessControl',
  'asset.created',
  'asset.updated',
  'asset.failed',
  'asset.ready',
  'asset.deleted',
  'task.spawned',
  'task.updated',
  'task.completed',
  'task.failed'
] as const

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number]

/** Bounds the contract checks before anything reaches the service. */
export const WEBHOOK_LIMITS = { name: 200, url: 2048 } as const

export interface WebhookView {
  id: string
  name: string
  url: string
  events: string[]
  /** Only this stream's events, when set. */
  streamId?: string
  createdAt: number
  /** When the service last sent it something, and its last failure (kept after a later success). */
  lastTriggeredAt?: number
  lastFailure?: { at: number; statusCode?: number; error?: string }
}

/** One delivery attempt, as the service's webhook log keeps it (no headers: they carry the signature). */
export interface WebhookDelivery {
  id: string
  webhookId: string
  event: string
  createdAt: number
  success: boolean
  /** The receiver's HTTP status; absent when nothing answered. */
  status?: number
  statusText?: string
  durationMs?: number
}

export interface AddWebhookArgs {
  name: string
  url: string
  events: WebhookEvent[]
  streamId?: string
}

/** A new webhook and its signing secret: the only time the secret leaves the main process. */
export interface AddedWebhook {
  webhook: WebhookView
  secret: string
}

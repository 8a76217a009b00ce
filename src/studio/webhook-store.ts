// Webhooks in SQLite: where a user's stream events are POSTed (Livepeer's /webhook), and the log of
// each delivery attempt (/webhook/{id}/log). The shared secret stays in its own column: the API never
// returns it (the schema marks it writeOnly), it only signs deliveries.
import { randomUUID } from 'node:crypto'
import type { Db } from './db'

/** What the webhook table keeps besides its keys: Livepeer's webhook fields. */
export interface WebhookDoc {
  name: string
  url: string
  events: string[]
  streamId?: string
  status?: WebhookStatus
}

/** Livepeer's webhook.status: when it was last triggered, and its last failure. */
export interface WebhookStatus {
  lastTriggeredAt?: number
  lastFailure?: {
    timestamp: number
    statusCode?: number
    error?: string
    /** The receiver's answer, base64 (as Livepeer stores it), at most 1 KiB of it. */
    response?: string
  }
}

export interface WebhookRow {
  id: string
  userId: string
  createdAt: number
  sharedSecret: string | null
  doc: WebhookDoc
}

interface RawRow {
  id: string
  user_id: string
  created_at: number
  shared_secret: string | null
  doc: string
}

const COLS = 'id, user_id, created_at, shared_secret, doc'

const fromRaw = (r: RawRow): WebhookRow => ({
  id: r.id,
  userId: r.user_id,
  createdAt: r.created_at,
  sharedSecret: r.shared_secret,
  doc: JSON.parse(r.doc) as WebhookDoc
})

/** The webhook as the API returns it: Livepeer's fields, the write-only sharedSecret left out. */
export function webhookToApi(w: WebhookRow): Record<string, unknown> {
  return {
    id: w.id,
    name: w.doc.name,
    kind: 'webhook',
    userId: w.userId,
    projectId: '',
    createdAt: w.createdAt,
    events: w.doc.events,
    url: w.doc.url,
    ...(w.doc.streamId ? { streamId: w.doc.streamId } : {}),
    ...(w.doc.status ? { status: w.doc.status } : {})
  }
}

export interface WebhookInput {
  name: string
  url: string
  events: string[]
  sharedSecret?: string
  streamId?: string
}

export function insertWebhook(db: Db, userId: string, input: WebhookInput): WebhookRow {
  const row: WebhookRow = {
    id: randomUUID(),
    userId,
    createdAt: Date.now(),
    sharedSecret: input.sharedSecret ?? null,
    doc: docOf(input)
  }
  db.prepare(`INSERT INTO webhooks (${COLS}) VALUES (?, ?, ?, ?, ?)`).run(
    row.id,
    row.userId,
    row.createdAt,
    row.sharedSecret,
    JSON.stringify(row.doc)
  )
  return row
}

const docOf = (input: WebhookInput, status?: WebhookStatus): WebhookDoc => ({
  name: input.name,
  url: input.url,
  events: input.events,
  ...(input.streamId ? { streamId: input.streamId } : {}),
  ...(status ? { status } : {})
})

/** PUT: the whole webhook is replaced (a missing sharedSecret or streamId is removed); status stays. */
export function replaceWebhook(db: Db, w: WebhookRow, input: WebhookInput): WebhookRow {
  const doc = docOf(input, w.doc.status)
  const sharedSecret = input.sharedSecret ?? null
  db.prepare('UPDATE webhooks SET shared_secret = ?, doc = ? WHERE id = ?').run(
    sharedSecret,
    JSON.stringify(doc),
    w.id
  )
  return { ...w, sharedSecret, doc }
}

export function deleteWebhook(db: Db, id: string): void {
  // Its log goes with it (ON DELETE CASCADE).
  db.prepare('DELETE FROM webhooks WHERE id = ?').run(id)
}

/** This user's webhook, or undefined: another user's webhook looks absent. */
export function getOwnWebhook(db: Db, userId: string, id: string): WebhookRow | undefined {
  const r = db
    .prepare(`SELECT ${COLS} FROM webhooks WHERE id = ? AND user_id = ?`)
    .get(id, userId) as RawRow | undefined
  return r && fromRaw(r)
}

export function getWebhook(db: Db, id: string): WebhookRow | undefined {
  const r = db.prepare(`SELECT ${COLS} FROM webhooks WHERE id = ?`).get(id) as RawRow | undefined
  return r && fromRaw(r)
}

export function listWebhooks(
  db: Db,
  userId: string,
  offset: number,
  limit: number
): { rows: WebhookRow[]; total: number } {
  const rows = db
    .prepare(
      `SELECT ${COLS} FROM webhooks WHERE user_id = ?
       ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`
    )
    .all(userId, limit, offset) as RawRow[]
  const total = (
    db.prepare('SELECT count(*) AS n FROM webhooks WHERE user_id = ?').get(userId) as { n: number }
  ).n
  return { rows: rows.map(fromRaw), total }
}

/**
 * The user's webhooks that take `event` for this stream: subscribed to the event, and either
 * for every stream (no streamId) or for this one.
 */
export function listSubscribed(
  db: Db,
  userId: string,
  event: string,
  streamId: string | undefined
): WebhookRow[] {
  const rows = db
    .prepare(`SELECT ${COLS} FROM webhooks WHERE user_id = ? ORDER BY created_at, id`)
    .all(userId) as RawRow[]
  return rows
    .map(fromRaw)
    .filter((w) => w.doc.events.includes(event) && (!w.doc.streamId || w.doc.streamId === streamId))
}

/** Records one attempt's outcome in the webhook's status (Livepeer's storeTriggerStatus). */
export function setWebhookStatus(db: Db, id: string, status: WebhookStatus): void {
  const r = getWebhook(db, id)
  if (!r) return
  // As the reference's jsonb merge: a success keeps the last failure on record.
  const doc: WebhookDoc = { ...r.doc, status: { ...r.doc.status, ...status } }
  db.prepare('UPDATE webhooks SET doc = ? WHERE id = ?').run(JSON.stringify(doc), id)
}

// ---- The delivery log ----

/** One attempt, as GET /webhook/{id}/log answers it (Livepeer's webhook-log). */
export interface WebhookLog {
  id: string
  webhookId: string
  userId: string
  event: string
  createdAt: number
  /** Seconds the request took. */
  duration: number
  success: boolean
  request: { url: string; method: string; headers: Record<string, string>; body: string }
  response: { body: string; status?: number; statusText?: string }
}

/** How many attempts a webhook's log keeps: the newest; older ones are dropped as new ones come. */
export const WEBHOOK_LOG_KEEP = 200

export function insertLog(db: Db, log: WebhookLog, eventId: string): void {
  db.prepare(
    `INSERT INTO webhook_logs (id, webhook_id, user_id, event_id, created_at, doc)
     VALUES (?, ?, ?, ?, ?, ?)`
  ).run(log.id, log.webhookId, log.userId, eventId, log.createdAt, JSON.stringify(log))
  db.prepare(
    `DELETE FROM webhook_logs WHERE webhook_id = ? AND id NOT IN (
       SELECT id FROM webhook_logs WHERE webhook_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?)`
  ).run(log.webhookId, log.webhookId, WEBHOOK_LOG_KEEP)
}

export function listLogs(
  db: Db,
  webhookId: string,
  offset: number,
  limit: number
): { rows: WebhookLog[]; total: number } {
  const rows = db
    .prepare(
      `SELECT doc FROM webhook_logs WHERE webhook_id = ?
       ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`
    )
    .all(webhookId, limit, offset) as Array<{ doc: string }>
  const total = (
    db.prepare('SELECT count(*) AS n FROM webhook_logs WHERE webhook_id = ?').get(webhookId) as {
      n: number
    }
  ).n
  return { rows: rows.map((r) => JSON.parse(r.doc) as WebhookLog), total }
}

/** One entry of a webhook's log, with the id of the event it delivered (for a resend). */
export function getLog(
  db: Db,
  webhookId: string,
  logId: string
): { log: WebhookLog; eventId: string } | undefined {
  const r = db
    .prepare('SELECT doc, event_id FROM webhook_logs WHERE id = ? AND webhook_id = ?')
    .get(logId, webhookId) as { doc: string; event_id: string } | undefined
  return r && { log: JSON.parse(r.doc) as WebhookLog, eventId: r.event_id }
}

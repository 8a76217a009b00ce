// Webhook delivery (Livepeer's "webhook cannon", written anew for one machine): an event of a user's
// stream is POSTed to each of that user's webhooks subscribed to it, as Livepeer sends it:
//
//   {"id": <event id>, "webhookId", "createdAt": <event time>, "timestamp": <this attempt's time>,
//    "event": "stream.started", "stream": <the stream, without its key>, "payload": {...}}
//
// signed when the webhook has a sharedSecret with `Livepeer-Signature: t=<timestamp>,v1=<hex>`, where
// <hex> is HMAC-SHA256 of the raw body with the secret and <timestamp> is the body's own `timestamp`
// (Livepeer signs the body alone; the timestamp is inside it). A receiver that answers 5xx, times
// out or cannot be reached is tried again with WEBHOOK_BACKOFF, at most WEBHOOK_MAX_ATTEMPTS times;
// a 2xx is delivered; any other answer is final. Every attempt is kept in the webhook's log and
// its status (lastTriggeredAt, lastFailure).
//
// Nothing here is on the media path: emit() only reads a few rows and starts the requests; the
// requests run on their own, each bounded by a timeout, and an error never leaves this module.
import { createHmac, randomUUID } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { backoffDelay, type Backoff } from '../shared/backoff'
import { urlForError } from '../shared/redact'
import type { Db } from './db'
import { getSession, sessionToApi } from './session-store'
import { getOwnStream, streamToApi } from './stream-store'
import {
  getWebhook,
  insertLog,
  listSubscribed,
  setWebhookStatus,
  type WebhookLog,
  type WebhookRow
} from './webhook-store'

/** The events the local studio sends (the schema accepts Livepeer's whole list on a webhook). */
export type StudioEventName =
  | 'stream.started'
  | 'stream.idle'
  | 'recording.ready'
  | 'multistream.connected'
  | 'multistream.error'
  | 'multistream.disconnected'
  | 'asset.created'
  | 'asset.updated'
  | 'asset.ready'
  | 'asset.failed'

export interface StudioEvent {
  event: StudioEventName
  userId: string
  /** The stream concerned; none for an asset's events (they carry the asset in their payload). */
  streamId?: string
  sessionId?: string
  payload?: Record<string, unknown>
}

export type EmitEvent = (e: StudioEvent) => void

/**
 * Retries: 1 s, 2 s, 4 s ... capped at 60 s, ±20 %; with WEBHOOK_MAX_ATTEMPTS = 10 the last one is
 * about 4 minutes after the first. Livepeer waits 5 s × 2ⁿ up to an hour, 33 times: a studio on one
 * machine keeps its retries in memory, so it gives up sooner.
 */
export const WEBHOOK_BACKOFF: Backoff = { initialMs: 1000, factor: 2, capMs: 60_000, jitter: 0.2 }
export const WEBHOOK_MAX_ATTEMPTS = 10
/** A receiver that has not answered in this long has failed this attempt (Livepeer: 30 s). */
export const WEBHOOK_TIMEOUT_MS = 10_000
/** Deliveries waiting or in flight at once; past this, new ones are dropped (and logged). */
export const WEBHOOK_MAX_PENDING = 500
/** How much of a receiver's answer is read and kept (base64 in the log and lastFailure). */
const RESPONSE_KEEP_BYTES = 1024
export const SIGNATURE_HEADER = 'Livepeer-Signature'
const USER_AGENT = 'onair-local-studio'

/** Livepeer's signature header: v1 is hex HMAC-SHA256 of the raw body, t the body's timestamp. */
export function signatureHeader(body: string, secret: string, timestamp: number): string {
  const v1 = createHmac('sha256', secret).update(body).digest('hex')
  return `t=${timestamp},v1=${v1}`
}

export interface WebhooksOptions {
  db: Db
  /** http://HOST:PORT, for the URLs in a recording.ready payload. */
  base: () => string
  log: (line: string) => void
  timeoutMs?: number
  backoff?: Backoff
  maxAttempts?: number
}

/** One event for one webhook. The body is made again at each attempt (a new timestamp). */
interface Delivery {
  webhookId: string
  eventId: string
  event: string
  createdAt: number
  stream?: Record<string, unknown>
  payload?: Record<string, unknown>
}

interface AttemptResult {
  log: WebhookLog
  /** Worth another attempt: no answer, or a 5xx. */
  retry: boolean
  why: string
}

const later = (ms: number, timers: Set<NodeJS.Timeout>, fn: () => void): void => {
  const t = setTimeout(() => {
    timers.delete(t)
    fn()
  }, ms)
  timers.add(t)
}

export class Webhooks {
  private readonly timers = new Set<NodeJS.Timeout>()
  private readonly inflight = new Map<Promise<unknown>, AbortController>()
  private pending = 0
  private stopping = false
  /** Events of the studio's start (recovered sessions), held until its address is known. */
  private held: StudioEvent[] | undefined = []

  constructor(private readonly o: WebhooksOptions) {}

  /** The studio listens: what was held is sent, and from now on every event at once. */
  start(): void {
    const held = this.held ?? []
    this.held = undefined
    for (const e of held) this.emit(e)
  }

  /**
   * An event happened: each subscribed webhook of the user gets it. Never throws and never waits:
   * the caller is the live path.
   */
  readonly emit: EmitEvent = (e) => {
    if (this.stopping) return
    if (this.held) {
      this.held.push(e)
      return
    }
    try {
      const hooks = listSubscribed(this.o.db, e.userId, e.event, e.streamId)
      if (hooks.length === 0) return
      const row = e.streamId ? getOwnStream(this.o.db, e.userId, e.streamId) : undefined
      let stream: Record<string, unknown> | undefined
      if (row) {
        // As Livepeer: the stream as it is now, without its key.
        const { streamKey: _key, ...rest } = streamToApi(row)
        stream = rest
      }
      const base = {
        eventId: randomUUID(),
        event: e.event,
        createdAt: Date.now(),
        stream,
        payload: e.payload ?? this.payloadOf(e)
      }
      for (const w of hooks) this.deliver({ ...base, webhookId: w.id }, 1)
    } catch (err) {
      this.o.log(
        `webhooks: ${e.event} of ${e.streamId ?? 'an asset'} not sent: ${(err as Error).message}`
      )
    }
  }

  /** Sends a logged request again now, once, with a new timestamp (POST .../resend). */
  async resend(w: WebhookRow, log: WebhookLog, eventId: string): Promise<WebhookLog> {
    const old = JSON.parse(log.request.body) as Record<string, unknown>
    const d: Delivery = {
      webhookId: w.id,
      eventId,
      event: log.event,
      createdAt: typeof old.createdAt === 'number' ? old.createdAt : log.createdAt,
      stream: old.stream as Record<string, unknown> | undefined,
      payload: old.payload as Record<string, unknown> | undefined
    }
    const result = await this.attempt(w, d)
    return result.log
  }

  /**
   * Stops sending: no new attempt or retry; requests in flight get `graceMs` to finish (the
   * studio's last events, stream.idle and recording.ready, are sent as it stops), then are cut.
   * Pending retries are forgotten (they live in memory only).
   */
  async stop(graceMs = 2000): Promise<void> {
    this.stopping = true
    for (const t of this.timers) clearTimeout(t)
    this.timers.clear()
    const all = [...this.inflight.keys()]
    if (all.length === 0) return
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      Promise.allSettled(all),
      new Promise((r) => (timer = setTimeout(r, graceMs)))
    ])
    clearTimeout(timer)
    for (const c of this.inflight.values()) c.abort(new Error('the studio is stopping'))
    await Promise.allSettled(all)
  }

  /** recording.ready carries the session and its URLs, as Livepeer's does. */
  private payloadOf(e: StudioEvent): Record<string, unknown> | undefined {
    if (e.event !== 'recording.ready' || !e.sessionId) return undefined
    const s = getSession(this.o.db, e.sessionId)
    if (!s) return undefined
    const session = sessionToApi(s, this.o.base())
    return {
      recordingUrl: session.recordingUrl,
      mp4Url: session.mp4Url,
      session: { ...session, recordingStatus: 'ready' }
    }
  }

  private deliver(d: Delivery, attempt: number): void {
    if (this.stopping) return
    if (attempt === 1) {
      if (this.pending >= WEBHOOK_MAX_PENDING) {
        this.o.log(
          `webhooks: ${d.event} for webhook ${d.webhookId} dropped: ${WEBHOOK_MAX_PENDING} deliveries are already waiting`
        )
        return
      }
      this.pending++
    }
    const done = (): void => {
      this.pending--
    }
    const w = getWebhook(this.o.db, d.webhookId)
    // Deleted since: nothing to send.
    if (!w) return done()
    void this.attempt(w, d)
      .then((r) => {
        const max = this.o.maxAttempts ?? WEBHOOK_MAX_ATTEMPTS
        const where = `webhook ${w.id} (${urlForError(w.doc.url)})`
        if (!r.retry) {
          if (!r.log.success) this.o.log(`webhooks: ${d.event} to ${where} failed: ${r.why}`)
          return done()
        }
        if (attempt >= max || this.stopping) {
          this.o.log(
            `webhooks: ${d.event} to ${where} failed ${attempt} times, giving up: ${r.why}`
          )
          return done()
        }
        const delay = backoffDelay(attempt, this.o.backoff ?? WEBHOOK_BACKOFF)
        this.o.log(
          `webhooks: ${d.event} to ${where} failed (${r.why}); retrying in ${delay} ms (attempt ${attempt + 1})`
        )
        // Still pending: the retry counts against WEBHOOK_MAX_PENDING until it ends.
        later(delay, this.timers, () => this.deliver(d, attempt + 1))
      })
      .catch((err: Error) => {
        done()
        this.o.log(`webhooks: ${d.event} to webhook ${w.id} not recorded: ${err.message}`)
      })
  }

  /** One POST, its log entry and the webhook's status. */
  private async attempt(w: WebhookRow, d: Delivery): Promise<AttemptResult> {
    const timestamp = Date.now()
    const body = JSON.stringify({
      id: d.eventId,
      webhookId: w.id,
      createdAt: d.createdAt,
      timestamp,
      event: d.event,
      stream: d.stream,
      payload: d.payload
    })
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT
    }
    if (w.sharedSecret) headers[SIGNATURE_HEADER] = signatureHeader(body, w.sharedSecret, timestamp)
    const ctl = new AbortController()
    const timeoutMs = this.o.timeoutMs ?? WEBHOOK_TIMEOUT_MS
    const timer = setTimeout(
      () => ctl.abort(new Error(`no answer within ${timeoutMs / 1000} s`)),
      timeoutMs
    )
    const started = performance.now()
    let status: number | undefined
    let statusText: string | undefined
    let answer = ''
    let error: string | undefined
    const request = (async () => {
      try {
        // Redirects are not followed: the answer is the receiver's, 3xx included (a failure).
        const res = await fetch(w.doc.url, {
          method: 'POST',
          headers,
          body,
          redirect: 'manual',
          signal: ctl.signal
        })
        status = res.status
        statusText = res.statusText
        answer = await readCapped(res, RESPONSE_KEEP_BYTES)
      } catch (err) {
        error = failureText(err, ctl.signal)
      } finally {
        clearTimeout(timer)
      }
    })()
    this.inflight.set(request, ctl)
    try {
      await request
    } finally {
      this.inflight.delete(request)
    }
    const success = status !== undefined && status >= 200 && status < 300
    const log: WebhookLog = {
      id: randomUUID(),
      webhookId: w.id,
      userId: w.userId,
      event: d.event,
      createdAt: Date.now(),
      duration: Math.round(performance.now() - started) / 1000,
      success,
      request: { url: w.doc.url, method: 'POST', headers, body },
      response: {
        body: Buffer.from(answer).toString('base64'),
        ...(status !== undefined ? { status, statusText: statusText ?? '' } : {})
      }
    }
    insertLog(this.o.db, log, d.eventId)
    setWebhookStatus(this.o.db, w.id, {
      lastTriggeredAt: timestamp,
      ...(success
        ? {}
        : {
            lastFailure: {
              timestamp,
              ...(status !== undefined ? { statusCode: status } : {}),
              ...(error ? { error } : {}),
              response: log.response.body
            }
          })
    })
    const why = error ?? `HTTP ${status}`
    return { log, retry: !success && (status === undefined || status >= 500), why }
  }
}

/** The first `max` bytes of an answer as text; the rest is not read. */
async function readCapped(res: Response, max: number): Promise<string> {
  if (!res.body) return ''
  const reader = res.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    while (size < max) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
      size += value.byteLength
    }
  } finally {
    await reader.cancel().catch(() => undefined)
  }
  return Buffer.concat(chunks).subarray(0, max).toString('utf8')
}

/** Why a request got no answer, in a short phrase (fetch hides the cause under "fetch failed"). */
function failureText(err: unknown, signal: AbortSignal): string {
  if (signal.aborted) return String((signal.reason as Error)?.message ?? 'aborted')
  const cause = (err as { cause?: { message?: string } })?.cause
  return String(cause?.message ?? (err as Error)?.message ?? err).slice(0, 300)
}

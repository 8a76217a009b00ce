// Typed client for a Livepeer-Studio-compatible API: Livepeer Studio itself or the local studio,
// with the same code. Expected failures throw AppFailure with a cause a person understands; the API
// key never appears in a message.
import type { components } from '../../shared/api/schema'
import type { IngestView, Page, PageArgs } from '../../shared/contract'
import type { Profile } from '../../shared/profiles'
import { AppFailure } from '../../shared/result'
import { targetUrlSecrets } from '../../shared/redact'
import { mapHttpError, mapNetworkError } from './api-errors'
import { sharedTransport, type HttpTransport, type TransportReply } from './http-transport'
import type { ApiAsset, ApiPlayback, ApiSession, ApiStream } from './view-models'

type IngestPoint = {
  ingest?: string
  playback?: string
  base?: string
  ingests?: { rtmp?: string; srt?: string }
}
type NewStream = components['schemas']['new-stream-payload']
export type ApiTarget = components['schemas']['multistream-target']
type TargetAdd = components['schemas']['target-add-payload']
type ClipPayload = components['schemas']['clip-payload']
export type ApiWebhook = components['schemas']['webhook']
export type ApiWebhookLog = components['schemas']['webhook-log']

export const LIVEPEER_API = 'https://livepeer.studio/api'
/** Used when a service does not answer GET /ingest: Livepeer's public addresses. */
export const LIVEPEER_INGEST: IngestView = {
  rtmp: 'rtmp://rtmp.livepeer.com/live',
  playbackBase: 'https://livepeercdn.studio/hls'
}

export interface ApiClientOptions {
  baseUrl: string
  apiKey?: string
  timeoutMs?: number
  /** Default: the process's shared transport (keep-alive pools, the reset retry rules). */
  transport?: HttpTransport
}

type Reply = TransportReply

export class ApiClient {
  readonly baseUrl: string
  private readonly timeoutMs: number

  constructor(private readonly o: ApiClientOptions) {
    this.baseUrl = o.baseUrl.replace(/\/+$/, '')
    this.timeoutMs = o.timeoutMs ?? 15_000
  }

  // ---- streams ----
  async listStreams(args: PageArgs = {}): Promise<Page<ApiStream>> {
    const q = pageQuery(args, { streamsonly: '1', count: '1' })
    const r = await this.call('GET', `/stream?${q}`, 'stream list')
    return pageOf<ApiStream>(r)
  }

  getStream(id: string): Promise<ApiStream> {
    return this.json('GET', `/stream/${enc(id)}`, 'stream')
  }

  /**
   * Livepeer's stream health (livepeer-data: `{healthy, conditions: [{type, status}], multistream}`)
   * for an active stream; null when the service has no such endpoint (404).
   */
  async getStreamHealth(id: string): Promise<unknown> {
    try {
      return await this.json<unknown>('GET', `/data/stream/${enc(id)}/health`, 'stream')
    } catch (e) {
      if (e instanceof AppFailure && e.error.status === 404) return null
      throw e
    }
  }

  /**
   * Viewers of a playbackId now (GET /data/views/now, Livepeer's realtime viewership): the sum of
   * the metrics' viewCount. null when the service has no such endpoint (404).
   */
  async viewersNow(playbackId: string): Promise<number | null> {
    let metrics: unknown
    try {
      metrics = await this.json<unknown>(
        'GET',
        `/data/views/now?playbackId=${enc(playbackId)}`,
        'viewer count'
      )
    } catch (e) {
      if (e instanceof AppFailure && e.error.status === 404) return null
      throw e
    }
    if (!Array.isArray(metrics)) return null
    return metrics.reduce(
      (n: number, m: { viewCount?: unknown }) =>
        n + (typeof m?.viewCount === 'number' && m.viewCount > 0 ? m.viewCount : 0),
      0
    )
  }

  createStream(args: { name: string; profiles: Profile[]; record: boolean }): Promise<ApiStream> {
    const body: NewStream = { name: args.name, profiles: args.profiles, record: args.record }
    return this.json('POST', '/stream', 'stream', body)
  }

  /** PATCH answers 204 without a body: read the stream back. */
  async updateStream(
    id: string,
    patch: { name?: string; profiles?: Profile[] }
  ): Promise<ApiStream> {
    await this.call('PATCH', `/stream/${enc(id)}`, 'stream', patch)
    return this.getStream(id)
  }

  async setRecord(id: string, record: boolean): Promise<ApiStream> {
    await this.call('PATCH', `/stream/${enc(id)}/record`, 'stream', { record })
    return this.getStream(id)
  }

  async deleteStream(id: string): Promise<void> {
    await this.call('DELETE', `/stream/${enc(id)}`, 'stream')
  }

  async terminateStream(id: string): Promise<void> {
    await this.call('DELETE', `/stream/${enc(id)}/terminate`, 'stream')
  }

  // ---- multistream targets (destinations) ----
  /**
   * A page of the user's targets. Livepeer lists them only by `userId` (its own id, which a stream's
   * answer carries): without it a customer key gets 400 `required query parameter: userId`.
   */
  async listTargets(userId: string, args: PageArgs = {}): Promise<Page<ApiTarget>> {
    const r = await this.call(
      'GET',
      `/multistream/target?${pageQuery(args, { userId })}`,
      'destination'
    )
    return pageOf<ApiTarget>(r)
  }

  getTarget(id: string): Promise<ApiTarget> {
    return this.json('GET', `/multistream/target/${enc(id)}`, 'destination')
  }

  /**
   * Creates a target from `spec` and adds it to the stream in one request. Livepeer answers 200 with
   * the target (its URL stripped); its OpenAPI file says 204 without a body, so the target is optional.
   * The URL carries the stream key: a service error quoting it is redacted before it goes anywhere.
   */
  async addStreamTarget(
    streamId: string,
    t: { name: string; url: string; profile: string; videoOnly: boolean }
  ): Promise<ApiTarget | undefined> {
    const body: TargetAdd = {
      profile: t.profile,
      videoOnly: t.videoOnly,
      spec: { name: t.name, url: t.url }
    }
    const path = `/stream/${enc(streamId)}/create-multistream-target`
    const r = await this.call('POST', path, 'stream', body, targetUrlSecrets(t.url))
    try {
      const target = JSON.parse(r.body) as ApiTarget
      return typeof target?.id === 'string' ? target : undefined
    } catch {
      return undefined
    }
  }

  /** PATCH answers 204; a disabled target stays on the stream but is not pushed to. */
  async setTargetDisabled(id: string, disabled: boolean): Promise<void> {
    await this.call('PATCH', `/multistream/target/${enc(id)}`, 'destination', { disabled })
  }

  /** Takes the target off the stream (the target object itself stays until deleteTarget). */
  async removeStreamTarget(streamId: string, targetId: string): Promise<void> {
    await this.call('DELETE', `/stream/${enc(streamId)}/multistream/${enc(targetId)}`, 'stream')
  }

  async deleteTarget(id: string): Promise<void> {
    await this.call('DELETE', `/multistream/target/${enc(id)}`, 'destination')
  }

  // ---- sessions ----
  async listSessions(args: PageArgs = {}): Promise<Page<ApiSession>> {
    const r = await this.call('GET', `/session?${pageQuery(args, { count: '1' })}`, 'session list')
    return pageOf<ApiSession>(r)
  }

  /**
   * One stream's sessions. Livepeer applies limit/cursor here but sets no Link header; its cursor
   * is `skip<N>`, so a full page gets the next skip cursor (an empty last page at worst).
   */
  async listStreamSessions(streamId: string, args: PageArgs = {}): Promise<Page<ApiSession>> {
    const q = pageQuery(args, {})
    const r = await this.call('GET', `/stream/${enc(streamId)}/sessions?${q}`, 'stream')
    const page = pageOf<ApiSession>(r)
    if (!page.next && args.limit && page.items.length >= args.limit) {
      const skip = /^skip(\d+)$/.exec(args.cursor ?? 'skip0')
      if (skip) page.next = `skip${Number(skip[1]) + page.items.length}`
    }
    return page
  }

  getSession(id: string): Promise<ApiSession> {
    return this.json('GET', `/session/${enc(id)}`, 'session')
  }

  // ---- clips (assets) ----
  /** POST /clip answers {asset, task}: the asset, waiting until the service has cut it. */
  async createClip(body: ClipPayload): Promise<ApiAsset> {
    const r = await this.json<{ asset?: ApiAsset }>('POST', '/clip', 'clip', body)
    if (!r?.asset?.id)
      throw new AppFailure({
        code: 'service',
        message: 'The service did not answer with the clip.'
      })
    return r.asset
  }

  /**
   * POST /asset/request-upload answers {url, tusEndpoint, asset, task}: the asset, waiting for its
   * file, and where the file goes (tus).
   */
  async requestUpload(name: string): Promise<{ tusEndpoint: string; asset: ApiAsset }> {
    const r = await this.json<{ tusEndpoint?: string; asset?: ApiAsset }>(
      'POST',
      '/asset/request-upload',
      'asset',
      { name }
    )
    if (!r?.asset?.id || typeof r.tusEndpoint !== 'string')
      throw new AppFailure({
        code: 'service',
        message: 'The service did not answer with the asset and its upload address.'
      })
    return { tusEndpoint: r.tusEndpoint, asset: r.asset }
  }

  getAsset(id: string): Promise<ApiAsset> {
    return this.json('GET', `/asset/${enc(id)}`, 'clip')
  }

  async listClips(by: { streamId: string; sessionId?: string }): Promise<ApiAsset[]> {
    const path = by.sessionId
      ? `/session/${enc(by.sessionId)}/clips`
      : `/stream/${enc(by.streamId)}/clips`
    const list = await this.json<ApiAsset[]>('GET', path, by.sessionId ? 'session' : 'stream')
    return Array.isArray(list) ? list : []
  }

  async deleteAsset(id: string): Promise<void> {
    await this.call('DELETE', `/asset/${enc(id)}`, 'clip')
  }

  // ---- webhooks ----
  async listWebhooks(args: PageArgs = {}): Promise<Page<ApiWebhook>> {
    const r = await this.call('GET', `/webhook?${pageQuery(args, {})}`, 'webhook list')
    return pageOf<ApiWebhook>(r)
  }

  /**
   * The secret signs every delivery; the URL may carry a token of its own (a chat service's
   * webhook address): neither appears in an error text.
   */
  createWebhook(body: ApiWebhook & { sharedSecret: string }): Promise<ApiWebhook> {
    return this.jsonWith('POST', '/webhook', 'webhook', body, [body.sharedSecret, body.url])
  }

  async deleteWebhook(id: string): Promise<void> {
    await this.call('DELETE', `/webhook/${enc(id)}`, 'webhook')
  }

  async listWebhookLogs(id: string, args: PageArgs = {}): Promise<Page<ApiWebhookLog>> {
    const r = await this.call('GET', `/webhook/${enc(id)}/log?${pageQuery(args, {})}`, 'webhook')
    return pageOf<ApiWebhookLog>(r)
  }

  resendWebhookLog(id: string, logId: string): Promise<ApiWebhookLog> {
    return this.json('POST', `/webhook/${enc(id)}/log/${enc(logId)}/resend`, 'webhook log')
  }

  // ---- playback & ingest (no key needed) ----
  getPlayback(playbackId: string): Promise<ApiPlayback> {
    return this.json('GET', `/playback/${enc(playbackId)}`, 'playback')
  }

  async getIngest(): Promise<IngestView> {
    const points = await this.json<IngestPoint[]>('GET', '/ingest', 'ingest list')
    const p = Array.isArray(points) ? points[0] : undefined
    const rtmp = p?.ingests?.rtmp ?? p?.ingest
    const playbackBase = p?.playback ?? (p?.base ? `${p.base}/hls` : undefined)
    if (!rtmp || !playbackBase)
      throw new AppFailure({
        code: 'service',
        message: 'The service did not say where to send video (GET /ingest had no RTMP address).'
      })
    return { rtmp: rtmp.replace(/\/+$/, ''), playbackBase: playbackBase.replace(/\/+$/, '') }
  }

  /** A cheap authenticated call: proves the key works before it is saved. */
  async checkKey(): Promise<void> {
    await this.call('GET', '/stream?streamsonly=1&limit=1', 'stream list')
  }

  // ---- plumbing ----
  private json<T>(method: string, path: string, what: string, body?: unknown): Promise<T> {
    return this.jsonWith(method, path, what, body, [])
  }

  private async jsonWith<T>(
    method: string,
    path: string,
    what: string,
    body: unknown,
    secrets: readonly string[]
  ): Promise<T> {
    const r = await this.call(method, path, what, body, secrets)
    try {
      return JSON.parse(r.body) as T
    } catch {
      throw new AppFailure({
        code: 'service',
        status: r.status,
        message: `The service answered with something that is not JSON (HTTP ${r.status}).`
      })
    }
  }

  private async call(
    method: string,
    path: string,
    what: string,
    body?: unknown,
    /** More secrets than the API key that an error text must not carry (a target URL and its key). */
    secrets: readonly string[] = []
  ): Promise<Reply> {
    const url = `${this.baseUrl}${path}`
    const headers: Record<string, string> = { accept: 'application/json' }
    if (this.o.apiKey) headers.authorization = `Bearer ${this.o.apiKey}`
    if (body !== undefined) headers['content-type'] = 'application/json'
    let res: TransportReply
    try {
      res = await (this.o.transport ?? sharedTransport).request(
        method,
        url,
        headers,
        body === undefined ? undefined : JSON.stringify(body),
        this.timeoutMs
      )
    } catch (e) {
      throw new AppFailure(mapNetworkError(e, hostOf(this.baseUrl), this.timeoutMs))
    }
    const text = res.body
    if (res.status >= 400)
      throw new AppFailure(
        mapHttpError({
          status: res.status,
          body: text,
          retryAfter: res.headers.get('retry-after'),
          what,
          secrets: [...(this.o.apiKey ? [this.o.apiKey] : []), ...secrets]
        })
      )
    return { status: res.status, headers: res.headers, body: text }
  }
}

const enc = encodeURIComponent

function hostOf(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return url
  }
}

function pageQuery(args: PageArgs, extra: Record<string, string>): string {
  const q = new URLSearchParams(extra)
  if (args.limit) q.set('limit', String(args.limit))
  if (args.cursor) q.set('cursor', args.cursor)
  return q.toString()
}

/** The Link header's rel="next" URL carries the service's own cursor; we pass only that on. */
export function nextCursor(link: string | null): string | undefined {
  if (!link) return undefined
  for (const part of link.split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part)
    if (!m?.[1]) continue
    try {
      return new URL(m[1], 'http://x').searchParams.get('cursor') ?? undefined
    } catch {
      return undefined
    }
  }
  return undefined
}

function pageOf<T>(r: Reply): Page<T> {
  let items: T[]
  try {
    items = JSON.parse(r.body) as T[]
  } catch {
    items = []
  }
  if (!Array.isArray(items))
    throw new AppFailure({
      code: 'service',
      message: 'The service answered a list with something else.'
    })
  const total = Number(r.headers.get('x-total-count'))
  return {
    items,
    next: nextCursor(r.headers.get('link')),
    total: Number.isFinite(total) && r.headers.has('x-total-count') ? total : undefined
  }
}

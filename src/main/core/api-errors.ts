// Turns what a Studio-compatible service answers into an AppError a person understands. Livepeer sends
// `{"errors": [...]}`; for schema failures each item is a JSON-stringified Ajv error object.
import type { AppError } from '../../shared/result'
import { redact } from '../../shared/redact'

interface AjvError {
  instancePath?: string
  keyword?: string
  params?: Record<string, unknown>
  message?: string
}

/** The messages of an error body, or [] when the body is not the service's error shape. */
export function errorMessages(body: string): string[] {
  try {
    const parsed = JSON.parse(body) as { errors?: unknown }
    if (Array.isArray(parsed.errors)) return parsed.errors.map((e) => String(e))
  } catch {
    // Not JSON (a proxy's HTML page): no messages to show.
  }
  return []
}

/** `/profiles/0/width` -> `profiles.0.width` */
const fieldOf = (path: string | undefined): string =>
  (path ?? '').split('/').filter(Boolean).join('.')

/** One Ajv error in words, with the field it is about. */
export function readableValidation(raw: string): { field?: string; message: string } {
  let e: AjvError
  try {
    e = JSON.parse(raw) as AjvError
    if (typeof e !== 'object' || e === null || !e.keyword) return { message: raw }
  } catch {
    return { message: raw }
  }
  const at = fieldOf(e.instancePath)
  const p = e.params ?? {}
  const join = (child: unknown): string => (at ? `${at}.${String(child)}` : String(child))
  const label = at || 'the request body'
  // Ajv's own text, for errors without the params we know how to phrase (or other writers).
  const fallback = (): { field?: string; message: string } => {
    const m = e.message ?? `fails the ${e.keyword} rule`
    return {
      field: at || undefined,
      message: /^must\b/.test(m) ? `${label} ${m}` : `${label}: ${m}`
    }
  }
  const needs: Record<string, string> = {
    required: 'missingProperty',
    additionalProperties: 'additionalProperty',
    minimum: 'limit',
    exclusiveMinimum: 'limit',
    maximum: 'limit',
    exclusiveMaximum: 'limit',
    minLength: 'limit',
    maxLength: 'limit',
    type: 'type',
    enum: 'allowedValues'
  }
  const need = needs[e.keyword]
  if (!need || p[need] === undefined) return fallback()
  switch (e.keyword) {
    case 'required':
      return { field: join(p.missingProperty), message: `${join(p.missingProperty)} is required` }
    case 'additionalProperties':
      return {
        field: join(p.additionalProperty),
        message: `${label} has an unknown field "${String(p.additionalProperty)}"`
      }
    case 'minimum':
    case 'exclusiveMinimum':
      return { field: at, message: `${label} must be at least ${String(p.limit)}` }
    case 'maximum':
    case 'exclusiveMaximum':
      return { field: at, message: `${label} must be at most ${String(p.limit)}` }
    case 'minLength':
      return { field: at, message: `${label} must be at least ${String(p.limit)} characters long` }
    case 'maxLength':
      return { field: at, message: `${label} must be at most ${String(p.limit)} characters long` }
    case 'type':
      return { field: at, message: `${label} must be of type ${String(p.type)}` }
    case 'enum':
      return {
        field: at,
        message: `${label} must be one of ${(p.allowedValues as unknown[] | undefined)?.join(', ') ?? 'the allowed values'}`
      }
    default:
      return {
        field: at || undefined,
        message: `${label} ${e.message ?? `fails the ${e.keyword} rule`}`
      }
  }
}

/** Retry-After is seconds or an HTTP date. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined
  const secs = Number(header)
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000)
  const at = Date.parse(header)
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined
}

export interface HttpFailure {
  status: number
  body: string
  retryAfter: string | null
  /** What was asked for, for not-found messages: "stream", "session". */
  what: string
  secrets: string[]
}

export function mapHttpError(f: HttpFailure): AppError {
  const msgs = errorMessages(f.body).map((m) => redact(m, f.secrets))
  const first = msgs[0]
  const { status } = f
  if (status === 401)
    // Livepeer's own text quotes the key ("no token <key> found"): never pass it on.
    return {
      code: 'key-rejected',
      status,
      message: 'The service rejected the API key.',
      hint: 'Check that the key is correct and not revoked, then save it again.'
    }
  if (status === 403)
    return {
      code: 'forbidden',
      status,
      message: `The service refused this request${first ? `: ${first}` : '.'}`,
      hint: 'The API key may lack access (a CORS-restricted key cannot list or delete streams).'
    }
  if (status === 404)
    return {
      code: 'not-found',
      status,
      message: `The ${f.what} was not found (it may have been deleted).`
    }
  if (status === 422) {
    const v = first ? readableValidation(first) : { message: 'the request was not accepted' }
    return {
      code: 'validation',
      status,
      field: v.field,
      message: `The service rejected the ${f.what}: ${v.message}.`
    }
  }
  if (status === 429) {
    const wait = retryAfterMs(f.retryAfter)
    return {
      code: 'rate-limited',
      status,
      retryAfterMs: wait,
      message: `Too many requests${first ? ` (${first})` : ''}.`,
      hint:
        wait !== undefined
          ? `Try again in ${Math.ceil(wait / 1000)} s.`
          : 'Wait a moment and try again.'
    }
  }
  if (status >= 500)
    return {
      code: 'service',
      status,
      message: `The service had a problem (HTTP ${status})${first ? `: ${first}` : '.'}`,
      hint: 'Try again later.'
    }
  return {
    code: 'rule',
    status,
    message: first
      ? `The service said no: ${msgs.join('; ')}.`
      : `The service refused the request (HTTP ${status}).`
  }
}

/**
 * Transport failures (node:http errors carry `code`, fetch's their `cause.code`): the code tells
 * refused from DNS from reset; a TimeoutError or abort is our own deadline.
 */
export function mapNetworkError(e: unknown, host: string, timeoutMs: number): AppError {
  const err = e as { name?: string; code?: string; cause?: { code?: string } }
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError')
    return {
      code: 'timeout',
      message: `${host} did not answer within ${Math.round(timeoutMs / 1000)} s.`,
      hint: 'Check the connection, or try again.'
    }
  const code = err?.cause?.code ?? err?.code
  const why =
    code === 'ECONNREFUSED'
      ? 'the connection was refused'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'the name could not be resolved'
        : code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNABORTED'
          ? 'the connection was reset'
          : 'the network request failed'
  return {
    code: 'network',
    message: `Could not reach ${host}: ${why}.`,
    hint: 'Check the network connection and the service address.'
  }
}

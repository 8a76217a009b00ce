// Request body checks for the stream routes, following the reference's schemas (new-stream-payload,
// stream-patch-payload): 422 for schema errors, written like its Ajv errors (JSON text with
// instancePath, keyword and message) so clients that look for "required", "type", "enum"... keep
// working; 400 for the server's own rules. The first error only, as the reference's Ajv is
// compiled.
import { validateProfiles, type Profile } from '../shared/profiles'

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string
  ) {
    super(message)
  }
}

const schemaError = (instancePath: string, keyword: string, message: string): HttpError =>
  new HttpError(422, JSON.stringify({ instancePath, keyword, message }))

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

function keywordOf(message: string): string {
  if (message.includes('required')) return 'required'
  if (message.includes('unknown field')) return 'additionalProperties'
  if (message.includes('at least')) return 'minimum'
  if (message.includes('at most')) return 'maximum'
  if (message.includes('1 to 500')) return 'maxLength'
  if (message.includes('one of') || message.includes('encoder must')) return 'enum'
  return 'type'
}

/** Profiles through the shared rules (the same ones the app checks before sending). */
export function checkProfiles(v: unknown, path: string): Profile[] | null {
  if (v === null) return null
  const issues = validateProfiles(v, path.replace(/^\//, ''))
  const first = issues[0]
  if (first) {
    if (first.status === 400) throw new HttpError(400, first.message)
    const at = '/' + first.field.replace(/\./g, '/')
    throw schemaError(at, keywordOf(first.message), first.message)
  }
  return v as Profile[]
}

function checkKeys(body: Record<string, unknown>, allowed: readonly string[], at = ''): void {
  for (const k of Object.keys(body)) {
    if (!allowed.includes(k))
      throw schemaError(
        at,
        'additionalProperties',
        `must NOT have additional property '${k.slice(0, 100)}'`
      )
  }
}

function checkType(v: unknown, type: 'string' | 'boolean', at: string): void {
  if (typeof v !== type) throw schemaError(at, 'type', `must be ${type}`)
}

function checkCreatorId(v: unknown): { type: 'unverified'; value: string } {
  if (typeof v === 'string') return { type: 'unverified', value: v }
  if (isObject(v)) {
    checkKeys(v, ['type', 'value'], '/creatorId')
    if (v.type !== 'unverified')
      throw schemaError('/creatorId/type', 'enum', 'must be equal to one of the allowed values')
    checkType(v.value, 'string', '/creatorId/value')
    return { type: 'unverified', value: v.value as string }
  }
  throw schemaError('/creatorId', 'type', 'must be string or object')
}

function checkPlaybackPolicy(v: unknown): Record<string, unknown> | null {
  if (v === null) return null
  if (!isObject(v)) throw schemaError('/playbackPolicy', 'type', 'must be object,null')
  checkKeys(
    v,
    ['type', 'webhookId', 'webhookContext', 'refreshInterval', 'allowedOrigins'],
    '/playbackPolicy'
  )
  if (v.type === undefined)
    throw schemaError('/playbackPolicy', 'required', "must have required property 'type'")
  if (v.type === 'lit_signing_condition')
    throw new HttpError(400, 'lit_signing_condition is not supported for streams')
  if (!['public', 'jwt', 'webhook'].includes(v.type as string))
    throw schemaError('/playbackPolicy/type', 'enum', 'must be equal to one of the allowed values')
  // Webhooks do not exist in the local studio, so no webhook id can be found (the reference's
  // answer).
  if (v.type === 'webhook')
    throw new HttpError(400, `webhook ${String(v.webhookId).slice(0, 64)} not found`)
  return v
}

function checkUserTags(v: unknown): Record<string, unknown> {
  if (!isObject(v)) throw schemaError('/userTags', 'type', 'must be object')
  for (const [k, val] of Object.entries(v)) {
    const okValue = (x: unknown): boolean => typeof x === 'string' || typeof x === 'number'
    if (!okValue(val) && !(Array.isArray(val) && val.every(okValue)))
      throw schemaError(`/userTags/${k.slice(0, 100)}`, 'type', 'must be string, number or array')
  }
  if (JSON.stringify(v).length > 2048) throw new HttpError(400, 'userTags object is too big')
  return v
}

function checkRecordingSpec(v: unknown): Record<string, unknown> {
  if (!isObject(v)) throw schemaError('/recordingSpec', 'type', 'must be object')
  checkKeys(v, ['profiles'], '/recordingSpec')
  if (v.profiles === null || v.profiles === undefined) return {}
  // Recording always keeps the stream's own renditions here; the spec is stored and echoed only.
  if (!Array.isArray(v.profiles))
    throw schemaError('/recordingSpec/profiles', 'type', 'must be array,null')
  return { profiles: v.profiles }
}

function checkMultistream(v: unknown): { targets: unknown[] } {
  if (!isObject(v)) throw schemaError('/multistream', 'type', 'must be object')
  checkKeys(v, ['targets'], '/multistream')
  if (v.targets === undefined) return { targets: [] }
  if (!Array.isArray(v.targets)) throw schemaError('/multistream/targets', 'type', 'must be array')
  if (v.targets.length > 0)
    throw new HttpError(400, 'multistream targets are not supported by the local studio')
  return { targets: [] }
}

export interface StreamInput {
  name?: string
  profiles?: Profile[] | null
  record?: boolean
  suspended?: boolean
  creatorId?: { type: 'unverified'; value: string }
  playbackPolicy?: Record<string, unknown> | null
  userTags?: Record<string, unknown>
  recordingSpec?: Record<string, unknown>
  multistream?: { targets: unknown[] }
}

const CREATE_KEYS = [
  'name',
  'pull',
  'creatorId',
  'playbackPolicy',
  'profiles',
  'record',
  'recordingSpec',
  'multistream',
  'userTags'
]
const PATCH_KEYS = [
  'creatorId',
  'record',
  'suspended',
  'multistream',
  'playbackPolicy',
  'profiles',
  'recordingSpec',
  'userTags',
  'name'
]

function checkCommon(body: Record<string, unknown>): StreamInput {
  const out: StreamInput = {}
  if (body.name !== undefined) {
    checkType(body.name, 'string', '/name')
    out.name = body.name as string
  }
  if (body.profiles !== undefined) out.profiles = checkProfiles(body.profiles, '/profiles')
  if (body.record !== undefined) {
    checkType(body.record, 'boolean', '/record')
    out.record = body.record as boolean
  }
  if (body.suspended !== undefined) {
    checkType(body.suspended, 'boolean', '/suspended')
    out.suspended = body.suspended as boolean
  }
  if (body.creatorId !== undefined) out.creatorId = checkCreatorId(body.creatorId)
  if (body.playbackPolicy !== undefined)
    out.playbackPolicy = checkPlaybackPolicy(body.playbackPolicy)
  if (body.userTags !== undefined) out.userTags = checkUserTags(body.userTags)
  if (body.recordingSpec !== undefined) out.recordingSpec = checkRecordingSpec(body.recordingSpec)
  if (body.multistream !== undefined) out.multistream = checkMultistream(body.multistream)
  return out
}

export function checkCreate(body: unknown): StreamInput & { name: string } {
  if (!isObject(body)) throw schemaError('', 'type', 'must be object')
  checkKeys(body, CREATE_KEYS)
  if (body.name === undefined)
    throw schemaError('', 'required', "must have required property 'name'")
  const out = checkCommon(body)
  if (body.pull !== undefined)
    throw new HttpError(403, 'user is not a subject of experiment: stream-pull-source')
  if (out.recordingSpec && out.record !== true)
    throw new HttpError(400, 'recordingSpec is only supported with record=true')
  return out as StreamInput & { name: string }
}

export function checkPatch(body: unknown): StreamInput {
  if (!isObject(body)) throw schemaError('', 'type', 'must be object')
  checkKeys(body, PATCH_KEYS)
  return checkCommon(body)
}

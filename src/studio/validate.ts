// Request body checks for the stream routes, as Livepeer Studio makes them. First the schema: the
// reference compiles its OpenAPI request schemas (new-stream-payload, stream-patch-payload) with
// Ajv and answers 422 with each Ajv error as JSON text; the same schemas, taken from the same
// OpenAPI file by `npm run gen:api` (schemas/request-schemas.json), are compiled here with the same
// Ajv options. Then the server's own rules, which a schema cannot say, one named function each,
// in the reference's order: 403 for pull streams, 400 for the rest.
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import type { components } from '../shared/api/schema'
import { impossibleProfiles, MAX_PROFILES, type Profile } from '../shared/profiles'
import { urlForError } from '../shared/redact'
import generated from './schemas/request-schemas.json'

export class HttpError extends Error {
  /** Every message of the answer's {"errors":[...]}; one unless the schema reported several. */
  readonly errors: readonly string[]

  constructor(
    readonly status: number,
    message: string,
    errors?: readonly string[]
  ) {
    super(message)
    this.errors = errors && errors.length > 0 ? errors : [message]
  }
}

type PlaybackPolicy = NonNullable<components['schemas']['playback-policy']>

/**
 * What a body that passed the schema is, in the generated types' words, with two corrections:
 * the db-schema overlay (schemas/extract.mjs) widens playbackPolicy, and profiles may be absent
 * (the YAML gives it a default, which openapi-typescript reads as "always there", but Ajv fills in
 * no defaults).
 */
type Checked<T> = Omit<T, 'playbackPolicy' | 'profiles'> & {
  playbackPolicy?: PolicyBody | null
  profiles?: Profile[] | null
}
type PolicyBody = Omit<PlaybackPolicy, 'type'> & {
  type: PlaybackPolicy['type'] | 'lit_signing_condition'
  resourceId?: Record<string, string>
  unifiedAccessControlConditions?: Record<string, unknown>[]
}
type NewStreamBody = Checked<components['schemas']['new-stream-payload']>
type StreamPatchBody = Checked<components['schemas']['stream-patch-payload']>
export type ClipBody = components['schemas']['clip-payload']
/** A stream's multistream target as a request gives it: a target id or an inline spec. */
export type TargetRef = components['schemas']['target']
export type TargetBody = components['schemas']['multistream-target']
/** A target as a stream stores it: always by id (an inline spec becomes a target first). */
export type StoredTargetRef = Omit<TargetRef, 'spec'> & { id: string }
export type WebhookBody = components['schemas']['webhook']
export type NewAssetBody = components['schemas']['new-asset-payload']

// The reference's options (its compile-schemas script): Ajv's defaults, so no type coercion, no
// defaults filled in and the first error only (allErrors off); "example" declared as a known
// keyword, as OpenAPI uses it; the "uri" format from ajv-formats. allowUnionTypes only keeps
// Ajv's strict mode from warning about `type: [array, null]`; it changes no result.
const ajv = new Ajv({ keywords: ['example'], allowUnionTypes: true })
addFormats(ajv, ['uri'])

// Compiled once, when the studio loads this module: a schema Ajv cannot compile stops the studio at
// start, not on the first request.
const schemas = generated.schemas
const validateNewStream = ajv.compile<NewStreamBody>(schemas['new-stream-payload'])
const validateStreamPatch = ajv.compile<StreamPatchBody>(schemas['stream-patch-payload'])
const validateTargetCreate = ajv.compile<TargetBody>(schemas['multistream-target'])
const validateTargetPatch = ajv.compile<Partial<TargetBody>>(
  schemas['multistream-target-patch-payload']
)
const validateTargetAdd = ajv.compile<TargetRef>(schemas['target-add-payload'])
const validateClip = ajv.compile<ClipBody>(schemas['clip-payload'])
const validateWebhook = ajv.compile<WebhookBody>(schemas['webhook'])
// new-asset-payload names no `type` (Ajv's strict mode warns at every start without one): an object,
// which is what checkNewAsset hands it anyway.
const validateNewAsset = ajv.compile<NewAssetBody>({
  type: 'object',
  ...schemas['new-asset-payload']
})
// The profiles field alone (array or null of ffmpeg-profile), exactly as new-stream-payload says,
// at the same place, so its errors carry the same instancePath and schemaPath as a whole body's.
const validateProfilesField = ajv.compile<{ profiles?: Profile[] | null }>({
  type: 'object',
  properties: { profiles: schemas['new-stream-payload'].properties.profiles }
})

/** 422 as the reference's validatePost answers it: each Ajv error object as JSON text. */
function schemaError(errors: readonly ErrorObject[] | null | undefined): HttpError {
  const texts = (errors ?? []).map((e) => JSON.stringify(e))
  return new HttpError(422, texts[0] ?? 'request body does not match the schema', texts)
}

function assertSchema<T>(validate: ValidateFunction<T>, body: unknown): asserts body is T {
  if (!validate(body)) throw schemaError(validate.errors)
}

// ---- The server's rules, applied once the schema has passed ----

/**
 * Onair's own rules, past the reference's schema (a documented deviation: Livepeer accepts these
 * and fails later, when it transcodes). 422 with Ajv-shaped errors, so a client reads them as it
 * reads the schema's: the field, the keyword and the limit.
 */
function deviationError(
  errors: Array<{ path: string; keyword: string; params: Record<string, unknown>; message: string }>
): HttpError {
  return schemaError(
    errors.map((e) => ({
      instancePath: e.path,
      schemaPath: `#/onair/${e.keyword}`,
      keyword: e.keyword,
      params: e.params,
      message: e.message
    }))
  )
}

/** Stream names: Livepeer's schema gives no limit, so the local studio keeps them to 500 characters. */
export const STREAM_NAME_MAX = 500

export function checkStreamName(name: unknown): void {
  // Characters as Ajv counts them (code points).
  if (typeof name === 'string' && [...name].length > STREAM_NAME_MAX)
    throw deviationError([
      {
        path: '/name',
        keyword: 'maxLength',
        params: { limit: STREAM_NAME_MAX },
        message: `must NOT have more than ${STREAM_NAME_MAX} characters`
      }
    ])
}

/**
 * At most MAX_PROFILES renditions (shared/profiles.ts), then the profiles no H.264 encoder can make
 * (encoderIssues): 422, each field named.
 */
export function checkEncoderLimits(profiles: readonly Profile[] | null | undefined): void {
  if (profiles && profiles.length > MAX_PROFILES)
    throw deviationError([
      {
        path: '/profiles',
        keyword: 'maxItems',
        params: { limit: MAX_PROFILES },
        message: `at most ${MAX_PROFILES} profiles per stream: remove ${profiles.length - MAX_PROFILES}`
      }
    ])
  const issues = impossibleProfiles(profiles ?? [])
  if (issues.length === 0) return
  throw deviationError(
    issues.map((i) => {
      const limit = /more than (\d+)$/.exec(i.message)
      return {
        path: '/' + i.field.split('.').join('/'),
        keyword: limit ? 'maximum' : 'multipleOf',
        params: limit ? { comparison: '<=', limit: Number(limit[1]) } : { multipleOf: 2 },
        message: i.message
      }
    })
  )
}

/** Pull streams are an experiment the reference gates per user; no local user is in it. */
export function rejectPull(pull: unknown): void {
  if (pull !== undefined)
    throw new HttpError(403, 'user is not a subject of experiment: stream-pull-source')
}

/** A recording spec means nothing unless the stream records. */
export function requireRecordForRecordingSpec(recordingSpec: unknown, record: unknown): void {
  if (recordingSpec && record !== true)
    throw new HttpError(400, 'recordingSpec is only supported with record=true')
}

/** Profile names: "source" is the untranscoded rendition's name, and each name must be unique. */
export function checkProfileNames(profiles: readonly Profile[] | null | undefined): void {
  const seen = new Set<string>()
  for (const { name } of profiles ?? []) {
    // The reference skips empty names here (its schema already refuses them).
    if (!name) continue
    if (name === 'source') throw new HttpError(400, 'profile cannot be named "source"')
    if (seen.has(name)) throw new HttpError(400, `duplicate profile name "${name}"`)
    seen.add(name)
  }
}

/** Lit signing conditions are for assets only; webhook policies need a webhook of the caller's. */
export function checkPlaybackPolicy(policy: PolicyBody | null | undefined): void {
  if (!policy) return
  if (
    policy.type === 'lit_signing_condition' ||
    policy.resourceId ||
    policy.unifiedAccessControlConditions
  )
    throw new HttpError(
      400,
      'playbackPolicy type "lit_signing_condition" with a resourceId or ' +
        'unifiedAccessControlConditions is not supported for streams'
    )
  // Access control by webhook is not implemented (the studio's webhooks only receive events), so
  // no id is accepted here: the reference's answer for an unknown id. The id is echoed shortened:
  // it is the client's text.
  if (policy.type === 'webhook')
    throw new HttpError(400, `webhook ${String(policy.webhookId).slice(0, 64)} not found`)
}

/**
 * Turns a stream's requested targets into stored ones against the caller's targets (the
 * reference's validateMultistreamOpts; see multistream.ts). `profileNames` holds the stream's
 * profile names plus "source".
 */
export type TargetResolver = (
  targets: readonly TargetRef[],
  profileNames: ReadonlySet<string>
) => StoredTargetRef[]

/** Without a store nothing can be resolved: only an empty target list passes. */
export const noTargets: TargetResolver = (targets) => {
  if (targets.length)
    throw new HttpError(400, 'multistream targets are not supported by the local studio')
  return []
}

/** Leaves the targets for the route to resolve once it has read the stored stream (PATCH). */
export const laterTargets: TargetResolver = (targets) => targets as StoredTargetRef[]

/** The reference's toProfileNames: the stream's profile names (already checked) and "source". */
export function profileNameSet(profiles: readonly Profile[] | null | undefined): Set<string> {
  const names = new Set<string>()
  for (const { name } of profiles ?? []) if (name) names.add(name)
  names.add('source')
  return names
}

/** userTags are stored whole with the stream: at most 2048 characters of JSON. */
export function checkUserTagsSize(userTags: Record<string, unknown> | undefined): void {
  if (userTags && JSON.stringify(userTags).length > 2048)
    throw new HttpError(400, 'userTags object is too large. Max size is 2048 characters')
}

/**
 * A profiles array as the service judges it: the schema (422, with the body's instance paths),
 * then the name rules (400). `null` is allowed (the schema's "array or null").
 */
export function checkProfiles(profiles: unknown): Profile[] | null {
  const body = { profiles }
  assertSchema(validateProfilesField, body)
  checkEncoderLimits(body.profiles)
  checkProfileNames(body.profiles)
  return body.profiles ?? null
}

// ---- What the routes get ----

export interface StreamInput {
  name?: string
  profiles?: Profile[] | null
  record?: boolean
  suspended?: boolean
  creatorId?: { type: 'unverified'; value: string }
  playbackPolicy?: Record<string, unknown> | null
  userTags?: Record<string, unknown>
  recordingSpec?: Record<string, unknown>
  multistream?: { targets: StoredTargetRef[] }
}

/** The stored form of the fields both payloads share (the reference's mapInputCreatorId etc.). */
function toInput(body: StreamPatchBody): StreamInput {
  const out: StreamInput = {}
  if (body.name !== undefined) out.name = body.name
  if (body.profiles !== undefined) out.profiles = body.profiles
  if (body.record !== undefined) out.record = body.record
  if (body.suspended !== undefined) out.suspended = body.suspended
  if (body.creatorId !== undefined)
    out.creatorId =
      typeof body.creatorId === 'string'
        ? { type: 'unverified', value: body.creatorId }
        : { type: 'unverified', value: body.creatorId.value }
  if (body.playbackPolicy !== undefined) out.playbackPolicy = body.playbackPolicy
  if (body.userTags !== undefined) out.userTags = body.userTags
  if (body.recordingSpec !== undefined) {
    // `profiles: null` is accepted on input (an SDK workaround upstream) but never stored.
    const { profiles, ...rest } = body.recordingSpec
    out.recordingSpec = profiles ? { ...rest, profiles } : rest
  }
  // The targets are resolved by the caller (checkCreate, checkPatch); `{}` is stored as no targets.
  if (body.multistream !== undefined)
    out.multistream = { targets: (body.multistream.targets ?? []) as StoredTargetRef[] }
  return out
}

/**
 * POST /stream: the schema, then the server's rules in the reference's order. `resolveTargets`
 * checks the multistream targets against the caller's (the route passes one bound to the store).
 */
export function checkCreate(
  body: unknown,
  resolveTargets: TargetResolver = noTargets
): StreamInput & { name: string } {
  assertSchema(validateNewStream, body)
  checkStreamName(body.name)
  checkEncoderLimits(body.profiles)
  rejectPull(body.pull)
  requireRecordForRecordingSpec(body.recordingSpec, body.record)
  checkPlaybackPolicy(body.playbackPolicy)
  checkProfileNames(body.profiles)
  const targets = resolveTargets(body.multistream?.targets ?? [], profileNameSet(body.profiles))
  checkUserTagsSize(body.userTags)
  const input = { ...toInput(body), name: body.name }
  if (body.multistream !== undefined) input.multistream = { targets }
  return input
}

/**
 * PATCH /stream/{id}: the schema, then the rules that need no stored stream (the route applies
 * those that do: active stream, recordingSpec against the stored record flag). The profile name
 * rules apply here too, so a patch cannot store what a create would refuse.
 */
export function checkPatch(body: unknown, resolveTargets: TargetResolver = noTargets): StreamInput {
  assertSchema(validateStreamPatch, body)
  checkStreamName(body.name)
  checkEncoderLimits(body.profiles)
  checkProfileNames(body.profiles)
  if (body.multistream?.targets) resolveTargets(body.multistream.targets, new Set())
  checkPlaybackPolicy(body.playbackPolicy)
  checkUserTagsSize(body.userTags)
  return toInput(body)
}

// ---- Multistream target bodies ----

/** POST /multistream/target: the multistream-target schema (422). */
export function checkTargetCreate(body: unknown): TargetBody {
  assertSchema(validateTargetCreate, body)
  return body
}

/** PATCH /multistream/target/{id}: the same schema with nothing required (422). */
export function checkTargetPatch(body: unknown): Partial<TargetBody> {
  assertSchema(validateTargetPatch, body)
  return body
}

/** POST /stream/{id}/create-multistream-target: target-add-payload (422). */
export function checkTargetAdd(body: unknown): TargetRef {
  assertSchema(validateTargetAdd, body)
  return body
}

// ---- Clips ----

/** POST /clip: the clip-payload schema (422). The times are checked by studio/clips.ts (400). */
export function checkClip(body: unknown): ClipBody {
  assertSchema(validateClip, body)
  return body
}

// ---- Uploads ----

/**
 * POST /asset/request-upload: the new-asset-payload schema (422), then a name that is not blank
 * and no encryption key (400: the local studio stores uploads as they come).
 */
export function checkNewAsset(input: unknown): NewAssetBody {
  // The schema names no type: anything but an object is read as an empty one (name is required).
  const body = input && typeof input === 'object' && !Array.isArray(input) ? input : {}
  assertSchema(validateNewAsset, body)
  if (body.name.trim() === '') throw new HttpError(400, 'name must not be empty')
  if (body.encryption) throw new HttpError(400, 'the local studio does not take encrypted uploads')
  return body
}

// ---- Webhook bodies ----

/**
 * POST /webhook and PUT /webhook/{id}, as the reference's validateWebhookPayload: the webhook schema
 * (422: name and url required, url http(s), each event one of Livepeer's), then a URL that parses
 * (422 `bad url: ...`, only its scheme and host echoed, as for targets) and an events list (422).
 */
export function checkWebhook(
  body: unknown
): WebhookBody & { events: NonNullable<WebhookBody['events']> } {
  assertSchema(validateWebhook, body)
  try {
    new URL(body.url)
  } catch {
    throw new HttpError(422, `bad url: ${urlForError(body.url)}`)
  }
  if (!body.events) throw new HttpError(422, 'must provide "events" field with subscriptions')
  return { ...body, events: body.events }
}

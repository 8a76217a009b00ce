// /api/stream routes: create, list, get, patch, record, suspend, delete, terminate, and a stream's
// multistream targets (add one, remove one).
import { requireUser, type StudioContext } from '../context'
import { inTransaction } from '../db'
import { pageHeaders, parseCursor, parseLimit, type Req, type Router } from '../http'
import {
  getOwnStream,
  insertStream,
  listStreams,
  markDeleted,
  saveDoc,
  streamToApi,
  type StreamDoc,
  type StreamRow
} from '../stream-store'
import { targetResolver } from '../multistream'
import { getOwnTarget, targetToApi } from '../multistream-store'
import {
  checkCreate,
  checkPatch,
  checkTargetAdd,
  HttpError,
  laterTargets,
  profileNameSet,
  type StoredTargetRef
} from '../validate'

// Stream ids are UUIDs; anything else cannot exist, so it is a plain 404 (never a query with junk).
export const ID = '([0-9a-fA-F-]{36})'

const truthy = (v: string | null): boolean => v !== null && v !== 'false' && v !== '0'

function ownStream(ctx: StudioContext, req: Req): { stream: StreamRow; userId: string } {
  const user = requireUser(ctx, req.raw)
  const stream = getOwnStream(ctx.db, user.id, req.params[0]!)
  if (!stream) throw new HttpError(404, 'not found')
  return { stream, userId: user.id }
}

export function streamRoutes(router: Router, ctx: StudioContext): void {
  // The stream as returned: with the live run's health (multistream targets) when it is live.
  const toApi = (s: StreamRow): Record<string, unknown> => streamToApi(s, ctx.live.health(s.id))

  router.add('POST', /^\/api\/stream\/?$/, async (req) => {
    const user = requireUser(ctx, req.raw)
    const resolver = targetResolver(ctx.db, user.id)
    const input = checkCreate(await req.body(), resolver.resolve)
    const doc: StreamDoc = {
      name: input.name,
      // The seed contract: no profiles means no transcoding (no default ladder added).
      profiles: input.profiles ?? [],
      record: input.record ?? false,
      suspended: false,
      createdByTokenName: user.tokenName,
      lastTerminatedAt: null,
      sourceSegmentsDuration: 0,
      multistream: input.multistream ?? { targets: [] },
      ...(input.creatorId ? { creatorId: input.creatorId } : {}),
      ...(input.userTags ? { userTags: input.userTags } : {}),
      ...(input.playbackPolicy !== undefined ? { playbackPolicy: input.playbackPolicy } : {}),
      ...(input.recordingSpec ? { recordingSpec: input.recordingSpec } : {})
    }
    const created = inTransaction(ctx.db, () => {
      resolver.save()
      return insertStream(ctx.db, user.id, doc)
    })
    return { status: 201, body: toApi(created) }
  })

  router.add('GET', /^\/api\/stream\/?$/, async (req) => {
    const user = requireUser(ctx, req.raw)
    const limit = parseLimit(req.url)
    const offset = parseCursor(req.url)
    // Every stream here is a parent stream: sessions live in their own table, so sessionsonly is
    // empty.
    if (
      truthy(req.url.searchParams.get('sessionsonly')) &&
      !req.url.searchParams.has('streamsonly')
    )
      return { status: 200, body: [] }
    const active = truthy(req.url.searchParams.get('active'))
    const { rows, total } = listStreams(ctx.db, user.id, offset, limit, active)
    const headers = pageHeaders(ctx.base(), req.url, offset, limit, rows.length, total)
    return { status: 200, body: rows.map(toApi), headers }
  })

  router.add('GET', new RegExp(`^/api/stream/${ID}$`), async (req) => {
    return { status: 200, body: toApi(ownStream(ctx, req).stream) }
  })

  // Livepeer's stream health (its analyzer's route): the conditions behind isHealthy.
  router.add('GET', new RegExp(`^/api/data/stream/${ID}/health$`), async (req) => {
    const { stream } = ownStream(ctx, req)
    return { status: 200, body: ctx.live.healthReport(stream.id) }
  })

  router.add('PATCH', new RegExp(`^/api/stream/${ID}$`), async (req) => {
    requireUser(ctx, req.raw)
    const input = checkPatch((await req.body()) ?? {}, laterTargets)
    const { stream, userId } = ownStream(ctx, req)
    const d = stream.doc
    if (stream.isActive && input.record !== undefined && input.record !== d.record)
      throw new HttpError(400, "cannot change 'record' field while stream is active")
    if (stream.isActive && input.profiles !== undefined)
      throw new HttpError(400, "cannot change 'profiles' field while stream is active")
    const record = input.record ?? d.record
    if (input.recordingSpec && !record)
      throw new HttpError(400, 'recordingSpec is only supported with record=true')
    // Targets are checked against the stored profiles, as the reference does (even when the same
    // patch changes them).
    const resolver = targetResolver(ctx.db, userId)
    const targets = input.multistream
      ? resolver.resolve(input.multistream.targets, profileNameSet(d.profiles))
      : undefined
    const next: StreamDoc = { ...d }
    if (input.name !== undefined) next.name = input.name
    if (input.profiles !== undefined) next.profiles = input.profiles ?? []
    if (input.record !== undefined) next.record = input.record
    if (input.creatorId !== undefined) next.creatorId = input.creatorId
    if (input.userTags !== undefined) next.userTags = input.userTags
    if (input.playbackPolicy !== undefined) next.playbackPolicy = input.playbackPolicy
    if (input.recordingSpec !== undefined) next.recordingSpec = input.recordingSpec
    if (targets) next.multistream = { targets }
    if (input.suspended !== undefined) next.suspended = input.suspended
    inTransaction(ctx.db, () => {
      resolver.save()
      saveDoc(ctx.db, stream.id, next)
    })
    // Suspending a live stream ends its run, as the reference's Catalyst update does.
    if (input.suspended === true && stream.isActive) await ctx.live.terminate(stream.id)
    // A multistream change refreshes the live stream's forwarders, as it does the reference's.
    else if (targets) ctx.live.multistreamChanged(userId, stream.id)
    return { status: 204 }
  })

  router.add('PATCH', new RegExp(`^/api/stream/${ID}/record$`), async (req) => {
    requireUser(ctx, req.raw)
    const body = await req.body()
    const { stream } = ownStream(ctx, req)
    const record = booleanField(body, 'record')
    if (stream.isActive && record !== stream.doc.record)
      throw new HttpError(400, "cannot change 'record' field while stream is active")
    saveDoc(ctx.db, stream.id, { ...stream.doc, record })
    return { status: 204 }
  })

  router.add('PATCH', new RegExp(`^/api/stream/${ID}/suspended$`), async (req) => {
    requireUser(ctx, req.raw)
    const body = await req.body()
    const { stream } = ownStream(ctx, req)
    const suspended = booleanField(body, 'suspended')
    saveDoc(ctx.db, stream.id, { ...stream.doc, suspended })
    if (suspended && stream.isActive) await ctx.live.terminate(stream.id)
    return { status: 204 }
  })

  router.add('DELETE', new RegExp(`^/api/stream/${ID}$`), async (req) => {
    const { stream } = ownStream(ctx, req)
    markDeleted(ctx.db, stream.id)
    await ctx.live.terminate(stream.id)
    return { status: 204 }
  })

  router.add('DELETE', new RegExp(`^/api/stream/${ID}/terminate$`), async (req) => {
    const { stream } = ownStream(ctx, req)
    const last = stream.doc.lastTerminatedAt
    if (last !== null && Date.now() - last < 5000)
      throw new HttpError(429, 'too many terminate requests')
    saveDoc(ctx.db, stream.id, { ...stream.doc, lastTerminatedAt: Date.now() })
    await ctx.live.terminate(stream.id)
    return { status: 204 }
  })
}

/** POST /stream/{id}/create-multistream-target and DELETE /stream/{id}/multistream/{targetId}. */
export function streamTargetRoutes(router: Router, ctx: StudioContext): void {
  router.add('POST', new RegExp(`^/api/stream/${ID}/create-multistream-target$`), async (req) => {
    const user = requireUser(ctx, req.raw)
    const payload = checkTargetAdd(await req.body())
    const stream = getOwnStream(ctx.db, user.id, req.params[0]!)
    // The reference's words on this route, for a missing stream and another user's alike.
    if (!stream) throw new HttpError(404, 'stream not found')
    const resolver = targetResolver(ctx.db, user.id)
    const names = profileNameSet(stream.doc.profiles)
    const [added] = resolver.resolve([payload], names)
    // The whole list is checked again with the new one in it (uniqueness, targets still there).
    const existing = (stream.doc.multistream?.targets ?? []) as StoredTargetRef[]
    const targets = resolver.resolve([...existing, added!], names)
    inTransaction(ctx.db, () => {
      resolver.save()
      saveDoc(ctx.db, stream.id, { ...stream.doc, multistream: { targets } })
    })
    ctx.live.multistreamChanged(user.id, stream.id)
    const target = getOwnTarget(ctx.db, user.id, added!.id)
    // 200 with the target, url left out, as the reference answers (its OpenAPI says 204).
    return { status: 200, body: target ? targetToApi(target) : {} }
  })

  router.add('DELETE', new RegExp(`^/api/stream/${ID}/multistream/([^/]{1,200})$`), async (req) => {
    const user = requireUser(ctx, req.raw)
    const stream = getOwnStream(ctx.db, user.id, req.params[0]!)
    if (!stream) throw new HttpError(404, 'not found')
    const targetId = req.params[1]!
    const kept = ((stream.doc.multistream?.targets ?? []) as StoredTargetRef[]).filter(
      (t) => t.id !== targetId
    )
    // The reference checks the remaining list again (a deleted target still listed is a 400).
    const resolver = targetResolver(ctx.db, user.id)
    const targets = resolver.resolve(kept, profileNameSet(stream.doc.profiles))
    saveDoc(ctx.db, stream.id, { ...stream.doc, multistream: { targets } })
    ctx.live.multistreamChanged(user.id, stream.id)
    return { status: 204 }
  })
}

/** The one boolean field of PATCH /stream/{id}/record and /suspended: 400 `<name> field required`. */
function booleanField(body: unknown, name: 'record' | 'suspended'): boolean {
  const value = (body as Record<string, unknown> | undefined)?.[name]
  if (typeof value !== 'boolean') throw new HttpError(400, `${name} field required`)
  return value
}

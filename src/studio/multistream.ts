// A stream's multistream targets as Livepeer Studio checks them (its validateMultistreamTarget and
// validateMultistreamOpts in controllers/stream.ts): each names a rendition the stream has (or
// "source"), and exactly one of an own target's id or an inline spec; an inline spec becomes a new
// target, stored by its id; {id, profile} pairs are unique. Unlike the reference, the new targets
// are only written once the whole request has passed (no orphans from a refused request).
import { urlForError } from '../shared/redact'
import type { Db } from './db'
import { getOwnTarget, insertTarget, newTarget, type TargetRow } from './multistream-store'
import { HttpError, type StoredTargetRef, type TargetRef, type TargetResolver } from './validate'

/**
 * The reference parses a target URL with WHATWG URL after the schema: 422 `Bad URL ...` if it cannot.
 * Looser than the app's own rule (shared/destinations.ts checkTargetUrl, which the form and the core
 * apply before sending): the studio accepts what the service it stands in for accepts.
 */
export function requireParsableUrl(url: string): void {
  try {
    new URL(url)
  } catch (err) {
    throw new HttpError(422, `Bad URL ${urlForError(url)}: ${String(err).slice(0, 200)}`)
  }
}

/**
 * Targets per stream (inline specs and ids alike): each is an ffmpeg pushing for as long as the
 * stream is live. Livepeer sets no number; the local studio answers 422 past it.
 */
export const MAX_TARGETS_PER_STREAM = 20

export interface BoundResolver {
  resolve: TargetResolver
  /** Targets made from inline specs, to be stored with save() once the request has passed. */
  created: TargetRow[]
  save(): void
}

/** A resolver for one user's request, checking ids against that user's targets in `db`. */
export function targetResolver(db: Db, userId: string): BoundResolver {
  const created: TargetRow[] = []
  const one = (t: TargetRef, profileNames: ReadonlySet<string>): StoredTargetRef => {
    if (!profileNames.has(t.profile)) {
      const available = JSON.stringify([...profileNames])
      throw new HttpError(
        400,
        `multistream target profile not found: "${t.profile.slice(0, 500)}". available: ${available}`
      )
    }
    if (!!t.spec === !!t.id)
      throw new HttpError(400, 'multistream target must have either an "id" or a "spec"')
    if (t.id) {
      if (!getOwnTarget(db, userId, t.id) && !created.some((c) => c.id === t.id))
        throw new HttpError(400, `multistream target not found: "${t.id.slice(0, 200)}"`)
      return t as StoredTargetRef
    }
    const spec = t.spec!
    requireParsableUrl(spec.url)
    const row = newTarget(userId, { name: spec.name, url: spec.url })
    created.push(row)
    // The spec is never stored: the target it made is named by its id.
    const { spec: _spec, ...specless } = t
    return { ...specless, id: row.id }
  }
  return {
    created,
    resolve: (targets, profileNames) => {
      if (targets.length > MAX_TARGETS_PER_STREAM)
        throw new HttpError(
          422,
          `at most ${MAX_TARGETS_PER_STREAM} multistream targets per stream (${targets.length} given): remove ${targets.length - MAX_TARGETS_PER_STREAM}`
        )
      const out = targets.map((t) => one(t, profileNames))
      const pairs = new Set(out.map((t) => `${t.profile} -> ${t.id}`))
      if (pairs.size !== out.length)
        throw new HttpError(400, 'multistream target {id,profile} must be unique')
      return out
    },
    save: () => {
      for (const row of created) insertTarget(db, row)
    }
  }
}

// Multistream targets in SQLite: where a live stream is also pushed (YouTube, Twitch, another
// studio). The URL carries the target's stream key, so it stays in the store: the API never returns
// it (Livepeer's cleanWriteOnlyResponse), and it leaves this file only for the forwarder's argv.
import { randomUUID } from 'node:crypto'
import type { Db } from './db'

export interface TargetRow {
  id: string
  userId: string
  name: string
  url: string
  disabled: boolean
  createdAt: number
}

interface RawRow {
  id: string
  user_id: string
  name: string
  url: string
  disabled: number
  created_at: number
}

const COLS = 'id, user_id, name, url, disabled, created_at'

const fromRaw = (r: RawRow): TargetRow => ({
  id: r.id,
  userId: r.user_id,
  name: r.name,
  url: r.url,
  disabled: r.disabled === 1,
  createdAt: r.created_at
})

/** The target as the API returns it: the reference's fields, the write-only `url` left out. */
export function targetToApi(t: TargetRow): Record<string, unknown> {
  return {
    id: t.id,
    name: t.name,
    disabled: t.disabled,
    createdAt: t.createdAt,
    userId: t.userId
  }
}

/** The host part of a target URL (the reference's default name), or '' when it does not parse. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return ''
  }
}

/** A new target row (not stored yet): the reference's fillAndCreate defaults. */
export function newTarget(
  userId: string,
  input: { name?: string; url: string; disabled?: boolean }
): TargetRow {
  return {
    id: randomUUID(),
    userId,
    // The reference names an unnamed target after its URL's host.
    name: input.name || hostOf(input.url),
    url: input.url,
    disabled: input.disabled ?? false,
    createdAt: Date.now()
  }
}

export function insertTarget(db: Db, t: TargetRow): void {
  db.prepare(`INSERT INTO multistream_targets (${COLS}) VALUES (?, ?, ?, ?, ?, ?)`).run(
    t.id,
    t.userId,
    t.name,
    t.url,
    t.disabled ? 1 : 0,
    t.createdAt
  )
}

/** This user's target, or undefined: another user's target looks absent. */
export function getOwnTarget(db: Db, userId: string, id: string): TargetRow | undefined {
  const r = db
    .prepare(`SELECT ${COLS} FROM multistream_targets WHERE id = ? AND user_id = ?`)
    .get(id, userId) as RawRow | undefined
  return r && fromRaw(r)
}

/** Several of this user's targets at once (the forwarder's view of a stream's list). */
export function getOwnTargets(
  db: Db,
  userId: string,
  ids: readonly string[]
): Map<string, TargetRow> {
  const out = new Map<string, TargetRow>()
  for (const id of new Set(ids)) {
    const t = getOwnTarget(db, userId, id)
    if (t) out.set(id, t)
  }
  return out
}

export function listTargets(
  db: Db,
  userId: string,
  offset: number,
  limit: number
): { rows: TargetRow[]; total: number } {
  const rows = db
    .prepare(
      `SELECT ${COLS} FROM multistream_targets WHERE user_id = ?
       ORDER BY created_at, id LIMIT ? OFFSET ?`
    )
    .all(userId, limit, offset) as RawRow[]
  const total = (
    db.prepare('SELECT count(*) AS n FROM multistream_targets WHERE user_id = ?').get(userId) as {
      n: number
    }
  ).n
  return { rows: rows.map(fromRaw), total }
}

export function updateTarget(
  db: Db,
  id: string,
  patch: { name?: string; url?: string; disabled?: boolean }
): void {
  const fields: Array<[string, unknown]> = []
  if (patch.name !== undefined) fields.push(['name', patch.name])
  if (patch.url !== undefined) fields.push(['url', patch.url])
  if (patch.disabled !== undefined) fields.push(['disabled', patch.disabled ? 1 : 0])
  if (fields.length === 0) return
  const sets = fields.map(([column]) => `${column} = ?`)
  const values = fields.map(([, value]) => value)
  db.prepare(`UPDATE multistream_targets SET ${sets.join(', ')} WHERE id = ?`).run(...values, id)
}

export function deleteTarget(db: Db, id: string): void {
  db.prepare('DELETE FROM multistream_targets WHERE id = ?').run(id)
}

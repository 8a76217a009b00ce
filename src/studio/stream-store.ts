// Parent streams in SQLite. Queryable fields are columns; the rest of the reference's stream object
// is kept as a JSON document, so new optional fields need no migration.
import { randomBytes, randomUUID } from 'node:crypto'
import type { Profile } from '../shared/profiles'
import type { Db } from './db'

/** Fields kept in the `doc` column. */
export interface StreamDoc {
  name: string
  profiles: Profile[]
  record: boolean
  suspended: boolean
  createdByTokenName: string
  lastTerminatedAt: number | null
  sourceSegmentsDuration: number
  creatorId?: { type: 'unverified'; value: string }
  userTags?: Record<string, unknown>
  playbackPolicy?: Record<string, unknown> | null
  recordingSpec?: Record<string, unknown>
  multistream: { targets: unknown[] }
}

export interface StreamRow {
  id: string
  userId: string
  streamKey: string
  playbackId: string
  createdAt: number
  deleted: boolean
  isActive: boolean
  lastSeen: number
  doc: StreamDoc
}

interface RawRow {
  id: string
  user_id: string
  stream_key: string
  playback_id: string
  created_at: number
  deleted: number
  is_active: number
  last_seen: number
  doc: string
}

const COLS = 'id, user_id, stream_key, playback_id, created_at, deleted, is_active, last_seen, doc'

const fromRaw = (r: RawRow): StreamRow => ({
  id: r.id,
  userId: r.user_id,
  streamKey: r.stream_key,
  playbackId: r.playback_id,
  createdAt: r.created_at,
  deleted: r.deleted === 1,
  isActive: r.is_active === 1,
  lastSeen: r.last_seen,
  doc: JSON.parse(r.doc) as StreamDoc
})

const B36 = '0123456789abcdefghijklmnopqrstuvwxyz'
function base36(n: number): string {
  const bytes = randomBytes(n)
  let s = ''
  // 252 = 7 * 36: rejection keeps the characters uniform.
  for (const b of bytes) s += b < 252 ? B36[b % 36] : B36[randomBytes(1)[0]! % 36]
  return s
}

/** The reference's key shapes: both start with the id's first 4 characters (its shard key). */
export function makeKeys(id: string): { streamKey: string; playbackId: string } {
  const head = id.slice(0, 4)
  const k = head + base36(12)
  const streamKey = `${k.slice(0, 4)}-${k.slice(4, 8)}-${k.slice(8, 12)}-${k.slice(12, 16)}`
  return { streamKey, playbackId: head + base36(12) }
}

/**
 * The stream object as the API returns it (the reference's default fields included). `health` is
 * the live run's (multistream targets retrying); without it isHealthy and issues are null.
 */
export function streamToApi(
  s: StreamRow,
  health?: { isHealthy: boolean; issues: string[] }
): Record<string, unknown> {
  const d = s.doc
  return {
    id: s.id,
    kind: 'stream',
    name: d.name,
    ...(d.creatorId ? { creatorId: d.creatorId } : {}),
    ...(d.userTags ? { userTags: d.userTags } : {}),
    lastSeen: s.lastSeen,
    sourceSegments: 0,
    transcodedSegments: 0,
    sourceSegmentsDuration: d.sourceSegmentsDuration,
    transcodedSegmentsDuration: d.profiles.length > 0 ? d.sourceSegmentsDuration : 0,
    sourceBytes: 0,
    transcodedBytes: 0,
    isActive: s.isActive,
    isHealthy: health ? health.isHealthy : null,
    issues: health ? health.issues : null,
    createdByTokenName: d.createdByTokenName,
    createdAt: s.createdAt,
    streamKey: s.streamKey,
    playbackId: s.playbackId,
    ...(d.playbackPolicy !== undefined ? { playbackPolicy: d.playbackPolicy } : {}),
    profiles: d.profiles,
    projectId: '',
    record: d.record,
    ...(d.recordingSpec ? { recordingSpec: d.recordingSpec } : {}),
    multistream: d.multistream,
    suspended: d.suspended,
    lastTerminatedAt: d.lastTerminatedAt,
    userId: s.userId,
    renditions: {}
  }
}

export function insertStream(db: Db, userId: string, doc: StreamDoc): StreamRow {
  const id = randomUUID()
  const { streamKey, playbackId } = makeKeys(id)
  const createdAt = Date.now()
  db.prepare(
    `INSERT INTO streams (id, user_id, stream_key, playback_id, created_at, doc) VALUES (?, ?, ?, ?, ?, ?)`
  ).run(id, userId, streamKey, playbackId, createdAt, JSON.stringify(doc))
  return {
    id,
    userId,
    streamKey,
    playbackId,
    createdAt,
    deleted: false,
    isActive: false,
    lastSeen: 0,
    doc
  }
}

/** A live (not deleted) stream of this user, or undefined: others' streams look absent. */
export function getOwnStream(db: Db, userId: string, id: string): StreamRow | undefined {
  const r = db
    .prepare(`SELECT ${COLS} FROM streams WHERE id = ? AND user_id = ? AND deleted = 0`)
    .get(id, userId) as RawRow | undefined
  return r && fromRaw(r)
}

export function getStreamByKey(db: Db, streamKey: string): StreamRow | undefined {
  const r = db.prepare(`SELECT ${COLS} FROM streams WHERE stream_key = ?`).get(streamKey) as
    RawRow | undefined
  return r && fromRaw(r)
}

export function getStreamByPlaybackId(db: Db, playbackId: string): StreamRow | undefined {
  const r = db
    .prepare(`SELECT ${COLS} FROM streams WHERE playback_id = ? AND deleted = 0`)
    .get(playbackId) as RawRow | undefined
  return r && fromRaw(r)
}

export function listStreams(
  db: Db,
  userId: string,
  offset: number,
  limit: number,
  activeOnly: boolean
): { rows: StreamRow[]; total: number } {
  const where = `user_id = ? AND deleted = 0${activeOnly ? ' AND is_active = 1' : ''}`
  const rows = db
    .prepare(
      `SELECT ${COLS} FROM streams WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`
    )
    .all(userId, limit, offset) as RawRow[]
  const total = (
    db.prepare(`SELECT count(*) AS n FROM streams WHERE ${where}`).get(userId) as {
      n: number
    }
  ).n
  return { rows: rows.map(fromRaw), total }
}

export function saveDoc(db: Db, id: string, doc: StreamDoc): void {
  db.prepare('UPDATE streams SET doc = ? WHERE id = ?').run(JSON.stringify(doc), id)
}

export function markDeleted(db: Db, id: string): void {
  db.prepare('UPDATE streams SET deleted = 1, is_active = 0 WHERE id = ?').run(id)
}

export function setActive(db: Db, id: string, active: boolean, lastSeen: number): void {
  db.prepare('UPDATE streams SET is_active = ?, last_seen = ? WHERE id = ?').run(
    active ? 1 : 0,
    lastSeen,
    id
  )
}

/** After a crash no stream can still be live: nothing is publishing into a fresh process. */
export function deactivateAll(db: Db): void {
  db.prepare('UPDATE streams SET is_active = 0 WHERE is_active = 1').run()
}

/**
 * Live progress goes into the doc with one SQL statement, so it never overwrites a concurrent
 * PATCH.
 */
export function setStreamDuration(db: Db, id: string, seconds: number): void {
  db.prepare(
    `UPDATE streams SET doc = json_set(doc, '$.sourceSegmentsDuration', ?) WHERE id = ?`
  ).run(seconds, id)
}

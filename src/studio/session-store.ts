// Sessions (one publish run of a parent stream, resumes included) in SQLite.
import type { Profile } from '../shared/profiles'
import type { Db } from './db'

export type RecordingStatus = 'waiting' | 'ready' | 'failed'

export interface SessionRow {
  id: string
  userId: string
  parentId: string
  playbackId: string
  name: string
  createdAt: number
  lastSeen: number
  record: boolean
  recordingStatus: RecordingStatus | null
  duration: number
  profiles: Profile[]
  runs: number
  endedAt: number | null
  hasMp4: boolean
}

interface RawRow {
  id: string
  user_id: string
  parent_id: string
  playback_id: string
  name: string | null
  created_at: number
  last_seen: number
  record: number
  recording_status: string | null
  duration: number
  profiles: string
  runs: number
  ended_at: number | null
  has_mp4: number
}

const COLS = `s.id, s.user_id, s.parent_id, s.playback_id, json_extract(p.doc, '$.name') AS name,
  s.created_at, s.last_seen, s.record, s.recording_status, s.duration, s.profiles, s.runs, s.ended_at,
  s.has_mp4`
const FROM = 'sessions s JOIN streams p ON p.id = s.parent_id'

const fromRaw = (r: RawRow): SessionRow => ({
  id: r.id,
  userId: r.user_id,
  parentId: r.parent_id,
  playbackId: r.playback_id,
  name: r.name ?? '',
  createdAt: r.created_at,
  lastSeen: r.last_seen,
  record: r.record === 1,
  recordingStatus: r.recording_status as RecordingStatus | null,
  duration: r.duration,
  profiles: JSON.parse(r.profiles) as Profile[],
  runs: r.runs,
  endedAt: r.ended_at,
  hasMp4: r.has_mp4 === 1
})

/** The session object as the API returns it; `base` is http://HOST:PORT. */
export function sessionToApi(s: SessionRow, base: string): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: s.id,
    kind: 'session',
    name: s.name,
    userId: s.userId,
    parentId: s.parentId,
    playbackId: s.playbackId,
    createdAt: s.createdAt,
    lastSeen: s.lastSeen,
    sourceSegments: 0,
    transcodedSegments: 0,
    sourceSegmentsDuration: Math.round(s.duration * 1000) / 1000,
    transcodedSegmentsDuration: s.profiles.length > 0 ? Math.round(s.duration * 1000) / 1000 : 0,
    sourceBytes: 0,
    transcodedBytes: 0,
    ingestRate: 0,
    outgoingRate: 0,
    isHealthy: null,
    issues: null,
    projectId: '',
    record: s.record,
    profiles: s.profiles
  }
  if (s.record) {
    out.recordingStatus = s.recordingStatus ?? 'waiting'
    if (s.recordingStatus === 'ready') {
      out.recordingUrl = `${base}/recordings/${s.id}/index.m3u8`
      if (s.hasMp4) out.mp4Url = `${base}/recordings/${s.id}/${MP4_NAME}`
    }
  }
  return out
}

/** The MP4 of a recording: its top rendition remuxed, next to the playlists. */
export const MP4_NAME = 'recording.mp4'

export function insertSession(db: Db, s: SessionRow): void {
  db.prepare(
    `INSERT INTO sessions (id, user_id, parent_id, playback_id, created_at, last_seen, record,
       recording_status, duration, profiles, runs, ended_at, has_mp4)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
  ).run(
    s.id,
    s.userId,
    s.parentId,
    s.playbackId,
    s.createdAt,
    s.lastSeen,
    s.record ? 1 : 0,
    s.recordingStatus,
    s.duration,
    JSON.stringify(s.profiles),
    s.runs,
    s.endedAt,
    s.hasMp4 ? 1 : 0
  )
}

export function getSession(db: Db, id: string): SessionRow | undefined {
  const r = db.prepare(`SELECT ${COLS} FROM ${FROM} WHERE s.id = ?`).get(id) as RawRow | undefined
  return r && fromRaw(r)
}

export function listUserSessions(
  db: Db,
  userId: string,
  offset: number,
  limit: number
): { rows: SessionRow[]; total: number } {
  const rows = db
    .prepare(
      `SELECT ${COLS} FROM ${FROM} WHERE s.user_id = ?
       ORDER BY s.created_at DESC, s.id DESC LIMIT ? OFFSET ?`
    )
    .all(userId, limit, offset) as RawRow[]
  const total = (
    db.prepare('SELECT count(*) AS n FROM sessions WHERE user_id = ?').get(userId) as { n: number }
  ).n
  return { rows: rows.map(fromRaw), total }
}

export function listParentSessions(
  db: Db,
  parentId: string,
  record: boolean | undefined,
  offset: number,
  limit: number
): { rows: SessionRow[]; total: number } {
  const filter = record === undefined ? '' : ` AND s.record = ${record ? 1 : 0}`
  const rows = db
    .prepare(
      `SELECT ${COLS} FROM ${FROM} WHERE s.parent_id = ?${filter}
       ORDER BY s.created_at DESC, s.id DESC LIMIT ? OFFSET ?`
    )
    .all(parentId, limit, offset) as RawRow[]
  const total = (
    db
      .prepare(`SELECT count(*) AS n FROM sessions s WHERE s.parent_id = ?${filter}`)
      .get(parentId) as { n: number }
  ).n
  return { rows: rows.map(fromRaw), total }
}

export function updateProgress(db: Db, id: string, duration: number, lastSeen: number): void {
  db.prepare('UPDATE sessions SET duration = ?, last_seen = ? WHERE id = ?').run(
    duration,
    lastSeen,
    id
  )
}

export function setRuns(db: Db, id: string, runs: number): void {
  db.prepare('UPDATE sessions SET runs = ? WHERE id = ?').run(runs, id)
}

export function finishSession(
  db: Db,
  id: string,
  fields: { duration: number; status: RecordingStatus | null; hasMp4: boolean }
): void {
  db.prepare(
    `UPDATE sessions SET duration = ?, recording_status = ?, has_mp4 = ?, ended_at = ? WHERE id = ?`
  ).run(fields.duration, fields.status, fields.hasMp4 ? 1 : 0, Date.now(), id)
}

/** The stream's session that is still open (live, or inside its resume window), if any. */
export function openSessionOf(db: Db, parentId: string): SessionRow | undefined {
  const r = db
    .prepare(
      `SELECT ${COLS} FROM ${FROM} WHERE s.parent_id = ? AND s.ended_at IS NULL
       ORDER BY s.created_at DESC LIMIT 1`
    )
    .get(parentId) as RawRow | undefined
  return r && fromRaw(r)
}

/** Sessions a killed process left open: the next start finalizes them. */
export function listOpenSessions(db: Db): SessionRow[] {
  return (db.prepare(`SELECT ${COLS} FROM ${FROM} WHERE s.ended_at IS NULL`).all() as RawRow[]).map(
    fromRaw
  )
}

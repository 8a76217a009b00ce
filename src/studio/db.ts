// The studio's store: one SQLite file (libsql, better-sqlite3 API) in the data dir, WAL so the API
// can read while ingest writes, and numbered migrations so a data dir from an older build keeps
// working.
import Database from 'libsql'
import { join } from 'node:path'

export type Db = InstanceType<typeof Database>

const MIGRATIONS: string[] = [
  // 1: users, hashed API keys, streams, sessions
  `CREATE TABLE users (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL UNIQUE,
     created_at INTEGER NOT NULL
   );
   CREATE TABLE api_keys (
     id TEXT PRIMARY KEY,
     user_id TEXT NOT NULL REFERENCES users(id),
     name TEXT NOT NULL,
     key_hash TEXT NOT NULL UNIQUE,
     created_at INTEGER NOT NULL
   );
   CREATE TABLE streams (
     id TEXT PRIMARY KEY,
     user_id TEXT NOT NULL REFERENCES users(id),
     stream_key TEXT NOT NULL UNIQUE,
     playback_id TEXT NOT NULL UNIQUE,
     created_at INTEGER NOT NULL,
     deleted INTEGER NOT NULL DEFAULT 0,
     is_active INTEGER NOT NULL DEFAULT 0,
     last_seen INTEGER NOT NULL DEFAULT 0,
     doc TEXT NOT NULL
   );
   CREATE INDEX streams_user ON streams(user_id, deleted, created_at DESC);
   CREATE TABLE sessions (
     id TEXT PRIMARY KEY,
     user_id TEXT NOT NULL REFERENCES users(id),
     parent_id TEXT NOT NULL REFERENCES streams(id),
     playback_id TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     last_seen INTEGER NOT NULL DEFAULT 0,
     record INTEGER NOT NULL,
     recording_status TEXT,
     duration REAL NOT NULL DEFAULT 0,
     profiles TEXT NOT NULL,
     runs INTEGER NOT NULL DEFAULT 0,
     ended_at INTEGER,
     has_mp4 INTEGER NOT NULL DEFAULT 0
   );
   CREATE INDEX sessions_user ON sessions(user_id, created_at DESC);
   CREATE INDEX sessions_parent ON sessions(parent_id, created_at DESC);
   CREATE INDEX sessions_open ON sessions(ended_at) WHERE ended_at IS NULL;`,
  // 2: multistream targets (the push URL, with its stream key, is kept here and never returned)
  `CREATE TABLE multistream_targets (
     id TEXT PRIMARY KEY,
     user_id TEXT NOT NULL REFERENCES users(id),
     name TEXT NOT NULL,
     url TEXT NOT NULL,
     disabled INTEGER NOT NULL DEFAULT 0,
     created_at INTEGER NOT NULL
   );
   CREATE INDEX multistream_targets_user ON multistream_targets(user_id, created_at, id);`,
  // 3: assets (clips of a live stream or a recording, studio/clips.ts)
  `CREATE TABLE assets (
     id TEXT PRIMARY KEY,
     user_id TEXT NOT NULL REFERENCES users(id),
     playback_id TEXT NOT NULL UNIQUE,
     stream_id TEXT NOT NULL,
     stream_playback_id TEXT NOT NULL,
     session_id TEXT NOT NULL,
     name TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL,
     phase TEXT NOT NULL,
     error TEXT,
     start_time INTEGER NOT NULL,
     end_time INTEGER NOT NULL,
     clip_start INTEGER,
     clip_end INTEGER,
     duration REAL,
     size INTEGER
   );
   CREATE INDEX assets_user ON assets(user_id, created_at DESC);
   CREATE INDEX assets_stream ON assets(stream_id, created_at DESC);
   CREATE INDEX assets_session ON assets(session_id, created_at DESC);`,
  // 4: webhooks and their delivery log (the shared secret is kept here and never returned)
  `CREATE TABLE webhooks (
     id TEXT PRIMARY KEY,
     user_id TEXT NOT NULL REFERENCES users(id),
     created_at INTEGER NOT NULL,
     shared_secret TEXT,
     doc TEXT NOT NULL
   );
   CREATE INDEX webhooks_user ON webhooks(user_id, created_at DESC);
   CREATE TABLE webhook_logs (
     id TEXT PRIMARY KEY,
     webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
     user_id TEXT NOT NULL REFERENCES users(id),
     event_id TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     doc TEXT NOT NULL
   );
   CREATE INDEX webhook_logs_webhook ON webhook_logs(webhook_id, created_at DESC);`,
  // 5: uploaded assets (studio/uploads): what made the asset, and the upload's tus id and token
  `ALTER TABLE assets ADD COLUMN source_type TEXT NOT NULL DEFAULT 'clip';
   ALTER TABLE assets ADD COLUMN upload_id TEXT;
   ALTER TABLE assets ADD COLUMN upload_token TEXT;
   CREATE UNIQUE INDEX assets_upload_id ON assets(upload_id) WHERE upload_id IS NOT NULL;
   CREATE UNIQUE INDEX assets_upload_token ON assets(upload_token) WHERE upload_token IS NOT NULL;`
]

/**
 * Runs fn in one transaction. libsql's own db.transaction() answers ROLLBACK after any error, and when
 * SQLite has already rolled back by itself (a full disk: SQLITE_FULL) that ROLLBACK fails with "no
 * transaction is active" and hides the real cause. Here the cause is what is thrown.
 */
export function inTransaction<T>(db: Db, fn: () => T): T {
  db.exec('BEGIN')
  try {
    const result = fn()
    db.exec('COMMIT')
    return result
  } catch (err) {
    if (db.inTransaction) {
      try {
        db.exec('ROLLBACK')
      } catch {
        // The error that matters is the one that made us roll back.
      }
    }
    throw err
  }
}

/** Opens (creating if needed) the store and brings its schema to the newest version. */
export function openDb(dataDir: string): Db {
  const db = new Database(join(dataDir, 'studio.db'))
  db.pragma('journal_mode = WAL')
  // NORMAL is durable across application crashes in WAL mode (only an OS crash can lose the last
  // commit).
  db.pragma('synchronous = NORMAL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  migrate(db)
  return db
}

function migrate(db: Db): void {
  const current = pragmaValue(db, 'user_version', 'user_version')
  for (let v = current; v < MIGRATIONS.length; v++) {
    inTransaction(db, () => {
      db.exec(MIGRATIONS[v]!)
      db.pragma(`user_version = ${v + 1}`)
    })
  }
}

// libsql's pragma({simple}) returns the whole row; read the one column ourselves.
function pragmaValue(db: Db, pragma: string, column: string): number {
  const row = db.prepare(`PRAGMA ${pragma}`).get() as Record<string, unknown>
  return Number(row[column] ?? 0)
}

// Seeds finished sessions straight into a studio's store, for UI and API benchmarks that need
// thousands of rows fast. Safe while the studio runs (WAL + busy timeout). Seeded "ready" sessions
// have no media on disk: their recordingUrl answers 404.
import { randomUUID } from 'node:crypto'
import { resolve } from 'node:path'
import { RECOMMENDED_PROFILES } from '../../src/shared/profiles'
import { hashKey } from '../../src/studio/auth'
import { inTransaction, openDb } from '../../src/studio/db'
import { insertSession, type RecordingStatus } from '../../src/studio/session-store'
import { insertStream } from '../../src/studio/stream-store'

export async function seedSessions(
  dataDir: string,
  apiKey: string,
  n: number,
  opts: { streamName?: string } = {}
): Promise<{ streamId: string }> {
  const db = openDb(resolve(dataDir))
  try {
    const user = db
      .prepare('SELECT k.user_id AS id, k.name AS tokenName FROM api_keys k WHERE k.key_hash = ?')
      .get(hashKey(apiKey)) as { id: string; tokenName: string } | undefined
    if (!user) throw new Error('seedSessions: no user has this API key in that data dir')
    const profiles = [...RECOMMENDED_PROFILES]
    const streamId = inTransaction(db, () => {
      const stream = insertStream(db, user.id, {
        name: opts.streamName ?? 'Seeded stream',
        profiles,
        record: true,
        suspended: false,
        createdByTokenName: user.tokenName,
        lastTerminatedAt: null,
        sourceSegmentsDuration: 0,
        multistream: { targets: [] }
      })
      const now = Date.now()
      for (let i = 0; i < n; i++) {
        // Every 7th unrecorded, every 11th recording failed, the rest ready; 30 s to ~1 h long.
        const record = i % 7 !== 3
        const status: RecordingStatus | null = !record ? null : i % 11 === 5 ? 'failed' : 'ready'
        const duration = 30 + ((i * 7919) % 3570) + (i % 10) / 10
        const createdAt = now - (i + 1) * 3_600_000 - ((i * 104_729) % 600_000)
        insertSession(db, {
          id: randomUUID(),
          userId: user.id,
          parentId: stream.id,
          playbackId: stream.playbackId,
          name: stream.doc.name,
          createdAt,
          lastSeen: createdAt + Math.round(duration * 1000),
          record,
          recordingStatus: status,
          duration,
          profiles,
          runs: 1,
          endedAt: createdAt + Math.round(duration * 1000) + 2000,
          hasMp4: status === 'ready'
        })
      }
      return stream.id
    })
    return { streamId }
  } finally {
    db.close()
  }
}

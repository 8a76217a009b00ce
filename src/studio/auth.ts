// Users and API keys. Keys are shown once, when made, and stored only as a SHA-256 hash: a copied
// studio.db does not hand out working keys.
import { createHash, randomUUID } from 'node:crypto'
import { inTransaction, type Db } from './db'

export interface User {
  id: string
  name: string
}

export interface AuthedUser extends User {
  tokenName: string
}

export const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex')

/**
 * Finds the user by name or makes it, then makes a new API key for it. Returns the key in clear.
 */
export function createUserKey(db: Db, userName = 'local'): { user: User; apiKey: string } {
  const now = Date.now()
  return inTransaction(db, () => {
    let row = db.prepare('SELECT id, name FROM users WHERE name = ?').get(userName) as
      { id: string; name: string } | undefined
    if (!row) {
      row = { id: randomUUID(), name: userName }
      db.prepare('INSERT INTO users (id, name, created_at) VALUES (?, ?, ?)').run(
        row.id,
        userName,
        now
      )
    }
    const apiKey = randomUUID()
    const count = db
      .prepare('SELECT count(*) AS n FROM api_keys WHERE user_id = ?')
      .get(row.id) as {
      n: number
    }
    db.prepare(
      'INSERT INTO api_keys (id, user_id, name, key_hash, created_at) VALUES (?, ?, ?, ?, ?)'
    ).run(randomUUID(), row.id, `key ${count.n + 1}`, hashKey(apiKey), now)
    return { user: { id: row.id, name: row.name }, apiKey }
  })
}

export type AuthResult = { ok: true; user: AuthedUser } | { ok: false; message: string }

/**
 * `<scheme> <credentials>` with any white space around and between, or undefined. In one pass:
 * a backtracking pattern (/^\s*(\w+)\s+(.+?)\s*$/) took ~95 ms on `Bearer a` + 15,500 spaces + `b`.
 */
export function parseAuthorization(
  header: string
): { scheme: string; credentials: string } | undefined {
  const s = header.trim()
  const gap = s.search(/\s/)
  if (gap <= 0) return undefined
  const scheme = s.slice(0, gap)
  if (!/^\w+$/.test(scheme)) return undefined
  return { scheme, credentials: s.slice(gap).trimStart() }
}

/** Reads `Authorization: Bearer <key>` (scheme case- and space-insensitive, as the reference). */
export function authenticate(db: Db, header: string | undefined): AuthResult {
  if (!header || !header.trim()) return { ok: false, message: 'request is not authenticated' }
  const m = parseAuthorization(header)
  if (!m) return { ok: false, message: 'request is not authenticated' }
  if (m.scheme.toLowerCase() !== 'bearer') {
    return {
      ok: false,
      message: `unsupported authorization header scheme: ${m.scheme.slice(0, 20)}`
    }
  }
  const row = db
    .prepare(
      `SELECT u.id AS id, u.name AS name, k.name AS tokenName
       FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = ?`
    )
    .get(hashKey(m.credentials)) as { id: string; name: string; tokenName: string } | undefined
  // The reference echoes the key in this message; we do not, keys never appear in responses or
  // logs.
  if (!row) return { ok: false, message: 'no token found for this API key' }
  return { ok: true, user: { id: row.id, name: row.name, tokenName: row.tokenName } }
}

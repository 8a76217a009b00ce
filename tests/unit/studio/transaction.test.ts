// inTransaction keeps the real cause: after SQLite rolled a transaction back by itself (a full disk),
// libsql's own transaction() threw "cannot rollback - no transaction is active" instead of SQLITE_FULL,
// and the studio answered 500 instead of 507.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { inTransaction, openDb, type Db } from '../../../src/studio/db'

let dir: string
let db: Db
afterEach(() => {
  db?.close()
  rmSync(dir, { recursive: true, force: true })
})

const open = (): Db => {
  dir = mkdtempSync(join(tmpdir(), 'onair-txn-'))
  db = openDb(dir)
  db.exec('CREATE TABLE t (v TEXT)')
  return db
}
const count = (): number => (db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n

describe('inTransaction', () => {
  it('commits what fn wrote and returns its result', () => {
    open()
    expect(inTransaction(db, () => db.prepare('INSERT INTO t VALUES (?)').run('a').changes)).toBe(1)
    expect(count()).toBe(1)
  })

  it('rolls back and rethrows the error fn threw', () => {
    open()
    expect(() =>
      inTransaction(db, () => {
        db.prepare('INSERT INTO t VALUES (?)').run('a')
        throw new Error('boom')
      })
    ).toThrow('boom')
    expect(count()).toBe(0)
    expect(db.inTransaction).toBe(false)
  })

  it('rethrows the real cause when SQLite already rolled back (as on SQLITE_FULL)', () => {
    open()
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })
    expect(() =>
      inTransaction(db, () => {
        db.prepare('INSERT INTO t VALUES (?)').run('a')
        db.exec('ROLLBACK') // what SQLite does by itself on a full disk
        throw full
      })
    ).toThrow(full)
    expect(count()).toBe(0)
  })
})

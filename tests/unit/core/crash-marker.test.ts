// The crash marker (main/core/crash-marker.ts): written when a run starts, refreshed while it runs,
// removed when it ends in order; what a previous process left is read back, and a half-written or
// foreign file is not taken for one.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { CrashMarker, MARKER_FILE, MARKER_REFRESH_MS } from '../../../src/main/core/crash-marker'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'onair-marker-'))
  dirs.push(d)
  return d
}
const RUN = { runId: 'r1', streamId: 's1', streamName: 'Morning show', connectionId: 'local' }

describe('crash marker', () => {
  it('is there from the start of a run until it ends in order, with no tmp file left', () => {
    const dir = tmp()
    let now = 1_000_000
    const m = new CrashMarker(dir, () => now)
    m.started(RUN)
    expect(new CrashMarker(dir).read()).toEqual({
      ...RUN,
      startedAt: 1_000_000,
      aliveAt: 1_000_000
    })
    now += MARKER_REFRESH_MS - 1
    m.alive('r1')
    expect(new CrashMarker(dir).read()!.aliveAt).toBe(1_000_000)
    now += 1
    m.alive('r1')
    m.alive('another run')
    expect(new CrashMarker(dir).read()!.aliveAt).toBe(1_000_000 + MARKER_REFRESH_MS)
    m.ended('another run')
    expect(existsSync(join(dir, MARKER_FILE))).toBe(true)
    m.ended('r1')
    expect(existsSync(join(dir, MARKER_FILE))).toBe(false)
    expect(readdirSync(dir)).toEqual([])
  })

  it("forgets a previous process's marker, but never one a run of this process wrote over it", () => {
    const dir = tmp()
    new CrashMarker(dir).started(RUN)
    const next = new CrashMarker(dir)
    expect(next.read()?.runId).toBe('r1')
    next.forget('r1')
    expect(next.read()).toBeNull()

    new CrashMarker(dir).started(RUN)
    const live = new CrashMarker(dir)
    live.started({ ...RUN, runId: 'r2' })
    live.forget('r1')
    expect(live.read()?.runId).toBe('r2')
  })

  it('reads a half-written or foreign file as no marker', () => {
    const dir = tmp()
    writeFileSync(join(dir, MARKER_FILE), '{"runId":"r1","streamId"')
    expect(new CrashMarker(dir).read()).toBeNull()
    writeFileSync(join(dir, MARKER_FILE), JSON.stringify({ runId: 'r1' }))
    expect(new CrashMarker(dir).read()).toBeNull()
    expect(new CrashMarker(join(dir, 'missing')).read()).toBeNull()
  })
})

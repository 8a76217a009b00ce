// Markers (#20): kept per connection and stream across restarts, listed by time, bounded, never lost
// to a damaged file; and placed on a recording's timeline by its wall-clock times (shared/markers).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Markers, MARKERS_PER_STREAM } from '../../../src/main/core/markers'
import {
  markerClipSpan,
  MARKER_LABEL_MAX,
  timelinePosition,
  wallClockAt,
  type TimedFragment
} from '../../../src/shared/markers'
import { AppFailure } from '../../../src/shared/result'

const dirs: string[] = []
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'onair-markers-'))
  dirs.push(d)
  return d
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe('Markers', () => {
  it('keeps markers per connection and stream, in time order, across a restart', () => {
    const dir = tmp()
    const m = new Markers(dir, () => 5_000)
    const b = m.add('local', 's1', 2_000, '  the   goal ')
    const a = m.add('local', 's1', 1_000)
    const now = m.add('local', 's1')
    m.add('local', 's2', 1_500)
    m.add('livepeer', 's1', 1_200)
    const again = new Markers(dir)
    expect(again.forStream('local', 's1')).toEqual([a, b, now])
    expect(b.label).toBe('the goal')
    expect(now.at).toBe(5_000)
    expect(again.forStream('local', 's1', 1_500, 4_000)).toEqual([b])
    expect(again.forStream('livepeer', 's1').map((x) => x.at)).toEqual([1_200])
  })

  it('labels and deletes only within its connection; an unknown marker is a clear failure', () => {
    const m = new Markers(tmp())
    const x = m.add('local', 's1', 1_000, 'x')
    expect(() => m.label('livepeer', x.id, 'y')).toThrow(AppFailure)
    expect(m.label('local', x.id, 'y'.repeat(500)).label).toHaveLength(MARKER_LABEL_MAX)
    expect(m.label('local', x.id, '   ').label).toBeUndefined()
    expect(() => m.remove('livepeer', x.id)).toThrow(/not there any more/)
    m.remove('local', x.id)
    expect(m.forStream('local', 's1')).toEqual([])
  })

  it('keeps a stream to its newest MARKERS_PER_STREAM', () => {
    const m = new Markers(tmp())
    for (let i = 0; i <= MARKERS_PER_STREAM; i++) m.add('local', 's1', 1_000 + i)
    const list = m.forStream('local', 's1')
    expect(list).toHaveLength(MARKERS_PER_STREAM)
    expect(list[0]!.at).toBe(1_001)
  })

  it('sets a damaged file aside instead of overwriting it', () => {
    const dir = tmp()
    writeFileSync(join(dir, 'markers.json'), '{"markers": [oops')
    const m = new Markers(dir, () => 42)
    expect(m.forStream('local', 's1')).toEqual([])
    m.add('local', 's1', 1_000)
    const aside = readdirSync(dir).find((f) => f.startsWith('markers.json.unreadable-'))
    expect(aside).toBeDefined()
    expect(readFileSync(join(dir, aside!), 'utf8')).toBe('{"markers": [oops')
    expect(existsSync(join(dir, 'markers.json'))).toBe(true)
  })
})

describe('a marker on the timeline', () => {
  const T = Date.parse('2026-11-25T20:00:00Z')
  // Two runs: 0-10 s of timeline from T, then (after a 60 s gap in wall time) 10-16 s.
  const frags: TimedFragment[] = [
    { start: 0, duration: 4, programDateTime: T },
    { start: 4, duration: 6, programDateTime: T + 4_000 },
    { start: 10, duration: 6, programDateTime: T + 70_000 },
    { start: 16, duration: 2, programDateTime: null }
  ]

  it('is placed by the wall-clock time of the fragment that holds it', () => {
    expect(timelinePosition(frags, T + 2_500)).toBe(2.5)
    expect(timelinePosition(frags, T + 72_000)).toBe(12)
  })

  it('is not placed in a gap or outside the recording', () => {
    expect(timelinePosition(frags, T + 30_000)).toBeUndefined()
    expect(timelinePosition(frags, T - 1)).toBeUndefined()
    expect(timelinePosition(frags, T + 90_000)).toBeUndefined()
  })

  it('maps a timeline position back to its wall-clock time (marks in and out)', () => {
    expect(wallClockAt(frags, 12)).toBe(T + 72_000)
    expect(wallClockAt(frags, 17)).toBeUndefined()
    expect(markerClipSpan(T)).toEqual({ startTime: T - 20_000, endTime: T + 10_000 })
  })
})

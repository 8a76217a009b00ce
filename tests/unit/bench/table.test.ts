// bench/results.md computed from the recorded runs (scripts/bench/table.ts, #36 §4): each row the median
// of its runs, grouped by section and row, with the runs counted, the commits spanned and the goal judged
// on the median (of the value, or of the per-run ratio to the reference).
import { describe, expect, it } from 'vitest'
import {
  group,
  meets,
  parseRetired,
  parseRuns,
  recordsOf,
  renderResults,
  tableRow,
  type RunRecord
} from '../../../scripts/bench/table'

let n = 0
const rec = (over: Partial<RunRecord> & { value: number | null }): RunRecord => ({
  row: 'go live',
  section: 'Broadcaster',
  unit: 's',
  commit: 'aaaaaaa',
  date: `2026-11-27T10:00:0${n++ % 10}Z`,
  cores: 2,
  run: `run-${n}`,
  command: 'npm run bench:live',
  ...over
})

describe('a row from its runs', () => {
  it('is the median of the runs that measured it, odd and even counts, unmeasured runs counted apart', () => {
    const odd = tableRow([rec({ value: 3 }), rec({ value: 1 }), rec({ value: 10 })])
    expect(odd.value).toBe(3)
    expect(odd.runs).toBe(3)
    const even = tableRow([
      rec({ value: 4 }),
      rec({ value: 1 }),
      rec({ value: 2 }),
      rec({ value: 100 }),
      rec({ value: null })
    ])
    expect(even.value).toBe(3)
    expect(even.runs).toBe(5)
    expect(even.measured).toBe(4)
    expect(tableRow([rec({ value: null })]).value).toBeNaN()
  })

  it('judges the goal on the median, not on the latest run', () => {
    const rows = [
      rec({ value: 0.8, goal: { max: 1 } }),
      rec({ value: 0.9, goal: { max: 1 } }),
      rec({ value: 1.4, goal: { max: 1 } })
    ]
    expect(tableRow(rows).met).toBe(true)
    expect(tableRow(rows.slice(1).concat(rec({ value: 1.2, goal: { max: 1 } }))).met).toBe(false)
    expect(tableRow([rec({ value: 0.5, goal: { min: 0.97 } })]).met).toBe(false)
    expect(tableRow([rec({ value: 0.5 })]).met).toBeUndefined()
  })

  it('judges a ratio goal on the median of the per-run ratios to the reference', () => {
    const ref = (v: number) => ({ name: 'shaped', value: v, unit: 'kbit/s' })
    const goal = { min: 0.65, max: 0.8, of: 'ratio' as const }
    const t = tableRow([
      rec({ value: 1400, reference: ref(2000), goal }),
      rec({ value: 1500, reference: ref(2000), goal }),
      rec({ value: 3000, reference: ref(3000), goal })
    ])
    expect(t.ratio).toBeCloseTo(0.75)
    expect(t.met).toBe(true)
    expect(t.reference?.value).toBe(2000)
  })

  it('names the commits it spans, oldest first, and its imported runs', () => {
    const t = tableRow([
      rec({ value: 1, commit: 'c1', imported: 'the previous table' }),
      rec({ value: 2, commit: 'c2' }),
      rec({ value: 3, commit: 'c2' })
    ])
    expect(t.commits).toEqual(['c1', 'c2'])
    expect(t.imported).toBe(1)
  })

  it('meets: both bounds inclusive, no verdict without a value', () => {
    expect(meets({ min: 1, max: 2 }, 1)).toBe(true)
    expect(meets({ min: 1, max: 2 }, 2)).toBe(true)
    expect(meets({ min: 1, max: 2 }, 2.01)).toBe(false)
    expect(meets({ min: 1 }, 0.99)).toBe(false)
    expect(meets({ max: 1 }, NaN)).toBeUndefined()
  })
})

describe('grouping', () => {
  it('puts sections in the report order and rows as first recorded, each row its runs oldest first', () => {
    const records = [
      rec({ section: 'Uplink', row: 'u', value: 1, date: '2026-11-27T12:00:00Z' }),
      rec({ section: 'Local studio', row: 'b', value: 2, date: '2026-11-27T11:00:00Z' }),
      rec({ section: 'Local studio', row: 'a', value: 3, date: '2026-11-27T09:00:00Z' }),
      rec({ section: 'Local studio', row: 'b', value: 4, date: '2026-11-26T11:00:00Z' }),
      rec({ section: 'Something new', row: 'z', value: 5 })
    ]
    const g = group(records)
    expect([...g.keys()]).toEqual(['Local studio', 'Uplink', 'Something new'])
    expect([...g.get('Local studio')!.keys()]).toEqual(['b', 'a'])
    expect(
      g
        .get('Local studio')!
        .get('b')!
        .map((r) => r.value)
    ).toEqual([4, 2])
  })
})

describe('the report', () => {
  it('has a section per group naming its command, and each row its median, runs, goal and verdict', () => {
    const records = [
      ...recordsOf('Broadcaster', [{ name: 'go live', value: 0.7, unit: 's', goal: { max: 1 } }], {
        commit: 'c1',
        date: '2026-11-26T10:00:00Z',
        cores: 2,
        run: 'r1',
        command: 'npm run bench:live'
      }),
      ...recordsOf('Broadcaster', [{ name: 'go live', value: 1.3, unit: 's', goal: { max: 1 } }], {
        commit: 'c2',
        date: '2026-11-27T10:00:00Z',
        cores: 2,
        run: 'r2',
        command: 'npm run bench:live'
      }),
      ...recordsOf('Broadcaster', [{ name: 'go live', value: 0.9, unit: 's', goal: { max: 1 } }], {
        commit: 'c3',
        date: '2026-11-27T11:00:00Z',
        cores: 2,
        run: 'r3',
        command: 'npm run bench:live'
      })
    ]
    const md = renderResults(parseRuns(records.map((r) => JSON.stringify(r)).join('\n') + '\n'))
    expect(md).toContain('## Broadcaster')
    expect(md).toContain('Command: `npm run bench:live`.')
    const line = md.split('\n').find((l) => l.startsWith('| go live '))!
    expect(line).toContain('| 0.900 s |')
    expect(line).toContain('| 3, 2026-11-26..2026-11-27 |')
    expect(line).toContain('| <= 1.000 s | met |')
    expect(line).toContain('| c1..c3 |')
  })

  it('keeps an unmeasured figure as a run without a value (NaN does not survive JSON)', () => {
    const [r] = recordsOf('Uplink', [{ name: 'x', value: NaN, unit: 's' }], {
      commit: 'c',
      date: '2026-11-27T10:00:00Z',
      cores: 2,
      run: 'r',
      command: 'npm run bench:uplink'
    })
    expect(JSON.parse(JSON.stringify(r)).value).toBeNull()
  })

  it('leaves a retired run out of the median and lists it with its reason', () => {
    const run = (value: number, id: string): RunRecord[] =>
      recordsOf('Broadcaster', [{ name: 'go live', value, unit: 's', goal: { max: 1 } }], {
        commit: 'c',
        date: '2026-11-27T10:00:00Z',
        cores: 2,
        run: id,
        command: 'npm run bench:live'
      })
    const records = [...run(0.5, 'r1'), ...run(0.7, 'r2'), ...run(9, 'old')]
    const retired = parseRetired('{"run":"old","reason":"measured a path since removed"}\n')
    const line = (md: string): string => md.split('\n').find((l) => l.startsWith('| go live '))!
    expect(line(renderResults(records))).toContain('| 0.700 s | 3,')
    const md = renderResults(records, retired)
    expect(line(md)).toContain('| 0.600 s | 2,')
    expect(md).toContain('## Retired runs')
    expect(md).toContain('| old | 1 | go live | measured a path since removed |')
  })

  it("retires only the rows a retired line names, leaving the run's other rows counted", () => {
    const records = recordsOf(
      'Broadcaster',
      [
        { name: 'go live', value: 9, unit: 's' },
        { name: 'reconnect', value: 2, unit: 's' }
      ],
      {
        commit: 'c',
        date: '2026-11-27T10:00:00Z',
        cores: 2,
        run: 'imp',
        command: 'npm run bench:live'
      }
    )
    const retired = parseRetired(
      '{"run":"imp","reason":"measured before the fix","rows":["go live"]}\n'
    )
    const md = renderResults(records, retired)
    expect(md.split('\n').some((l) => l.startsWith('| go live '))).toBe(false)
    expect(md.split('\n').find((l) => l.startsWith('| reconnect '))).toContain('| 2.000 s | 1, ')
    expect(md).toContain('| imp | 1 | go live | measured before the fix |')
    expect(() => parseRetired('{"run":"imp","reason":"x","rows":[]}\n')).toThrow(/line 1/)
  })

  it('refuses a retired line without a reason', () => {
    expect(() => parseRetired('{"run":"r1","reason":"x"}\n{"run":"r2"}\n')).toThrow(/line 2/)
  })

  it('names the line of runs.jsonl that is not JSON', () => {
    expect(() => parseRuns('{"row":"a"}\n\nnot json\n')).toThrow(/line 3/)
  })
})

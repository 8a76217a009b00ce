// bench/results.md computed from bench/runs.jsonl: every bench run appends one line per figure it
// measured (runs.ts); this groups the lines by section and row and writes, per row, the median of its
// recorded runs, how many runs and from which commits and dates, its goal and whether the median meets
// it. Pure: no files, no clock (the unit tests feed it records).
import { median, type BenchRow, type Goal } from './types'

/** One measured figure of one run: a line of bench/runs.jsonl. */
export interface RunRecord {
  /** The row's name (the figure), unique within its section. */
  row: string
  section: string
  /** null when the run could not measure it (NaN does not survive JSON). */
  value: number | null
  unit: string
  goal?: Goal
  reference?: { name: string; value: number | null; unit: string }
  note?: string
  /** The commit the run was measured on (short hash), `+` when src/ or scripts/ had uncommitted changes. */
  commit: string
  /** When the run ended (ISO 8601, UTC); for an imported figure, when it was measured as far as known. */
  date: string
  /** The machine's logical CPU count. */
  cores: number
  /** One id per bench run: every figure of one `npm run bench…` shares it. */
  run: string
  /** The command that measures this row. */
  command: string
  /** Set on figures taken over from the hand-kept table, before runs were recorded: where from. */
  imported?: string
}

/** A record for each of a run's rows. */
export function recordsOf(
  section: string,
  rows: readonly BenchRow[],
  run: { commit: string; date: string; cores: number; run: string; command: string }
): RunRecord[] {
  const num = (v: number): number | null => (Number.isFinite(v) ? v : null)
  return rows.map((r) => ({
    row: r.name,
    section,
    value: num(r.value),
    unit: r.unit,
    ...(r.goal ? { goal: r.goal } : {}),
    ...(r.reference ? { reference: { ...r.reference, value: num(r.reference.value) } } : {}),
    ...(r.note ? { note: r.note } : {}),
    ...run
  }))
}

/** The report's sections in their order; a section not named here follows them, as first recorded. */
export const SECTION_ORDER = [
  'Local studio',
  'Live latency',
  'Broadcaster',
  'Renderer',
  'Studio mode',
  'Uplink',
  'Uplink (WebRTC)',
  'Uploads',
  'Encoder',
  'First-run setup test'
]

/** Livepeer Studio's documented figures: no way to measure them here (no internet), quoted as such. */
export const DOCUMENTED: readonly { name: string; value: number; unit: string; note: string }[] = [
  {
    name: 'Livepeer Studio recording ready after stream end (documented)',
    value: 300,
    unit: 's',
    note: 'Livepeer documents about 5 minutes; quoted, not measured'
  }
]

export const fmt = (v: number): string =>
  !Number.isFinite(v)
    ? 'n/a'
    : Math.abs(v) >= 100
      ? v.toFixed(0)
      : Math.abs(v) >= 10
        ? v.toFixed(1)
        : v.toFixed(3)

/** One row of the table, computed from its records (oldest first). */
export interface TableRow {
  name: string
  unit: string
  /** The median of the runs that measured it (NaN when none did). */
  value: number
  /** Runs recorded, and how many of them measured a value. */
  runs: number
  measured: number
  goal?: Goal
  /** Whether the median meets the goal; undefined without a goal or a value. */
  met?: boolean
  reference?: { name: string; value: number; unit: string }
  /** The median of the per-run ratios value / reference (each run's side by side). */
  ratio: number
  commits: string[]
  dates: string[]
  cores: number[]
  commands: string[]
  imported: number
  note: string
}

const uniq = <T>(xs: readonly T[]): T[] => [...new Set(xs)]

/** Whether `v` meets `goal`: min <= v <= max. */
export function meets(goal: Goal, v: number): boolean | undefined {
  if (!Number.isFinite(v)) return undefined
  if (goal.min !== undefined && v < goal.min) return false
  if (goal.max !== undefined && v > goal.max) return false
  return true
}

export function goalText(goal: Goal, unit: string): string {
  const u = goal.of === 'ratio' ? '× the reference' : unit ? ` ${unit}` : ''
  const sep = goal.of === 'ratio' ? '' : ''
  if (goal.min !== undefined && goal.max !== undefined)
    return `${fmt(goal.min)}-${fmt(goal.max)}${sep}${u}`
  if (goal.max !== undefined) return `<= ${fmt(goal.max)}${u}`
  if (goal.min !== undefined) return `>= ${fmt(goal.min)}${u}`
  return ''
}

/** One row from its records (oldest first): the median, the runs, the goal judged on the median. */
export function tableRow(records: readonly RunRecord[]): TableRow {
  const last = records[records.length - 1]
  if (!last) throw new Error('a row needs at least one record')
  const values = records.flatMap((r) => (r.value === null ? [] : [r.value]))
  const refs = records.flatMap((r) =>
    r.reference && r.reference.value !== null && r.reference.unit === last.reference?.unit
      ? [r.reference.value]
      : []
  )
  const ratios = records.flatMap((r) =>
    r.value !== null && r.reference?.value ? [r.value / r.reference.value] : []
  )
  const value = median(values)
  const ratio = median(ratios)
  const goal = last.goal
  const met = goal ? meets(goal, goal.of === 'ratio' ? ratio : value) : undefined
  return {
    name: last.row,
    unit: last.unit,
    value,
    runs: records.length,
    measured: values.length,
    ...(goal ? { goal } : {}),
    ...(met === undefined ? {} : { met }),
    ...(last.reference
      ? { reference: { name: last.reference.name, value: median(refs), unit: last.reference.unit } }
      : {}),
    ratio,
    commits: uniq(records.map((r) => r.commit)),
    dates: records.map((r) => r.date),
    cores: uniq(records.map((r) => r.cores)),
    commands: uniq(records.map((r) => r.command)),
    imported: records.filter((r) => r.imported).length,
    note: last.note ?? ''
  }
}

/** Records grouped by section (SECTION_ORDER, then as first seen) and row (as first seen), oldest first. */
export function group(records: readonly RunRecord[]): Map<string, Map<string, RunRecord[]>> {
  const sorted = records
    .map((r, i) => ({ r, i }))
    .sort((a, b) => a.r.date.localeCompare(b.r.date) || a.i - b.i)
  const firstSeen = uniq(records.map((r) => r.section))
  const order = [
    ...SECTION_ORDER.filter((s) => firstSeen.includes(s)),
    ...firstSeen.filter((s) => !SECTION_ORDER.includes(s))
  ]
  const out = new Map<string, Map<string, RunRecord[]>>(order.map((s) => [s, new Map()]))
  // Rows keep the order they were first recorded in (file order), their runs oldest first.
  for (const r of records) {
    const rows = out.get(r.section)!
    if (!rows.has(r.row)) rows.set(r.row, [])
  }
  for (const { r } of sorted) out.get(r.section)!.get(r.row)!.push(r)
  return out
}

const day = (iso: string): string => iso.slice(0, 10)
const span = (xs: readonly string[]): string =>
  xs.length === 0 ? '' : xs[0] === xs[xs.length - 1] ? xs[0]! : `${xs[0]}..${xs[xs.length - 1]}`
const cell = (s: string): string => s.replace(/\|/g, '/').replace(/\n/g, ' ')

function markdownRow(t: TableRow, commandsShown: boolean): string {
  const ref = t.reference
    ? `${t.reference.name}: ${fmt(t.reference.value)} ${t.reference.unit}`
    : ''
  const ratio = Number.isFinite(t.ratio) ? `${fmt(t.ratio)}×` : ''
  const goal = t.goal ? goalText(t.goal, t.unit) : ''
  const met = t.met === undefined ? '' : t.met ? 'met' : 'NOT met'
  const dates = span(uniq(t.dates.map(day)))
  const runs =
    `${t.runs}${t.measured < t.runs ? ` (${t.runs - t.measured} unmeasured)` : ''}` +
    `${commandsShown ? ` by ${t.commands.map((c) => `\`${c}\``).join(', ')}` : ''}` +
    `${t.imported ? ` (${t.imported === t.runs ? 'imported' : `${t.imported} imported`})` : ''}, ${dates}` +
    `${t.cores.length > 1 ? `, cores ${t.cores.join('/')}` : ''}`
  const note = t.imported === t.runs ? `imported from the previous table: ${t.note}` : t.note
  return `| ${cell(t.name)} | ${fmt(t.value)} ${t.unit} | ${runs} | ${goal} | ${met} | ${cell(ref)} | ${ratio} | ${span(t.commits)} | ${cell(note)} |`
}

const HEAD =
  '| figure | median | runs | goal | met | reference (measured in the same run, unless the note says quoted) | ratio (median of the runs) | commits | note (the latest run) |\n' +
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- |'

/**
 * A run that no longer counts (a line of bench/retired.jsonl): what it measured no longer exists or was
 * measured wrongly. Its figures stay in runs.jsonl; the report leaves them out of every median and lists
 * the run with the reason. `rows` retires only those rows of the run (an imported table holds rows of
 * every bench, and one of them can go stale alone).
 */
export interface RetiredRun {
  run: string
  reason: string
  rows?: readonly string[]
}

/** The retirement that takes this figure out, if any. */
const retiredBy = (r: RunRecord, retired: readonly RetiredRun[]): RetiredRun | undefined =>
  retired.find((x) => x.run === r.run && (x.rows === undefined || x.rows.includes(r.row)))

/** bench/results.md from the records (unformatted markdown; the writer runs prettier over it). */
export function renderResults(
  all: readonly RunRecord[],
  retired: readonly RetiredRun[] = []
): string {
  const records = all.filter((r) => retiredBy(r, retired) === undefined)
  const cores = uniq(records.map((r) => r.cores)).sort((a, b) => a - b)
  const lines = [
    '# Onair benchmark report',
    '',
    'Computed by `npm run bench:table` from bench/runs.jsonl, where every bench run appends one line per',
    'figure it measured (commit, date, the machine’s CPU count, run id). Do not edit this file: run the',
    'section’s command (inside the heavy-work lock on a shared machine) and the table is written again.',
    `Each row is the median of its recorded runs; "met" judges that median against the goal. Runs here come from machines with ${cores.join(' or ')} cores.`,
    'Figures imported from the hand-kept table before runs were recorded count as one run each (the',
    'uplink rows as the seventeen runs their note lists), dated as that table said.',
    ''
  ]
  for (const [section, rows] of group(records)) {
    const commands = uniq([...rows.values()].flatMap((rs) => rs.map((r) => r.command)).reverse())
    lines.push(`## ${section}`, '')
    lines.push(
      commands.length === 1
        ? `Command: \`${commands[0]}\`.`
        : `Commands: ${commands.map((c) => `\`${c}\``).join(', ')} (each row names its own).`,
      ''
    )
    lines.push(HEAD)
    for (const rs of rows.values()) lines.push(markdownRow(tableRow(rs), commands.length > 1))
    lines.push('')
  }
  const gone = retired.filter((x) => all.some((r) => retiredBy(r, [x]) !== undefined))
  if (gone.length > 0) {
    lines.push('## Retired runs', '')
    lines.push(
      'Recorded in bench/runs.jsonl and left out of every median above (bench/retired.jsonl says why).',
      ''
    )
    lines.push('| run | figures | rows | reason |', '| --- | --- | --- | --- |')
    for (const x of gone) {
      const rs = all.filter((r) => retiredBy(r, [x]) !== undefined)
      const rows = uniq(rs.map((r) => r.row)).join('; ')
      lines.push(`| ${x.run} | ${rs.length} | ${cell(rows)} | ${cell(x.reason)} |`)
    }
    lines.push('')
  }
  lines.push('## References documented by Livepeer Studio', '')
  lines.push('| figure | value | note |', '| --- | --- | --- |')
  for (const d of DOCUMENTED) lines.push(`| ${d.name} | ${fmt(d.value)} ${d.unit} | ${d.note} |`)
  return lines.join('\n') + '\n'
}

/** bench/retired.jsonl's text read back: each line a run id and why it no longer counts. */
export function parseRetired(text: string): RetiredRun[] {
  return text.split('\n').flatMap((line, i) => {
    if (!line.trim()) return []
    const r = (() => {
      try {
        return JSON.parse(line) as Partial<RetiredRun>
      } catch {
        return undefined
      }
    })()
    const rowsOk =
      r?.rows === undefined ||
      (Array.isArray(r.rows) && r.rows.length > 0 && r.rows.every((x) => typeof x === 'string'))
    if (typeof r?.run !== 'string' || typeof r.reason !== 'string' || !r.reason.trim() || !rowsOk)
      throw new Error(
        `bench/retired.jsonl line ${i + 1} is not {"run": "...", "reason": "..."[, "rows": ["..."]]}`
      )
    return [{ run: r.run, reason: r.reason, ...(r.rows ? { rows: r.rows } : {}) }]
  })
}

/** bench/runs.jsonl's text read back (blank lines skipped; a bad line names its number). */
export function parseRuns(text: string): RunRecord[] {
  return text.split('\n').flatMap((line, i) => {
    if (!line.trim()) return []
    try {
      return [JSON.parse(line) as RunRecord]
    } catch {
      throw new Error(`bench/runs.jsonl line ${i + 1} is not JSON`)
    }
  })
}

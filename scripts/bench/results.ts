// bench/results.md: the report's number format and rows, and how a partial bench run (one suite's rows,
// e.g. `ONAIR_BENCH_ONLY=monitor npm run bench:ui`) puts its own rows into the report: each replaces the
// row of the same name in its section, or is added at the section's end, and the note says the command
// and when. The figures are the run's; nothing is typed in by hand.
import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { BenchRow } from './types'

export const RESULTS_FILE = join(resolve(__dirname, '../../bench'), 'results.md')

export const fmt = (v: number): string =>
  !Number.isFinite(v)
    ? 'n/a'
    : Math.abs(v) >= 100
      ? v.toFixed(0)
      : Math.abs(v) >= 10
        ? v.toFixed(1)
        : v.toFixed(3)

/** One row of the report's table: figure, value, reference, ratio, note. */
export function tableRow(r: BenchRow): string {
  const ref = r.reference
    ? `${r.reference.name}: ${fmt(r.reference.value)} ${r.reference.unit}`
    : ''
  const ratio = r.reference && r.reference.value ? `${fmt(r.value / r.reference.value)}×` : ''
  return `| ${r.name} | ${fmt(r.value)} ${r.unit} | ${ref} | ${ratio} | ${r.note ?? ''} |`
}

/** A section of the report: its `## ` heading and a table of its rows. */
export function sectionTable(title: string, rows: BenchRow[]): string {
  const lines = [
    `## ${title}`,
    '',
    '| figure | value | reference (measured in the same run, unless the note says quoted) | ratio | note |',
    '| --- | --- | --- | --- | --- |'
  ]
  for (const r of rows) lines.push(tableRow(r))
  return lines.join('\n') + '\n'
}

/** Where a section the report does not have yet goes: before the documented references, else last. */
const LAST_SECTION = '## References documented by Livepeer Studio'

/**
 * The report with `rows` put into `section` (its `## ` heading, made when the report has none): a row
 * whose figure has the same name
 * is replaced; a new one goes after the last row of the same figure for another case (its name up to
 * " ("), else after the section's last row. `how` (the command and the time) ends each note.
 */
export function withRows(md: string, section: string, rows: BenchRow[], how: string): string {
  const lines = md.split('\n')
  if (!lines.some((l) => l.trim() === `## ${section}`)) {
    const at = lines.findIndex((l) => l.trim() === LAST_SECTION)
    lines.splice(at < 0 ? lines.length : at, 0, ...sectionTable(section, []).split('\n'))
  }
  const start = lines.findIndex((l) => l.trim() === `## ${section}`)
  let end = lines.findIndex((l, i) => i > start && l.startsWith('## '))
  if (end < 0) end = lines.length
  const nameOf = (l: string): string | undefined =>
    l.startsWith('|') ? l.split('|')[1]?.trim() : undefined
  for (const r of rows) {
    const line = tableRow({ ...r, note: r.note ? `${r.note}; ${how}` : how })
    const at = lines.findIndex((l, i) => i > start && i < end && nameOf(l) === r.name)
    if (at >= 0) {
      lines[at] = line
      continue
    }
    // Beside its kin (the same figure for another case: the name before " ("), else at the end.
    const kin = r.name.split(' (')[0]!
    let last = end - 1
    while (last > start && !nameOf(lines[last]!)?.startsWith(kin)) last--
    if (last === start) last = end - 1
    while (last > start && !lines[last]!.startsWith('|')) last--
    if (last === start) throw new Error(`section "${section}" of bench/results.md has no table`)
    lines.splice(last + 1, 0, line)
    end++
  }
  return lines.join('\n')
}

/** Puts a partial run's rows into bench/results.md (withRows), formatted as the rest of it. */
export async function writeRows(section: string, rows: BenchRow[], command: string): Promise<void> {
  const how = `\`${command}\`, ${new Date().toISOString().slice(0, 16)}Z`
  const md = withRows(readFileSync(RESULTS_FILE, 'utf8'), section, rows, how)
  const prettier = await import('prettier')
  writeFileSync(RESULTS_FILE, await prettier.format(md, { parser: 'markdown' }))
}

// The bench's records and report: each run appends its raw figures to bench/runs.jsonl (one line per
// figure: the row, its value, unit, goal, the commit, date, the machine's CPU count and the run's id), and
// bench/results.md is computed from that file (table.ts: the median of each row's runs). Nothing in
// either is typed in by hand; `npm run bench:table` writes the report again from the records.
import { execFileSync } from 'node:child_process'
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { join, resolve } from 'node:path'
import { parseRetired, parseRuns, recordsOf, renderResults, type RunRecord } from './table'
import type { BenchRow, RecordAs } from './types'

const ROOT = resolve(__dirname, '../..')
export const RESULTS_FILE = join(ROOT, 'bench', 'results.md')
export const RUNS_FILE = join(ROOT, 'bench', 'runs.jsonl')
export const RETIRED_FILE = join(ROOT, 'bench', 'retired.jsonl')

/** This run's id: one per process, so every figure of one `npm run bench…` shares it. */
export const RUN_ID = `${new Date().toISOString().slice(0, 19)}Z-${process.pid}`

/** The commit measured: HEAD's short hash, with `+` when src/ or scripts/ have uncommitted changes. */
export function commitMeasured(): string {
  const git = (...args: string[]): string =>
    execFileSync('git', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim()
  try {
    const head = git('rev-parse', '--short', 'HEAD')
    return git('status', '--porcelain', '--', 'src', 'scripts') ? `${head}+` : head
  } catch {
    return 'unknown'
  }
}

export function readRuns(file = RUNS_FILE): RunRecord[] {
  return existsSync(file) ? parseRuns(readFileSync(file, 'utf8')) : []
}

/** The runs that no longer count (bench/retired.jsonl), none when the file is absent. */
export function readRetired(file = RETIRED_FILE): ReturnType<typeof parseRetired> {
  return existsSync(file) ? parseRetired(readFileSync(file, 'utf8')) : []
}

/** bench/results.md computed from bench/runs.jsonl, formatted as the repository's markdown. */
export async function writeTable(): Promise<void> {
  const prettier = await import('prettier')
  writeFileSync(
    RESULTS_FILE,
    await prettier.format(renderResults(readRuns(), readRetired()), { parser: 'markdown' })
  )
}

/** A run's rows appended to bench/runs.jsonl under `section`, measured by `command`; the report computed again. */
export async function recordRun(section: string, rows: BenchRow[], command: string): Promise<void> {
  const records = recordsOf(section, rows, {
    commit: commitMeasured(),
    date: new Date().toISOString(),
    cores: cpus().length,
    run: RUN_ID,
    command
  })
  appendFileSync(RUNS_FILE, records.map((r) => JSON.stringify(r) + '\n').join(''))
  await writeTable()
}

/** The older name of recordRun, kept for the bench scripts that call it. */
export const writeRows = recordRun

/**
 * The entry point of one `npm run bench:*` script: run, print each row with its reference, append the
 * rows to bench/runs.jsonl and compute bench/results.md when `recordAs` is given, exit.
 */
export function runAsScript(
  name: string,
  run: () => Promise<BenchRow[]>,
  recordAs?: RecordAs
): void {
  run()
    .then(async (rows) => {
      for (const r of rows) {
        const ref = r.reference
          ? `  | ${r.reference.name}: ${r.reference.value} ${r.reference.unit}`
          : ''
        console.log(`${r.name}: ${r.value} ${r.unit}${ref}${r.note ? `  (${r.note})` : ''}`)
      }
      if (recordAs) {
        await recordRun(recordAs.section, rows, recordAs.command)
      }
      process.exit(0)
    })
    .catch((err: unknown) => {
      console.error(`${name} failed: ${err instanceof Error ? err.message : String(err)}`)
      process.exit(1)
    })
}

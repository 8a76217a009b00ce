// One row of the benchmark report: a figure, and where one exists, its reference measured in the same run
// (or a documented figure, said so in the note).
export interface BenchRow {
  name: string
  value: number
  unit: string
  reference?: { name: string; value: number; unit: string }
  note?: string
}

/** A measuring span of wall time (a bench measures over time; nothing here waits for a condition). */
export const wait = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

export const median = (xs: readonly number[]): number => {
  if (xs.length === 0) return NaN
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2
}

export const percentile = (xs: readonly number[], p: number): number => {
  if (xs.length === 0) return NaN
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] as number
}

/** The entry point of one `npm run bench:*` script: run, print each row with its reference, exit. */
export function runAsScript(name: string, run: () => Promise<BenchRow[]>): void {
  run().then(
    (rows) => {
      for (const r of rows) {
        const ref = r.reference
          ? `  | ${r.reference.name}: ${r.reference.value} ${r.reference.unit}`
          : ''
        console.log(`${r.name}: ${r.value} ${r.unit}${ref}${r.note ? `  (${r.note})` : ''}`)
      }
      process.exit(0)
    },
    (err: unknown) => {
      console.error(`${name} failed: ${err instanceof Error ? err.message : String(err)}`)
      process.exit(1)
    }
  )
}

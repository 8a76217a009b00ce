// One row of the benchmark report: a figure, its goal where the brief sets one, and where one exists,
// its reference measured in the same run (or a documented figure, said so in the note).
export interface BenchRow {
  name: string
  value: number
  unit: string
  /** What the figure should be: at least `min` and/or at most `max`, of the value (or of the ratio to the reference). */
  goal?: Goal
  reference?: { name: string; value: number; unit: string }
  note?: string
}

/** A goal: `min` <= figure <= `max` (either may be absent); `of: 'ratio'` judges value / reference. */
export interface Goal {
  min?: number
  max?: number
  of?: 'value' | 'ratio'
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

/** Where a script's rows go when it runs on its own: its section of the report and its command. */
export interface RecordAs {
  section: string
  command: string
}

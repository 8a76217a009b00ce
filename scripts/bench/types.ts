// One row of the benchmark report: a figure, and where one exists, its reference measured in the same run
// (or a documented figure, said so in the note).
export interface BenchRow {
  name: string
  value: number
  unit: string
  reference?: { name: string; value: number; unit: string }
  note?: string
}

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

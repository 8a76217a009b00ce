// `npm run bench:table`: bench/results.md computed again from bench/runs.jsonl (no measuring).
import { RESULTS_FILE, RUNS_FILE, readRuns, writeTable } from './results'

writeTable().then(
  () => console.log(`${RESULTS_FILE}: ${readRuns().length} figures from ${RUNS_FILE}`),
  (e: unknown) => {
    console.error(e)
    process.exit(1)
  }
)

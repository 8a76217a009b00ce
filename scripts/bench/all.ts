// `npm run bench`: every benchmark in one run. Each suite's figures are appended to bench/runs.jsonl as
// they come (one line per figure, with the commit, date, CPU count and this run's id) and
// bench/results.md is computed from all recorded runs (results.ts, table.ts): each row the median of its
// runs. A suite that fails records nothing and is named on stderr and in the exit code.
import { recordRun } from './results'
import type { BenchRow } from './types'

type Suite = { title: string; load: () => Promise<BenchRow[]> }
const SUITES: Suite[] = [
  { title: 'Local studio', load: async () => (await import('./studio')).runStudioBench() },
  { title: 'Live latency', load: async () => (await import('./latency')).runLatencyBench() },
  { title: 'Broadcaster', load: async () => (await import('./live')).runLiveBench() },
  { title: 'Renderer', load: async () => (await import('./ui')).runUiBench() },
  { title: 'Uplink', load: async () => (await import('./uplink')).runUplinkBench() },
  {
    title: 'Uplink (WebRTC)',
    load: async () => (await import('./uplink-webrtc')).runWebRtcUplinkBench()
  },
  {
    title: 'First-run setup test',
    load: async () => (await import('./setup-test')).runSetupTestBench()
  },
  { title: 'Uploads', load: async () => (await import('./uploads')).runUploadsBench() },
  {
    title: 'Encoder',
    load: async () => (await import('./encoder-picture')).runEncoderPictureBench()
  }
]

async function main(): Promise<number> {
  const failed: string[] = []
  for (const suite of SUITES) {
    try {
      console.error(`bench: ${suite.title}…`)
      const rows = await suite.load()
      await recordRun(suite.title, rows, 'npm run bench')
      for (const r of rows) console.log(`${suite.title}: ${r.name}: ${r.value} ${r.unit}`)
    } catch (e) {
      failed.push(suite.title)
      console.error(`bench: ${suite.title} not measured: ${String(e).split('\n')[0]}`)
    }
  }
  if (failed.length) console.error(`bench: not measured: ${failed.join(', ')}`)
  return failed.length ? 1 : 0
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e)
    process.exit(1)
  }
)

// `npm run bench`: every benchmark in one run, one table with each figure beside its reference, written to
// bench/results.md and printed. Medians of several runs; the machine is noted, since these figures are
// only comparable side by side within one run.
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import { join, resolve } from 'node:path'
import { sectionTable } from './results'
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

/** Livepeer Studio's documented figures: no way to measure them here (no internet), so quoted as such. */
const DOCUMENTED: BenchRow[] = [
  {
    name: 'Livepeer Studio recording ready after stream end (documented)',
    value: 300,
    unit: 's',
    note: 'Livepeer documents about 5 minutes; quoted, not measured'
  }
]

function machine(): string {
  let ffmpeg = 'unknown'
  try {
    ffmpeg =
      /ffmpeg version (\S+)/.exec(
        execFileSync(process.env.FFMPEG_PATH ?? 'ffmpeg', ['-version']).toString()
      )?.[1] ?? ffmpeg
  } catch {
    // reported as unknown
  }
  const cpu = cpus()
  return `${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.versions.node}, ffmpeg ${ffmpeg}, ${process.platform}`
}

async function main(): Promise<void> {
  const sections: string[] = []
  for (const suite of SUITES) {
    let rows: BenchRow[]
    try {
      console.error(`bench: ${suite.title}…`)
      rows = await suite.load()
    } catch (e) {
      rows = [
        {
          name: `${suite.title}: not measured`,
          value: NaN,
          unit: '',
          note: String(e).split('\n')[0]
        }
      ]
    }
    sections.push(sectionTable(suite.title, rows))
  }
  sections.push(sectionTable('References documented by Livepeer Studio', DOCUMENTED))
  const md = [
    '# Onair benchmark report',
    '',
    `Run ${new Date().toISOString()} on ${machine()}.`,
    'Figures are medians of several runs unless the note says otherwise. Ratios compare figures measured side by side in this same run; these machines are noisy, so compare ratios rather than absolute times across runs.',
    '',
    ...sections
  ].join('\n')
  const out = resolve(__dirname, '../../bench')
  mkdirSync(out, { recursive: true })
  writeFileSync(join(out, 'results.md'), md + '\n')
  console.log(md)
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e)
    process.exit(1)
  }
)

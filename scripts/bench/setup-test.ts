// `npm run bench:setup-test`: the first-run guide's setup test (#34 §1) on an upload shaped to 2 and
// 4 Mbit/s. Each run: a private network namespace (tests/helpers/netns.ts; Linux, root), the app's own
// core started inside it (this file again, with --in-netns: createCore with its local studio, as the
// web shell and Electron start it), the shaper put on the local studio's RTMP port, then the core's
// runSetupTest(), the same call the guide makes. The row is what it recommends (picture + sound)
// against the shaped rate: goal 0.65-0.8 of it (the OBS wiki's 70-75 % of a stable upload, and the
// shaper counts whole packets, headers included, ~5 % above the stream's own bytes). Figures are
// printed and written to bench/results.md ("First-run setup test"), never asserted.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import type { SetupTestResult } from '../../src/shared/contract'
import { Netns } from '../../tests/helpers/netns'
import { runAsScript, writeRows } from './results'
import type { BenchRow } from './types'

const ROOT = resolve(__dirname, '../..')
export const SHAPED_RATES = [2000, 4000] as const

/** Inside the namespace: the core, its local studio's RTMP port on stdout, then the test on "go". */
async function inNetns(appData: string): Promise<void> {
  const { createCore } = await import('../../src/main/core/core')
  const core = await createCore({
    appDataDir: appData,
    shell: 'web',
    appVersion: 'bench',
    keychainService: `onair-setup-bench-${process.pid}`
  })
  try {
    const ingest = await core.getIngest()
    console.log(`PORT ${new URL(ingest.rtmp).port}`)
    const lines = createInterface({ input: process.stdin })
    for await (const l of lines) if (l.trim() === 'go') break
    const r = await core.runSetupTest()
    console.log(`RESULT ${JSON.stringify(r)}`)
  } finally {
    await core.shutdown()
  }
}

/** One run at `kbps` (the upload to the ingest shaped to it); the namespace is gone when it settles. */
export async function setupTestAt(kbps: number): Promise<SetupTestResult> {
  const dir = mkdtempSync(join(tmpdir(), 'onair-setup-bench-'))
  const ns = Netns.create('onair-setupb')
  try {
    const [cmd, args] = ns.exec(process.execPath, [
      join(ROOT, 'scripts/run-ts.mjs'),
      join(ROOT, 'scripts/bench/setup-test.ts'),
      '--in-netns',
      dir
    ])
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'], cwd: ROOT })
    const lines = createInterface({ input: child.stdout! })
    let result: SetupTestResult | undefined
    for await (const l of lines) {
      const port = /^PORT (\d+)/.exec(l)?.[1]
      if (port) {
        ns.shapePort(Number(port))
        ns.setRate(kbps)
        child.stdin!.write('go\n')
      }
      const json = /^RESULT (.*)/.exec(l)?.[1]
      if (json) result = JSON.parse(json) as SetupTestResult
    }
    await new Promise((r) => (child.exitCode === null ? child.once('exit', r) : r(null)))
    if (!result) throw new Error(`the setup test at ${kbps} kbit/s gave no result`)
    return result
  } finally {
    ns.remove()
    rmSync(dir, { recursive: true, force: true })
  }
}

export async function runSetupTestBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = []
  for (const kbps of SHAPED_RATES) {
    const r = await setupTestAt(kbps)
    const rec = r.recommendation
    const total = rec.videoBitrateKbps + rec.audioBitrateKbps
    rows.push({
      name: `first-run test: recommended bitrate vs shaped upload (${kbps / 1000} Mbit/s)`,
      value: total,
      unit: 'kbit/s',
      goal: { min: 0.65, max: 0.8, of: 'ratio' },
      reference: { name: 'the upload shaped to', value: kbps, unit: 'kbit/s' },
      note:
        `goal 0.65-0.8 of the shaped rate; the upload measured ${r.upload.kbps ?? 'n/a'} kbit/s ` +
        `(the test pushed ${r.upload.pushedKbps}); ${rec.height}p${rec.fps} at ${rec.videoBitrateKbps} + ` +
        `${rec.audioBitrateKbps} kbit/s, ${rec.basis}; encoder (${r.encoder.via}) held ` +
        `${
          r.encoder.sizes
            .filter((s) => s.holds)
            .map((s) => `${s.height}p${s.fps}`)
            .join(', ') || 'none of the tested sizes'
        }; one run`
    })
  }
  if (require.main === module)
    await writeRows('First-run setup test', rows, 'npm run bench:setup-test')
  return rows
}

if (require.main === module) {
  const at = process.argv.indexOf('--in-netns')
  if (at >= 0)
    inNetns(process.argv[at + 1]!).then(
      () => process.exit(0),
      (e: unknown) => {
        console.error(e)
        process.exit(1)
      }
    )
  else runAsScript('setup-test', runSetupTestBench)
}

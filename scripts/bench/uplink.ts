// `npm run bench:uplink` (part of `npm run bench`): the broadcaster on a bad uplink (#19), measured by
// the harness in tests/helpers/uplink.ts (what it sets up and how it measures is described there) and
// turned into the bench's rows here. Figures are printed and recorded, never asserted here
// (tests/e2e/uplink.test.ts runs the same harness on shorter phases and asserts the behaviour).
import {
  BENCH_PLAN,
  measureUplink,
  SUSTAIN_S,
  TARGET_KBPS,
  TEST_PLAN,
  WINDOW_S,
  type PhaseResult,
  type UplinkPlan,
  type UplinkResult
} from '../../tests/helpers/uplink'
import { inKeyringSession, keyringScriptMain } from './keyring-session'
import { median, type BenchRow } from './types'

const kb = (b: number): string => `${Math.round(b / 1024)} KB`
const s2 = (n: number): number => Math.round(n * 100) / 100

/** What a phase's figures say about where the delay is, in one sentence. */
function whereNote(p: PhaseResult, refKbps: number): string {
  const secs = (bytes: number, kbps: number): string =>
    `${((bytes * 8) / (kbps * 1000)).toFixed(1)} s`
  const kernelB = p.last.sendQ + p.last.qdisc
  return (
    `at the throttle's end the delay was ${p.last.delay.toFixed(1)} s and the media waiting was: ` +
    `in the page ${kb(p.last.page)} (muxed, not yet handed to pushMedia; ${secs(p.last.page, refKbps)} of media), ` +
    `in main ${kb(p.last.main)} (taken, not read by ffmpeg: what main dropped is counted here too; ${secs(p.last.main, refKbps)}), ` +
    `in ffmpeg ~${kb(p.last.ffmpeg)} (read, not yet written to the socket; ${secs(p.last.ffmpeg, refKbps)}), ` +
    `in the kernel ${kb(kernelB)} (socket send queue ${kb(p.last.sendQ)}, qdisc ${kb(p.last.qdisc)}; ` +
    `${secs(kernelB, p.rateKbps)} at ${p.rateKbps} kbit/s); queue drops ${p.drops}; the live ` +
    `banner from the throttle to the end of the wait: ${p.states.join(' -> ') || 'not read'}; ` +
    `ss -tmi: ${p.ss.replace(/\|/g, '/').slice(0, 240)}`
  )
}

const refNote = (r: UplinkResult): string =>
  r.refKbps === TARGET_KBPS
    ? `${TARGET_KBPS} kbit/s, the output's video + audio`
    : `${r.refKbps} kbit/s, what the app sent on the open link before (the output's ${TARGET_KBPS} ` +
      `kbit/s was not reached by this machine's encoder)`

export function uplinkRows(r: UplinkResult, plan: UplinkPlan, command: string): BenchRow[] {
  const phase = (share: number): PhaseResult | undefined => r.phases.find((p) => p.share === share)
  const rows: BenchRow[] = []
  for (const [share, goal] of [
    [0.4, 2],
    [0.8, 1]
  ] as const) {
    const p = phase(share)
    if (!p) continue
    rows.push({
      name: `uplink: delay behind live during an ${share * 100}% throttle`.replace(
        'an 40%',
        'a 40%'
      ),
      value: s2(p.p95),
      unit: 's',
      goal: { max: goal },
      note:
        `goal <= ${goal} s ${p.p95 <= goal ? 'met' : 'NOT met'}; p95 of ${p.delays.length} samples ` +
        `(one per 2 s segment arriving at the studio; median ${median(p.delays).toFixed(2)}, max ` +
        `${Math.max(...p.delays).toFixed(2)} s) while the upload was held to ${p.rateKbps} kbit/s ` +
        `(${share * 100}% of ${refNote(r)}) for ${plan.throttleSeconds} s, 300 ms router queue; ` +
        `${p.kbpsDuring.toFixed(0)} kbit/s left; before: ${r.baseline.delay.toFixed(2)} s behind at ` +
        `${r.baseline.kbps.toFixed(0)} kbit/s (median of ${r.baseline.samples}); ${whereNote(p, r.refKbps)}; ${command}`
    })
  }
  const backs = r.phases.map((p) => p.backAfter)
  const worst = backs.some((b) => b === null) ? NaN : Math.max(...(backs as number[]))
  rows.push({
    name: 'uplink: back to the target bitrate after restore',
    value: Number.isNaN(worst) ? NaN : s2(worst),
    unit: 's',
    goal: { max: 15 },
    note:
      `goal <= 15 s ${worst <= 15 ? 'met' : 'NOT met'}; the worse of the restores after ` +
      r.phases
        .map(
          (p) =>
            `${p.share * 100}%: ${p.backAfter === null ? `not within ${plan.recoverSeconds} s` : `${p.backAfter.toFixed(2)} s`}`
        )
        .join(', ') +
      `; from the restore until every ${WINDOW_S} s window for ${SUSTAIN_S} s carries >= 90% of ${refNote(r)} ` +
      `through the shaper (whole packets); ${command}`
  })
  const rss = r.rssMB.main + r.rssMB.renderer
  rows.push({
    name: 'uplink: renderer and main RSS growth',
    value: Math.round(rss),
    unit: 'MB',
    goal: { max: 50 },
    note:
      `goal <= 50 MB ${rss <= 50 ? 'met' : 'NOT met'}; the sum: renderer ${r.rssMB.renderer.toFixed(0)} MB ` +
      `(from ${r.rssMB.rendererStart.toFixed(0)}), main ${r.rssMB.main.toFixed(0)} MB (from ` +
      `${r.rssMB.mainStart.toFixed(0)}), before the first throttle to the end; ${command}`
  })
  return rows
}

async function measure(): Promise<BenchRow[]> {
  process.env.ONAIR_KEYCHAIN_SERVICE ??= 'onair-bench'
  const short = process.argv.includes('--short')
  const plan = short ? TEST_PLAN : BENCH_PLAN
  const command = short ? '`npm run bench:uplink -- --short`' : '`npm run bench:uplink`'
  return uplinkRows(await measureUplink(plan), plan, command)
}

/** In a private keyring session where needed: the app's core keeps the local studio's key there. */
export function runUplinkBench(): Promise<BenchRow[]> {
  return inKeyringSession('uplink bench', __filename, measure)
}

if (require.main === module)
  keyringScriptMain(runUplinkBench, measure, () => ({
    section: 'Uplink',
    command: `npm run bench:uplink${process.argv.includes('--short') ? ' -- --short' : ''}`
  }))

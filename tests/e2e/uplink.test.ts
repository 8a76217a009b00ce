// A bad uplink (#19): the built app (web shell + its local studio) and Chromium with a 720p30 camera
// run in a private network namespace whose upload to the ingest is throttled to 40 %, restored, then
// 80 % (the bench's harness, scripts/bench/uplink.ts, on shorter phases). The goals: p95 delay behind
// live <= 2 s during the 40 % throttle and <= 1 s during the 80 % one, back to the target rate within
// 15 s of each restore, renderer + main RSS growth <= 50 MB; and no namespace left behind. Every goal
// is checked softly, so one run reports them all. Skips, saying why, only where namespaces cannot be
// made (not root, no iproute2): CI runs as root.
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { netnsUnavailable } from '../helpers/netns'
import { measureUplink, TEST_PLAN, uplinkRows, type PhaseResult } from '../../scripts/bench/uplink'

// The goals are not met yet (#19 is open: see bench/results.md, `npm run bench:uplink`), so the suite
// runs this test only when asked: ONAIR_UPLINK_E2E=1 npm run test:e2e -- tests/e2e/uplink.test.ts.
const why =
  netnsUnavailable() ??
  (process.env.ONAIR_UPLINK_E2E ? undefined : 'goals not met yet (#19); ONAIR_UPLINK_E2E=1 runs it')

describe.skipIf(why)(`a throttled uplink${why ? ` (skipped: ${why})` : ''}`, () => {
  it('stays near live while throttled, gets back to the target rate, and keeps memory flat', async () => {
    const r = await measureUplink(TEST_PLAN, (l) => console.log(`uplink: ${l}`))
    const rows = uplinkRows(r, TEST_PLAN, 'tests/e2e/uplink.test.ts')
    for (const row of rows) console.log(`${row.name}: ${row.value} ${row.unit} (${row.note})`)

    expect(execFileSync('ip', ['netns', 'list']).toString()).not.toContain(`-${process.pid}-`)
    const phase = (share: number): PhaseResult => {
      const p = r.phases.find((x) => x.share === share)
      if (!p) throw new Error(`no ${share * 100} % phase was measured`)
      return p
    }
    const p40 = phase(0.4)
    const p80 = phase(0.8)
    expect(p40.delays.length, 'delay samples during the 40 % throttle').toBeGreaterThanOrEqual(2)
    expect(p80.delays.length, 'delay samples during the 80 % throttle').toBeGreaterThanOrEqual(2)
    expect
      .soft(p40.p95, 'p95 delay behind live during the 40 % throttle (s)')
      .toBeLessThanOrEqual(2)
    expect
      .soft(p80.p95, 'p95 delay behind live during the 80 % throttle (s)')
      .toBeLessThanOrEqual(1)
    for (const p of [p40, p80])
      expect
        .soft(
          p.backAfter ?? Infinity,
          `back to the target after the ${p.share * 100} % throttle (s)`
        )
        .toBeLessThanOrEqual(15)
    expect
      .soft(r.rssMB.main + r.rssMB.renderer, 'renderer + main RSS growth (MB)')
      .toBeLessThanOrEqual(50)
  }, 360_000)
})

// The stats view's arithmetic (#34 §6): counters over the last seconds, each OS's process table (Linux's
// /proc for real; macOS's ps, Windows' PowerShell and Electron's getAppMetrics by injection, as neither
// runs here), the app's tree per kind of process, and the run's numbers from the live events.
import { describe, expect, it } from 'vitest'
import { CounterWindow, totalUsage, type KindUsage } from '../../../src/shared/app-stats'
import {
  electronRows,
  parseCpuTime,
  parseProcStat,
  parseWindows,
  procSampler,
  psSampler,
  windowsSampler,
  WINDOWS_QUERY,
  type ProcRow,
  type ProcessMetricLike
} from '../../../src/main/core/app-stats/samplers'
import { ResourceMonitor } from '../../../src/main/core/app-stats/resources'
import { RunStats } from '../../../src/main/core/app-stats/run-stats'
import type { LiveHealthEvent } from '../../../src/shared/contract'

describe('CounterWindow', () => {
  it('answers the growth over the last 5 s and the total', () => {
    const w = new CounterWindow(5000)
    w.add(0, 0)
    for (let t = 1000; t <= 10_000; t += 1000) w.add(t, t / 100) // 10 a second
    expect(w.view(10_000)).toEqual({ last: 50, total: 100 })
    expect(w.recent(10_000).ms).toBe(5000)
  })
  it('counts from the first value before a whole span has passed', () => {
    const w = new CounterWindow(5000)
    w.add(1000, 7)
    w.add(3000, 10)
    expect(w.recent(3000)).toEqual({ delta: 3, ms: 2000 })
  })
})

describe('process tables', () => {
  it('reads /proc/<pid>/stat, a name with spaces and parentheses included', () => {
    const line =
      '4242 (ffmpeg (x) y) S 4000 4242 4000 0 -1 4194304 1 0 0 0 250 50 0 0 20 0 1 0 1 1000 2560 rest'
    expect(parseProcStat(line)).toEqual({
      pid: 4242,
      ppid: 4000,
      name: 'ffmpeg (x) y',
      cpuSec: 3,
      rssBytes: 2560 * 4096
    })
  })

  it('finds this very process in the real /proc, with CPU used and memory held', async () => {
    if (process.platform !== 'linux') return
    const rows = await procSampler().sample()
    const me = rows.find((r) => r.pid === process.pid)
    expect(me?.ppid).toBe(process.ppid)
    expect(me!.cpuSec).toBeGreaterThan(0)
    expect(me!.rssBytes).toBeGreaterThan(10 * 1024 * 1024)
  })

  it("reads macOS's and procps's ps (injected)", async () => {
    expect(parseCpuTime('1:02.50')).toBe(62.5)
    expect(parseCpuTime('01:00:03')).toBe(3603)
    expect(parseCpuTime('2-00:00:01')).toBe(172801)
    const text = [
      '  101     1   0:12.34 204800 /Applications/Onair.app/Contents/MacOS/Onair',
      '  202   101   1:00.00  51200 /opt/onair/ffmpeg',
      'garbage'
    ].join('\n')
    const calls: string[][] = []
    const rows = await psSampler(async (c, a) => {
      calls.push([c, ...a])
      return { code: 0, signal: null, stdout: text, stderr: '' }
    }).sample()
    expect(calls).toEqual([['ps', '-A', '-o', 'pid=,ppid=,time=,rss=,comm=']])
    expect(rows).toEqual([
      { pid: 101, ppid: 1, cpuSec: 12.34, rssBytes: 204800 * 1024, name: 'Onair' },
      { pid: 202, ppid: 101, cpuSec: 60, rssBytes: 51200 * 1024, name: 'ffmpeg' }
    ])
    await expect(
      psSampler(async () => ({ code: 1, signal: null, stdout: '', stderr: 'no' })).sample()
    ).rejects.toThrow(/exited with 1/)
  })

  it("reads Windows' Win32_Process through PowerShell (injected)", async () => {
    const text =
      '4\r\n500,4,123456789,104857600,Onair.exe\r\n600,500,20000000,52428800,ffmpeg.exe\r\n'
    expect(parseWindows(text)).toEqual([
      { pid: 500, ppid: 4, cpuSec: 12.3456789, rssBytes: 104857600, name: 'Onair.exe' },
      { pid: 600, ppid: 500, cpuSec: 2, rssBytes: 52428800, name: 'ffmpeg.exe' }
    ])
    let asked: string[] = []
    await windowsSampler(async (c, a) => {
      asked = [c, ...a]
      return { code: 0, signal: null, stdout: text, stderr: '' }
    }).sample()
    expect(asked).toEqual([
      'powershell.exe',
      '-NoProfile',
      '-NonInteractive',
      '-Command',
      WINDOWS_QUERY
    ])
  })

  it("reads Electron's getAppMetrics: its cumulative CPU, or its percentage added up (injected)", () => {
    const prev = new Map<number, number>()
    const m = (pid: number, type: string, pct: number, cum?: number): ProcessMetricLike => ({
      pid,
      type,
      cpu: { percentCPUUsage: pct, ...(cum !== undefined ? { cumulativeCPUUsage: cum } : {}) },
      memory: { workingSetSize: 1000 }
    })
    const first = electronRows([m(1, 'Browser', 0, 4), m(2, 'Tab', 50), m(3, 'GPU', 10)], 0, prev)
    expect(first.map((r) => r.kind)).toEqual(['app', 'renderer', 'gpu'])
    const second = electronRows(
      [m(1, 'Browser', 0, 5), m(2, 'Tab', 50), m(3, 'Utility', 10)],
      2,
      prev
    )
    expect(second.map((r) => [r.kind, r.row.cpuSec, r.row.rssBytes])).toEqual([
      ['app', 5, 1024000],
      ['renderer', 1, 1024000],
      ['electron', 0.2, 1024000]
    ])
  })
})

/** A process table that changes between reads. */
function fakeTable(): {
  rows: ProcRow[]
  sampler: { source: string; sample(): Promise<ProcRow[]> }
} {
  const t = {
    rows: [] as ProcRow[],
    sampler: { source: 'fake', sample: async () => t.rows.map((r) => ({ ...r })) }
  }
  return t
}
const MB = 1024 * 1024
const row = (pid: number, ppid: number, name: string, cpuSec: number, rssMb: number): ProcRow => ({
  pid,
  ppid,
  name,
  cpuSec,
  rssBytes: rssMb * MB
})
const kind = (rows: KindUsage[], k: string): KindUsage | undefined => rows.find((r) => r.kind === k)

describe('ResourceMonitor', () => {
  it("sums the app's tree per kind: tracked children, the studio's own ffmpegs, not strangers", async () => {
    const t = fakeTable()
    let now = 100_000
    let selfCpu = 10
    const mon = new ResourceMonitor({
      sampler: t.sampler,
      appPid: 100,
      startedAt: 0,
      now: () => now,
      self: () => ({ cpuSec: selfCpu, rssBytes: 200 * MB }),
      children: () => [
        { pid: 200, kind: 'studio' },
        { pid: 400, kind: 'encoder' },
        { pid: 500, kind: 'ffmpeg' }
      ]
    })
    const table = (studioFf: number, enc: number): ProcRow[] => [
      row(1, 0, 'init', 999, 5),
      row(100, 1, 'node', 0, 0), // the app's own figures come from Node
      row(200, 100, 'node', 5, 100),
      row(300, 200, 'ffmpeg', studioFf, 50),
      row(400, 100, 'node', enc, 80),
      row(500, 100, 'ffmpeg', 2, 30),
      row(999, 1, 'stranger', 500, 900),
      // Started by someone else in the app's process (a test's browser): not Onair's.
      row(600, 100, 'chromium', 50, 400),
      row(601, 600, 'chromium', 50, 400)
    ]
    t.rows = table(1, 3)
    const first = await mon.sample()
    expect(first.windowMs).toBe(0)
    expect(first.kinds.map((k) => [k.kind, k.processes])).toEqual([
      ['app', 1],
      ['studio', 1],
      ['encoder', 1],
      ['ffmpeg', 2]
    ])
    expect(first.total.rssBytes).toBe((200 + 100 + 50 + 80 + 30) * MB)
    // Five seconds on: the studio's ffmpeg used 2.5 s (50 %), the encoder 7.5 s (150 %), the app 1 s.
    now += 5000
    selfCpu = 11
    t.rows = table(3.5, 10.5)
    const second = await mon.sample()
    expect(second.windowMs).toBe(5000)
    expect(kind(second.kinds, 'ffmpeg')!.cpuPercent).toBeCloseTo(50)
    expect(kind(second.kinds, 'encoder')!.cpuPercent).toBeCloseTo(150)
    expect(kind(second.kinds, 'app')!.cpuPercent).toBeCloseTo(20)
    expect(second.total.cpuPercent).toBeCloseTo(220)
    // Since the app started (105 s ago): every CPU second each has used.
    expect(kind(second.kinds, 'encoder')!.cpuPercentSinceStart).toBeCloseTo((10.5 / 105) * 100)
    expect(second.total.cpuPercentSinceStart).toBeCloseTo(((11 + 5 + 3.5 + 10.5 + 2) / 105) * 100)
    // The encoder ends: its memory goes, its CPU stays in since-start, the peak remembers it.
    now += 1000
    t.rows = table(4, 0).filter((r) => r.pid !== 400)
    const third = await mon.sample()
    const enc = kind(third.kinds, 'encoder')!
    expect(enc.processes).toBe(0)
    expect(enc.rssBytes).toBe(0)
    expect(enc.rssPeakBytes).toBe(80 * MB)
    expect(enc.cpuPercentSinceStart).toBeCloseTo((10.5 / 106) * 100)
    expect(third.total.rssPeakBytes).toBe((200 + 100 + 50 + 80 + 30) * MB)
  })

  it("adds Electron's page and GPU processes from getAppMetrics where the OS table lacks them (injected)", async () => {
    const t = fakeTable()
    t.rows = [row(100, 1, 'Onair', 0, 0)]
    let now = 10_000
    const metrics = (cum: number): ProcessMetricLike[] => [
      {
        pid: 100,
        type: 'Browser',
        cpu: { percentCPUUsage: 1, cumulativeCPUUsage: 1 },
        memory: { workingSetSize: 1 }
      },
      {
        pid: 101,
        type: 'Tab',
        cpu: { percentCPUUsage: 0, cumulativeCPUUsage: cum },
        memory: { workingSetSize: 300 * 1024 }
      },
      {
        pid: 102,
        type: 'GPU',
        cpu: { percentCPUUsage: 0, cumulativeCPUUsage: cum / 2 },
        memory: { workingSetSize: 100 * 1024 }
      }
    ]
    let cum = 2
    const mon = new ResourceMonitor({
      sampler: t.sampler,
      appPid: 100,
      startedAt: 0,
      now: () => now,
      self: () => ({ cpuSec: 1, rssBytes: 150 * MB }),
      children: () => [],
      metrics: () => metrics(cum)
    })
    await mon.sample()
    now += 2000
    cum = 4
    const v = await mon.sample()
    expect(v.source).toBe('fake+electron')
    expect(kind(v.kinds, 'renderer')).toMatchObject({ processes: 1, rssBytes: 300 * MB })
    expect(kind(v.kinds, 'renderer')!.cpuPercent).toBeCloseTo(100)
    expect(kind(v.kinds, 'gpu')!.cpuPercent).toBeCloseTo(50)
    expect(v.total.rssBytes).toBe((150 + 300 + 100) * MB)
  })

  it("still answers the app's own figures when the table cannot be read, and says why", async () => {
    const mon = new ResourceMonitor({
      sampler: { source: 'ps', sample: () => Promise.reject(new Error('ps: not found')) },
      appPid: 1,
      startedAt: 0,
      now: () => 1000,
      self: () => ({ cpuSec: 0.5, rssBytes: MB }),
      children: () => []
    })
    const v = await mon.sample()
    expect(v.source).toBe('ps (children unread: ps: not found)')
    expect(v.total.cpuPercentSinceStart).toBeCloseTo(50)
  })

  it('totals per-kind rows, its peak no lower than now', () => {
    const r = (rss: number): KindUsage => ({
      kind: 'app',
      processes: 1,
      cpuPercent: 10,
      cpuPercentSinceStart: 5,
      rssBytes: rss,
      rssPeakBytes: rss
    })
    expect(totalUsage([r(3), r(4)], 5)).toMatchObject({
      processes: 2,
      cpuPercent: 20,
      rssBytes: 7,
      rssPeakBytes: 7
    })
    expect(totalUsage([r(3)], 9).rssPeakBytes).toBe(9)
  })
})

describe('RunStats', () => {
  const health = (
    at: number,
    kbps: number,
    drops: number,
    droppedMs: number,
    skipped?: number
  ): LiveHealthEvent => ({
    runId: 'r1',
    at,
    fps: 30,
    kbps,
    speed: 1,
    droppedFrames: 0,
    duplicatedFrames: 0,
    congestion: 0,
    targetFps: 30,
    targetKbps: 2500,
    uplink: {
      queuedMs: 0,
      queuedBytes: 0,
      videoTargetKbps: 2000,
      maxVideoKbps: 2500,
      state: 'full',
      droppedMs,
      drops,
      ...(skipped !== undefined ? { encoderSkipped: skipped } : {})
    }
  })

  it('keeps the run from its start: the rate, drops and skips over the last 5 s and since the start', () => {
    const s = new RunStats()
    expect(s.view(0)).toBeNull()
    s.state({ runId: 'r1', streamId: 's', streamName: 'n', state: 'live', liveSince: 0 })
    // 10 s at 3000 kbit/s, then 5 s at 1000 with two drops (500 ms) and 12 frames skipped.
    for (let t = 1000; t <= 10_000; t += 1000) s.health(health(t, 3000, 0, 0, 0))
    for (let t = 11_000; t <= 15_000; t += 1000)
      s.health(health(t, 1000, t >= 13_000 ? 2 : 0, t >= 13_000 ? 500 : 0, 12))
    const v = s.view(15_000)!
    expect(v.kbps).toBeCloseTo(1000)
    expect(v.kbpsSinceStart).toBeCloseTo((9 * 3000 + 5 * 1000) / 14)
    expect(v.networkDrops).toEqual({ last: 2, total: 2 })
    expect(v.networkDroppedMs).toEqual({ last: 500, total: 500 })
    expect(v.encoderSkipped).toEqual({ last: 12, total: 12 })
    // Five quiet seconds later the window is empty again, the totals stay.
    for (let t = 16_000; t <= 21_000; t += 1000) s.health(health(t, 1000, 2, 500, 12))
    expect(s.view(21_000)).toMatchObject({
      networkDrops: { last: 0, total: 2 },
      encoderSkipped: { last: 0, total: 12 }
    })
    // Another run's health is not this run's; a new run starts from nothing.
    s.state({ runId: 'r2', streamId: 's', streamName: 'n', state: 'connecting' }, 30_000)
    s.health(health(31_000, 5000, 9, 9, 9))
    expect(s.view(31_000)).toMatchObject({ runId: 'r2', since: 30_000, networkDrops: { total: 0 } })
  })

  it('has no encoder row when the page encodes (no encoderSkipped in the health)', () => {
    const s = new RunStats()
    s.state({ runId: 'r1', streamId: 's', streamName: 'n', state: 'live', liveSince: 0 })
    s.health(health(1000, 1000, 0, 0))
    expect(s.view(1000)!.encoderSkipped).toBeUndefined()
  })
})

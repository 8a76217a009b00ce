// How the stats view reads every process's CPU time and memory, per OS (#34 §6). Each sampler answers
// the whole process table (pid, parent, name, CPU seconds so far, resident bytes), from which the app's
// tree is picked (resources.ts): the studio's ffmpegs are its children, not main's.
// - Linux: /proc/<pid>/stat (utime + stime in clock ticks, rss in pages). Tested for real here.
// - macOS: `ps -A -o pid=,ppid=,time=,rss=,comm=` (cputime, rss in KiB). Tested by injection only.
// - Windows: PowerShell's Win32_Process (UserModeTime + KernelModeTime in 100 ns, WorkingSetSize in
//   bytes). Tested by injection only; each read starts a PowerShell, so it is read only while the
//   stats view asks (about once a second).
// - Electron: app.getAppMetrics() names the page, GPU and helper processes (electronRows below); tested
//   by injection only, as Electron does not run here.
import { readdir, readFile } from 'node:fs/promises'
import { runChild, type RunResult } from '../../../node/process'
import type { ProcessKind } from '../../../shared/app-stats'

export interface ProcRow {
  pid: number
  ppid: number
  name: string
  /** CPU time used so far, user + system (s). */
  cpuSec: number
  rssBytes: number
}

export interface ProcSampler {
  /** 'proc', 'ps' or 'windows'. */
  source: string
  sample(): Promise<ProcRow[]>
}

/** Linux's USER_HZ, the unit of /proc's CPU times: 100 on every architecture Linux runs on. */
const CLOCK_TICKS = 100
const PAGE_BYTES = 4096

/** One /proc/<pid>/stat line. The name is in parentheses and may hold spaces and parentheses itself. */
export function parseProcStat(text: string, pageBytes = PAGE_BYTES): ProcRow | null {
  const open = text.indexOf('(')
  const close = text.lastIndexOf(')')
  if (open < 0 || close < open) return null
  const pid = Number(text.slice(0, open).trim())
  // Fields after the name, counting from 3 (state): ppid is 4, utime 14, stime 15, rss 24.
  const f = text
    .slice(close + 1)
    .trim()
    .split(/\s+/)
  const at = (n: number): number => Number(f[n - 3])
  const row = {
    pid,
    ppid: at(4),
    name: text.slice(open + 1, close),
    cpuSec: (at(14) + at(15)) / CLOCK_TICKS,
    rssBytes: at(24) * pageBytes
  }
  return [row.pid, row.ppid, row.cpuSec, row.rssBytes].every(Number.isFinite) ? row : null
}

export interface ProcFs {
  readdir(path: string): Promise<string[]>
  readFile(path: string): Promise<string>
}

const hostFs: ProcFs = { readdir, readFile: (p) => readFile(p, 'utf8') }

export function procSampler(fs: ProcFs = hostFs): ProcSampler {
  return {
    source: 'proc',
    async sample() {
      const pids = (await fs.readdir('/proc')).filter((n) => /^\d+$/.test(n))
      const rows = await Promise.all(
        pids.map((p) =>
          fs.readFile(`/proc/${p}/stat`).then(
            (t) => parseProcStat(t),
            // Ended between the listing and the read.
            () => null
          )
        )
      )
      return rows.filter((r): r is ProcRow => r !== null)
    }
  }
}

/** ps's cputime: [dd-][hh:]mm:ss[.cc] (macOS writes "1:02.34", procps "00:01:02"). */
export function parseCpuTime(s: string): number {
  const [days, rest] = s.includes('-') ? s.split('-', 2) : ['0', s]
  const parts = (rest ?? '').split(':').map(Number)
  let sec = 0
  for (const p of parts) sec = sec * 60 + p
  return Number(days) * 86400 + sec
}

/** `ps -A -o pid=,ppid=,time=,rss=,comm=`: the command last, as it may hold spaces. */
export function parsePs(text: string): ProcRow[] {
  const rows: ProcRow[] = []
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(\d+)\s+(.*)$/.exec(line)
    if (!m) continue
    const cpuSec = parseCpuTime(m[3]!)
    if (!Number.isFinite(cpuSec)) continue
    rows.push({
      pid: Number(m[1]),
      ppid: Number(m[2]),
      cpuSec,
      rssBytes: Number(m[4]) * 1024,
      name: m[5]!.trim().split('/').pop() ?? ''
    })
  }
  return rows
}

type Run = (command: string, args: string[]) => Promise<RunResult>
const hostRun: Run = (command, args) => runChild(command, args, { timeoutMs: 5000 })

export function psSampler(run: Run = hostRun): ProcSampler {
  return {
    source: 'ps',
    async sample() {
      const r = await run('ps', ['-A', '-o', 'pid=,ppid=,time=,rss=,comm='])
      if (r.error || r.code !== 0) throw r.error ?? new Error(`ps exited with ${r.code}`)
      return parsePs(r.stdout)
    }
  }
}

/** One line per process: pid,ppid,user+kernel time (100 ns),working set (bytes),name. */
export const WINDOWS_QUERY =
  'Get-CimInstance Win32_Process | ForEach-Object { "$($_.ProcessId),$($_.ParentProcessId),$($_.UserModeTime + $_.KernelModeTime),$($_.WorkingSetSize),$($_.Name)" }'

export function parseWindows(text: string): ProcRow[] {
  const rows: ProcRow[] = []
  for (const line of text.split(/\r?\n/)) {
    const m = /^(\d+),(\d+),(\d+),(\d+),(.*)$/.exec(line.trim())
    if (!m) continue
    rows.push({
      pid: Number(m[1]),
      ppid: Number(m[2]),
      cpuSec: Number(m[3]) / 1e7,
      rssBytes: Number(m[4]),
      name: m[5]!
    })
  }
  return rows
}

export function windowsSampler(run: Run = hostRun): ProcSampler {
  return {
    source: 'windows',
    async sample() {
      const r = await run('powershell.exe', [
        '-NoProfile',
        '-NonInteractive',
        '-Command',
        WINDOWS_QUERY
      ])
      if (r.error || r.code !== 0) throw r.error ?? new Error(`PowerShell exited with ${r.code}`)
      return parseWindows(r.stdout)
    }
  }
}

/** The sampler for this OS. */
export function hostSampler(platform: NodeJS.Platform = process.platform): ProcSampler {
  if (platform === 'linux') return procSampler()
  if (platform === 'win32') return windowsSampler()
  return psSampler()
}

/** The parts of Electron's ProcessMetric used here (app.getAppMetrics(); core imports no Electron). */
export interface ProcessMetricLike {
  pid: number
  type: string
  cpu: { percentCPUUsage: number; cumulativeCPUUsage?: number }
  /** Kilobytes, as Electron gives it. */
  memory: { workingSetSize: number }
}

export function electronKind(type: string): ProcessKind {
  if (type === 'Browser') return 'app'
  if (type === 'Tab') return 'renderer'
  if (type === 'GPU') return 'gpu'
  return 'electron'
}

/**
 * Electron's processes as rows with their kind. CPU seconds are Electron's own cumulative figure where
 * it gives one; otherwise its percentage since the last call is added up over the time since (prev
 * holds each pid's running sum between calls).
 */
export function electronRows(
  metrics: readonly ProcessMetricLike[],
  elapsedSec: number,
  prev: Map<number, number>
): { row: ProcRow; kind: ProcessKind }[] {
  const out: { row: ProcRow; kind: ProcessKind }[] = []
  const seen = new Map<number, number>()
  for (const m of metrics) {
    const cpuSec =
      m.cpu.cumulativeCPUUsage ??
      (prev.get(m.pid) ?? 0) + (Math.max(0, m.cpu.percentCPUUsage) / 100) * elapsedSec
    seen.set(m.pid, cpuSec)
    out.push({
      row: { pid: m.pid, ppid: -1, name: m.type, cpuSec, rssBytes: m.memory.workingSetSize * 1024 },
      kind: electronKind(m.type)
    })
  }
  prev.clear()
  for (const [pid, s] of seen) prev.set(pid, s)
  return out
}

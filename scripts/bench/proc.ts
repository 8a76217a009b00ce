// The processes under this one (the bench process is main in the web shell: the core, the web shell,
// and every child they and Playwright start) with their CPU time, from /proc (Linux): what a bench
// reads twice to say how much CPU each part of a path spent over a span.
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'

export interface Proc {
  pid: number
  ppid: number
  /** The command line, arguments joined by spaces. */
  cmd: string
  /** utime + stime, seconds. */
  cpu: number
}

let ticks: number | undefined
const clockTicks = (): number =>
  (ticks ??= Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100)

/** Every live process under `root` (itself included, with its own threads' CPU). */
export function processTree(root = process.pid): Proc[] {
  const all: Proc[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      // After the parenthesised command name: state (field 3), ppid (4), ... utime (14), stime (15).
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').trim()
      all.push({
        pid: Number(name),
        ppid: Number(f[1]),
        cmd,
        cpu: (Number(f[11]) + Number(f[12])) / clockTicks()
      })
    } catch {
      // It ended while we looked.
    }
  }
  const under = new Set([root])
  // Parents come before children in pid order only usually: repeat until nothing is added.
  for (let added = true; added;) {
    added = false
    for (const p of all) {
      if (!under.has(p.pid) && under.has(p.ppid)) {
        under.add(p.pid)
        added = true
      }
    }
  }
  return all.filter((p) => under.has(p.pid))
}

/** Under `pid` (itself included) in a tree. */
export function subtree(tree: readonly Proc[], pid: number): Set<number> {
  const s = new Set([pid])
  for (let added = true; added;) {
    added = false
    for (const p of tree) {
      if (!s.has(p.pid) && s.has(p.ppid)) {
        s.add(p.pid)
        added = true
      }
    }
  }
  return s
}

/** CPU seconds each process spent between two snapshots (one that started after the first: all of it). */
export function cpuBetween(before: readonly Proc[], after: readonly Proc[]): Proc[] {
  const was = new Map(before.map((p) => [p.pid, p.cpu]))
  return after.map((p) => ({ ...p, cpu: p.cpu - (was.get(p.pid) ?? 0) }))
}

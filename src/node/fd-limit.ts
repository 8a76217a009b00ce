// How many files and sockets this process may hold open at once (its soft RLIMIT_NOFILE), for
// servers that keep room for the rest of the process below it.
import { readFileSync } from 'node:fs'
import { runChild } from './process'

/**
 * The soft descriptor limit, or undefined where there is none to read (Windows has no such
 * per-process limit on sockets) or it is unlimited. Linux reads /proc; macOS asks sh, whose limit
 * is the one it inherited from us.
 */
export async function descriptorLimit(): Promise<number | undefined> {
  if (process.platform === 'win32') return undefined
  if (process.platform === 'linux') {
    try {
      const limits = readFileSync('/proc/self/limits', 'utf8')
      const m = /^Max open files\s+(\d+|unlimited)/m.exec(limits)
      return m && m[1] !== 'unlimited' ? Number(m[1]) : undefined
    } catch {
      return undefined
    }
  }
  const r = await runChild('/bin/sh', ['-c', 'ulimit -n'], { timeoutMs: 5000 })
  const n = Number.parseInt(r.stdout, 10)
  return Number.isFinite(n) && n > 0 ? n : undefined
}

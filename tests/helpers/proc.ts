// The process table as /proc shows it (Linux), for tests that look for children by their command line.
import { readdirSync, readFileSync } from 'node:fs'

/** Live (not zombie) processes whose command line contains every word. */
export function processesWith(...words: string[]): number[] {
  const out: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      // Zombies are dead already: this container's pid 1 does not reap orphans.
      if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') continue
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ')
      if (words.every((w) => cmd.includes(w))) out.push(Number(name))
    } catch {
      // Gone while we looked.
    }
  }
  return out
}

/** Every live process below `pid` (children, their children...), by each process's parent in /proc. */
export function descendantsOf(pid: number): number[] {
  const parent = new Map<number, number>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (rest[0] === 'Z') continue
      parent.set(Number(name), Number(rest[1]))
    } catch {
      // Gone while we looked.
    }
  }
  const out: number[] = []
  const below = new Set([pid])
  let grew = true
  while (grew) {
    grew = false
    for (const [p, pp] of parent)
      if (below.has(pp) && !below.has(p)) {
        below.add(p)
        out.push(p)
        grew = true
      }
  }
  return out
}

/** A process's command line, words joined by spaces ('' once it is gone). */
export function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ')
  } catch {
    return ''
  }
}

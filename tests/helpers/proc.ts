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

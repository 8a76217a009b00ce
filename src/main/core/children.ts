// Every child process the core starts is tracked here, so none outlives the app: shutdown() stops
// them in order, and a process 'exit' hook (which can only run synchronous code) SIGKILLs the rest.
import type { ChildProcess } from 'node:child_process'

interface Tracked {
  child: ChildProcess
  /** Started detached: kill its whole process group (the studio's own ffmpegs with it). */
  group: boolean
}

const live = new Set<Tracked>()
let hooked = false

function killTracked(t: Tracked, signal: NodeJS.Signals): void {
  const pid = t.child.pid
  if (pid === undefined || t.child.exitCode !== null || t.child.signalCode !== null) return
  try {
    if (t.group) process.kill(-pid, signal)
    else t.child.kill(signal)
  } catch {
    // Already gone.
  }
}

export function track(child: ChildProcess, group = false): ChildProcess {
  const t: Tracked = { child, group }
  live.add(t)
  child.once('exit', () => live.delete(t))
  child.once('error', () => {
    if (child.pid === undefined) live.delete(t)
  })
  if (!hooked) {
    hooked = true
    process.once('exit', () => {
      for (const x of live) killTracked(x, 'SIGKILL')
    })
  }
  return child
}

export function signalChild(child: ChildProcess, signal: NodeJS.Signals): void {
  for (const t of live) if (t.child === child) return killTracked(t, signal)
  if (child.exitCode === null && child.signalCode === null) child.kill(signal)
}

export function killAll(signal: NodeJS.Signals = 'SIGKILL'): void {
  for (const t of live) killTracked(t, signal)
}

/** Pids still running: tests and shutdown check that this is empty. */
export function trackedPids(): number[] {
  return [...live].flatMap((t) => (t.child.pid !== undefined ? [t.child.pid] : []))
}

// Process control for every child the app and the local studio start: the studio itself, its
// transcoders and forwarders, the broadcaster's ffmpeg, and the short runs (`ffmpeg -version`, the MP4
// remux, `keys create`). It is the only module that imports node:child_process (a lint rule keeps it
// so). It decides how a child is started (no console window on Windows, its own process group where
// it has children of its own), how it is stopped (gracefully first, then forced), what "forced" means
// on each OS (the whole tree: the process group on macOS/Linux, `taskkill /T /F` on Windows), and that
// none outlives its parent's orderly exit.
import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'

export type { ChildProcess }

/** The parts of a ChildProcess this module needs (tests pass fakes with the same shape). */
export interface ChildHandle {
  readonly pid?: number
  readonly exitCode?: number | null
  readonly signalCode?: NodeJS.Signals | null
  kill(signal?: NodeJS.Signals): boolean
  once(event: 'exit', fn: (code: number | null, signal: NodeJS.Signals | null) => void): unknown
}

/** The OS-facing calls, injectable so the Windows branches run (recorded) on any machine. */
export interface ProcessPlatform {
  platform: NodeJS.Platform
  /** process.kill: a negative pid signals a POSIX process group. */
  kill(pid: number, signal: NodeJS.Signals): void
  /** Runs a command to completion (synchronous: it must work inside a process 'exit' hook). */
  runSync(command: string, args: string[]): void
}

export const hostPlatform: ProcessPlatform = {
  platform: process.platform,
  kill: (pid, signal) => process.kill(pid, signal),
  runSync: (command, args) => {
    execFileSync(command, args, { stdio: 'ignore', windowsHide: true, timeout: 10_000 })
  }
}

const hasExited = (c: ChildHandle): boolean =>
  (c.exitCode !== undefined && c.exitCode !== null) ||
  (c.signalCode !== undefined && c.signalCode !== null)

interface Tracked {
  child: ChildHandle
  /** Has children of its own (the studio's ffmpegs): forced stops take the whole tree. */
  tree: boolean
  platform: ProcessPlatform
  kind: ChildKind
}

/** What a child is, for the stats view's per-kind CPU and memory (src/main/core/app-stats). */
export type ChildKind = 'studio' | 'encoder' | 'ffmpeg' | 'other'

/** A command's kind when the caller names none: an ffmpeg by its file name, anything else 'other'. */
export function kindOfCommand(command: string): ChildKind {
  const base = command.split(/[\\/]/).pop() ?? ''
  return /^ffmpeg(\.exe)?$/i.test(base) ? 'ffmpeg' : 'other'
}

const live = new Set<Tracked>()
let exitHooked = false

/** Tracks a child so that an orderly exit of this process takes it along (see killAllTracked). */
export function track<C extends ChildHandle>(
  child: C,
  tree = false,
  platform: ProcessPlatform = hostPlatform,
  kind: ChildKind = 'other'
): C {
  const t: Tracked = { child, tree, platform, kind }
  live.add(t)
  child.once('exit', () => live.delete(t))
  if (!exitHooked) {
    exitHooked = true
    // Only synchronous work runs in an 'exit' hook: forced stops are synchronous on every OS.
    process.once('exit', () => killAllTracked())
  }
  return child
}

export interface SpawnChildOptions {
  stdio?: SpawnOptions['stdio']
  env?: NodeJS.ProcessEnv
  cwd?: string
  /** The child starts children of its own: give it a process group so a forced stop reaches them. */
  tree?: boolean
  platform?: ProcessPlatform
  /** Node's spawn, injectable so tests record what would be started. */
  spawnFn?: typeof spawn
  /** What the child is, for the stats view; default: kindOfCommand(command). */
  kind?: ChildKind
}

/** Starts and tracks a child. No console window pops up on Windows for any of them. */
export function spawnChild(
  command: string,
  args: readonly string[],
  o: SpawnChildOptions = {}
): ChildProcess {
  const platform = o.platform ?? hostPlatform
  const child = (o.spawnFn ?? spawn)(command, [...args], {
    stdio: o.stdio ?? ['pipe', 'pipe', 'pipe'],
    env: o.env,
    cwd: o.cwd,
    windowsHide: true,
    // POSIX: a process group of its own, so the group can be signalled. On Windows `detached` would
    // open a new console instead; the tree is reached with taskkill /T there.
    detached: (o.tree ?? false) && platform.platform !== 'win32'
  })
  return track(child, o.tree ?? false, platform, o.kind ?? kindOfCommand(command))
}

/** The children running now, with their pid and kind (the stats view reads their CPU and memory). */
export function trackedChildren(): { pid: number; kind: ChildKind }[] {
  const out: { pid: number; kind: ChildKind }[] = []
  for (const t of live)
    if (t.child.pid !== undefined && !hasExited(t.child))
      out.push({ pid: t.child.pid, kind: t.kind })
  return out
}

function trackedOf(child: ChildHandle): Tracked | undefined {
  for (const t of live) if (t.child === child) return t
  return undefined
}

/**
 * The polite word where the OS has one: SIGTERM on POSIX. Windows has no signal a child can catch
 * (kill() is TerminateProcess there), so terminating means forcing the tree at once.
 */
export function terminate(child: ChildHandle, platform?: ProcessPlatform): void {
  if (hasExited(child)) return
  const p = platform ?? trackedOf(child)?.platform ?? hostPlatform
  if (p.platform === 'win32') forceKill(child, { platform: p })
  else child.kill('SIGTERM')
}

/**
 * Ends a child and everything it started, now. POSIX: SIGKILL to its process group (when it has
 * one) and to itself. Windows: `taskkill /PID <pid> /T /F` takes the tree; the child's own kill()
 * (TerminateProcess) covers a taskkill that could not run.
 */
export function forceKill(
  child: ChildHandle,
  o: { tree?: boolean; platform?: ProcessPlatform } = {}
): void {
  const t = trackedOf(child)
  const tree = o.tree ?? t?.tree ?? false
  const platform = o.platform ?? t?.platform ?? hostPlatform
  const pid = child.pid
  if (tree && pid !== undefined) {
    try {
      if (platform.platform === 'win32')
        platform.runSync('taskkill', ['/PID', String(pid), '/T', '/F'])
      else platform.kill(-pid, 'SIGKILL')
    } catch {
      // The tree is already gone (ESRCH, or taskkill's "not found").
    }
  }
  if (!hasExited(child)) child.kill('SIGKILL')
}

export interface StopPlan {
  /** The graceful word: 'q' or EOF on stdin, a message, a signal. Runs at once. */
  graceful?: () => void
  /** If it is still running this long after the graceful word, terminate() it. */
  termAfterMs?: number
  /** Then (or, without termAfterMs, after the graceful word) force the tree after this long. */
  killAfterMs: number
  tree?: boolean
  platform?: ProcessPlatform
}

/**
 * Graceful first, then forced: resolves when the child has exited. Timers end with the child, so a
 * child that ends at the graceful word is never signalled again.
 */
export function stopChild(child: ChildHandle, plan: StopPlan): Promise<void> {
  if (hasExited(child)) return Promise.resolve()
  const timers: ReturnType<typeof setTimeout>[] = []
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      for (const t of timers) clearTimeout(t)
      resolve()
    })
  )
  const force = (): void => forceKill(child, { tree: plan.tree, platform: plan.platform })
  plan.graceful?.()
  if (plan.termAfterMs !== undefined) {
    timers.push(
      setTimeout(() => {
        terminate(child, plan.platform)
        timers.push(setTimeout(force, plan.killAfterMs))
      }, plan.termAfterMs)
    )
  } else {
    timers.push(setTimeout(force, plan.killAfterMs))
  }
  return exited
}

/** Forces every tracked child now: the last resort of an exiting process. */
export function killAllTracked(): void {
  for (const t of [...live]) forceKill(t.child, { tree: t.tree, platform: t.platform })
}

export interface RunResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  /** Set when the command could not be started (ENOENT, EACCES) or ran past its time limit. */
  error?: Error
  /** It ran past its time limit and was forced. */
  timedOut?: boolean
}

/**
 * Runs a short command to completion through spawnChild (tracked, no console window) and collects its
 * output (each stream capped at maxBytes). Past timeoutMs it is forced, and the result says so.
 */
export function runChild(
  command: string,
  args: readonly string[],
  o: Omit<SpawnChildOptions, 'stdio'> & { timeoutMs?: number; maxBytes?: number } = {}
): Promise<RunResult> {
  const max = o.maxBytes ?? 1024 * 1024
  return new Promise((resolve) => {
    const child = spawnChild(command, args, { ...o, stdio: ['ignore', 'pipe', 'pipe'] })
    const out = { stdout: '', stderr: '' }
    const collect = (k: 'stdout' | 'stderr') => (d: Buffer) => {
      if (out[k].length < max) out[k] += d.toString().slice(0, max - out[k].length)
    }
    child.stdout?.on('data', collect('stdout'))
    child.stderr?.on('data', collect('stderr'))
    let error: Error | undefined
    let timedOut = false
    const timer =
      o.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            error = new Error(`${command} did not finish within ${o.timeoutMs} ms`)
            timedOut = true
            forceKill(child)
          }, o.timeoutMs)
    child.once('error', (e) => {
      error ??= e
      // Never started: no 'exit' follows.
      if (child.pid === undefined) {
        clearTimeout(timer)
        resolve({ code: null, signal: null, ...out, error })
      }
    })
    child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer)
      resolve({
        code,
        signal,
        ...out,
        ...(error ? { error } : {}),
        ...(timedOut ? { timedOut } : {})
      })
    })
  })
}

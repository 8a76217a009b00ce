// The studio as the app runs it: src/studio/cli.ts in its own node (tsx loader), so its PID is the
// studio itself (its memory, its file descriptors), optionally under a lowered descriptor limit.
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { testFfmpeg } from './studio'

export interface CliReady {
  api: string
  rtmp: string
  apiKey?: string
}

export interface CliStudio {
  child: ChildProcess
  ready: Promise<CliReady>
  exit: Promise<number | null>
  stderr: () => string
}

const children = new Set<ChildProcess>()
/** Kills every studio this helper started that is still running (for afterAll). */
export function killCliStudios(): void {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
}

/**
 * Runs the studio CLI with `args`. `nofile` lowers its descriptor limit (soft and hard) with
 * prlimit, which execs the studio: the PID stays the studio's.
 */
export function runCli(args: string[], opts: { nofile?: number } = {}): CliStudio {
  testFfmpeg()
  const node = [process.execPath, '--import', 'tsx', 'src/studio/cli.ts', ...args]
  const [cmd, ...rest] = opts.nofile
    ? ['prlimit', `--nofile=${opts.nofile}:${opts.nofile}`, '--', ...node]
    : node
  const child = spawn(cmd!, rest, { stdio: ['ignore', 'pipe', 'pipe'], env: process.env })
  children.add(child)
  let err = ''
  child.stderr!.setEncoding('utf8').on('data', (c: string) => {
    err += c
    if (process.env.STUDIO_DEBUG) process.stderr.write(c)
  })
  const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)))
  const ready = new Promise<CliReady>((resolve, reject) => {
    let out = ''
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      out += c
      const m = /ONAIR_STUDIO_READY (\{.*\})\n/.exec(out)
      if (m) resolve(JSON.parse(m[1]!) as CliReady)
    })
    void exit.then((code) => reject(new Error(`studio exited ${code}: ${err}`)))
  })
  return { child, ready, exit, stderr: () => err }
}

/** A process's resident memory in MB (Linux: /proc/<pid>/status VmRSS). */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  if (!m) throw new Error(`no VmRSS for process ${pid}`)
  return Number(m[1]) / 1024
}

// Real children on Linux: a forced stop takes the whole tree (the process group), a graceful stop
// that is obeyed forces nothing, and an orderly exit of the parent takes every tracked child along.
import { execFileSync, spawn } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { forceKill, spawnChild, stopChild } from '../../../src/node/process'
import { waitUntil } from '../../helpers/wait-until'

/** Live (not zombie) processes among pids. */
function alive(pids: number[]): number[] {
  return pids.filter((pid) => {
    try {
      const stat = execFileSync('ps', ['-o', 'stat=', '-p', String(pid)])
        .toString()
        .trim()
      return stat !== '' && !stat.startsWith('Z')
    } catch {
      return false
    }
  })
}

const childrenOf = (pid: number): number[] => {
  try {
    return execFileSync('pgrep', ['-P', String(pid)])
      .toString()
      .trim()
      .split('\n')
      .map(Number)
  } catch {
    return []
  }
}

describe.skipIf(process.platform === 'win32')('process trees (real children)', () => {
  it('forceKill takes the whole tree', async () => {
    const c = spawnChild('sh', ['-c', 'sleep 300 & sleep 300 & wait'], {
      tree: true,
      stdio: 'ignore'
    })
    await waitUntil(() => childrenOf(c.pid!).length === 2, 'the two grandchildren')
    const all = [c.pid!, ...childrenOf(c.pid!)]
    forceKill(c)
    await waitUntil(() => alive(all).length === 0, 'the whole tree to end', 5000)
  })

  it('a graceful stop that is obeyed ends the child without force', async () => {
    const c = spawnChild('sh', ['-c', 'read line; exit 0'], { stdio: ['pipe', 'ignore', 'ignore'] })
    let signal: NodeJS.Signals | null = null
    c.once('exit', (_code, s) => (signal = s))
    await stopChild(c, { graceful: () => c.stdin!.end('bye\n'), killAfterMs: 5000 })
    expect(c.exitCode).toBe(0)
    expect(signal).toBeNull()
  })

  it("a parent's exit takes every tracked child along", async () => {
    // A Node parent that starts a tracked child and exits without stopping it.
    const parent = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `const { spawnChild } = require(${JSON.stringify(join(__dirname, '../../../src/node/process.ts'))});
         const c = spawnChild('sleep', ['300'], { stdio: 'ignore' });
         console.log(c.pid);
         setTimeout(() => process.exit(0), 200);`
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] }
    )
    let out = ''
    parent.stdout!.on('data', (d: Buffer) => (out += d.toString()))
    await new Promise((r) => parent.once('exit', r))
    const pid = Number(out.trim())
    expect(pid).toBeGreaterThan(0)
    await waitUntil(
      () => alive([pid]).length === 0,
      'the tracked child to end with its parent',
      5000
    )
  })
})

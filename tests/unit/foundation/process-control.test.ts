// Process control on every OS. Windows and macOS cannot run here: their branches run with an injected
// platform and a recorded spawner (what would be started, signalled and run). Real children on Linux
// are in tests/integration/foundation/process-tree.test.ts.
import { EventEmitter } from 'node:events'
import type { spawn } from 'node:child_process'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  forceKill,
  spawnChild,
  stopChild,
  terminate,
  type ProcessPlatform
} from '../../../src/node/process'
import { parseStudioMessage, isStopMessage } from '../../../src/node/studio-channel'

class FakeChild extends EventEmitter {
  pid = 4242
  exitCode: number | null = null
  signalCode: NodeJS.Signals | null = null
  signals: string[] = []
  kill(sig: NodeJS.Signals = 'SIGTERM'): boolean {
    this.signals.push(sig)
    return true
  }
  exit(code: number | null, signal: NodeJS.Signals | null = null): void {
    this.exitCode = code
    this.signalCode = signal
    this.emit('exit', code, signal)
  }
}

function recorded(platform: NodeJS.Platform) {
  const calls = { kill: [] as [number, string][], run: [] as [string, string[]][] }
  const p: ProcessPlatform = {
    platform,
    kill: (pid, signal) => void calls.kill.push([pid, signal]),
    runSync: (command, args) => void calls.run.push([command, args])
  }
  const spawned: { command: string; args: string[]; options: Record<string, unknown> }[] = []
  const child = new FakeChild()
  const spawnFn = ((command: string, args: string[], options: Record<string, unknown>) => {
    spawned.push({ command, args, options })
    return child
  }) as unknown as typeof spawn
  return { p, calls, spawned, child, spawnFn }
}

beforeEach(() => vi.useFakeTimers())
afterEach(() => vi.useRealTimers())

describe('process control on Windows (injected)', () => {
  it('starts children without a console window, never detached (libuv puts them in its kill-on-close job)', () => {
    const r = recorded('win32')
    spawnChild('C:\\\\Onair\\\\ffmpeg.exe', ['-i', 'x'], {
      tree: true,
      platform: r.p,
      spawnFn: r.spawnFn
    })
    expect(r.spawned[0]!.options).toMatchObject({ windowsHide: true, detached: false })
  })

  it('forces the whole tree with taskkill /T /F, then the child itself', () => {
    const r = recorded('win32')
    const c = spawnChild('studio.exe', [], { tree: true, platform: r.p, spawnFn: r.spawnFn })
    forceKill(c)
    expect(r.calls.run).toEqual([['taskkill', ['/PID', '4242', '/T', '/F']]])
    expect(r.calls.kill).toEqual([]) // no POSIX process groups on Windows
    expect(r.child.signals).toEqual(['SIGKILL'])
    r.child.exit(1)
  })

  it('has no polite signal: terminate() forces the tree', () => {
    const r = recorded('win32')
    const c = spawnChild('studio.exe', [], { tree: true, platform: r.p, spawnFn: r.spawnFn })
    terminate(c)
    expect(r.calls.run).toHaveLength(1)
    r.child.exit(1)
  })

  it('stops gracefully first (a message), forced only if it does not end in time', async () => {
    const r = recorded('win32')
    const c = spawnChild('studio.exe', [], { tree: true, platform: r.p, spawnFn: r.spawnFn })
    const graceful = vi.fn()
    const done = stopChild(c, { graceful, killAfterMs: 5000, tree: true, platform: r.p })
    expect(graceful).toHaveBeenCalledOnce()
    await vi.advanceTimersByTimeAsync(4999)
    expect(r.calls.run).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(r.calls.run).toEqual([['taskkill', ['/PID', '4242', '/T', '/F']]])
    r.child.exit(1)
    await done
  })

  it('a child that ends at the graceful word is never forced', async () => {
    const r = recorded('win32')
    const c = spawnChild('ffmpeg.exe', [], { platform: r.p, spawnFn: r.spawnFn })
    const done = stopChild(c, { graceful: () => r.child.exit(0), killAfterMs: 5000, platform: r.p })
    await done
    await vi.advanceTimersByTimeAsync(10_000)
    expect(r.calls.run).toEqual([])
    expect(r.child.signals).toEqual([])
  })
})

describe('process control on macOS and Linux (injected)', () => {
  it.each(['darwin', 'linux'] as const)(
    '%s: a tree gets its own process group, forced by group',
    (os) => {
      const r = recorded(os)
      const c = spawnChild('/Applications/Onair Studio.app/Contents/MacOS/Onair', [], {
        tree: true,
        platform: r.p,
        spawnFn: r.spawnFn
      })
      expect(r.spawned[0]!.options).toMatchObject({ windowsHide: true, detached: true })
      terminate(c)
      expect(r.child.signals).toEqual(['SIGTERM'])
      forceKill(c)
      expect(r.calls.kill).toEqual([[-4242, 'SIGKILL']])
      expect(r.calls.run).toEqual([])
      r.child.exit(null, 'SIGKILL')
    }
  )

  it('a single child (no tree) is neither grouped nor group-killed', () => {
    const r = recorded('darwin')
    const c = spawnChild('ffmpeg', [], { platform: r.p, spawnFn: r.spawnFn })
    expect(r.spawned[0]!.options).toMatchObject({ detached: false })
    forceKill(c)
    expect(r.calls.kill).toEqual([])
    expect(r.child.signals).toEqual(['SIGKILL'])
    r.child.exit(null, 'SIGKILL')
  })
})

describe('the studio channel', () => {
  it('reads ready and failed, and nothing else', () => {
    expect(
      parseStudioMessage({ type: 'ready', api: 'http://127.0.0.1:1/api', rtmp: 'rtmp://x/live' })
    ).toEqual({ type: 'ready', api: 'http://127.0.0.1:1/api', rtmp: 'rtmp://x/live' })
    expect(parseStudioMessage({ type: 'failed', reason: 'port busy', code: 'EADDRINUSE' })).toEqual(
      {
        type: 'failed',
        reason: 'port busy',
        code: 'EADDRINUSE'
      }
    )
    for (const junk of [
      null,
      'ready',
      { type: 'ready', api: 1 },
      { type: 'ready', api: 'a' },
      { type: 'x' },
      { type: 'ready', api: 'a', rtmp: 'b', apiKey: 5 }
    ])
      expect(parseStudioMessage(junk)).toBeUndefined()
    expect(isStopMessage({ type: 'stop' })).toBe(true)
    expect(isStopMessage({ type: 'ready' })).toBe(false)
  })
})

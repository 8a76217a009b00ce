// When the local studio dies (a crash, kill -9), the host ends what the studio had started (its
// transcoders and forwarders) before anything else: the dead studio's process group on macOS and
// Linux, `taskkill /PID <pid> /T /F` on Windows. Windows and macOS cannot run here: the platform and
// the spawner are injected and what they would do is recorded (the real Linux case is
// tests/integration/core/studio-crash-forwarders.test.ts). The keychain is a stand-in that is not
// reachable: the host then keeps the studio's fresh key in memory, so no HTTP is needed.
import { EventEmitter } from 'node:events'
import type { spawn } from 'node:child_process'
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import type { Keychain } from '../../../src/main/core/keychain'
import { StudioHost, type LocalStatus } from '../../../src/main/core/studio-host'
import type { ProcessPlatform } from '../../../src/node/process'
import { AppFailure } from '../../../src/shared/result'

class FakeStudio extends EventEmitter {
  pid = 4242
  exitCode: number | null = null
  signalCode: NodeJS.Signals | null = null
  connected = true
  stdin = null
  stdout = new PassThrough()
  stderr = new PassThrough()
  signals: string[] = []
  kill(sig: NodeJS.Signals = 'SIGTERM'): boolean {
    this.signals.push(sig)
    return true
  }
  send(): boolean {
    return true
  }
  exit(code: number | null, signal: NodeJS.Signals | null = null): void {
    this.exitCode = code
    this.signalCode = signal
    this.connected = false
    this.emit('exit', code, signal)
  }
}

const noKeychain = {
  check: async () => {
    throw new AppFailure({ code: 'keychain-unavailable', message: 'no keychain here' })
  }
} as unknown as Keychain

function host(os: NodeJS.Platform) {
  const calls: string[] = []
  const platform: ProcessPlatform = {
    platform: os,
    kill: (pid, signal) => void calls.push(`kill ${pid} ${signal}`),
    runSync: (command, args) => void calls.push([command, ...args].join(' '))
  }
  const studios: FakeStudio[] = []
  const spawnFn = (() => {
    const s = new FakeStudio()
    studios.push(s)
    return s
  }) as unknown as typeof spawn
  const statuses: LocalStatus[] = []
  /** What had been done to the OS when each status was reported. */
  const callsAt: string[][] = []
  const h = new StudioHost({
    dataDir: '/data',
    keychain: noKeychain,
    command: { command: 'studio', args: [] },
    platform,
    spawnFn,
    restartDelayMs: 60_000,
    onStatus: (s) => {
      statuses.push(s)
      callsAt.push([...calls])
    }
  })
  return { h, calls, studios, statuses, callsAt }
}

describe('a studio that dies takes its children along', () => {
  it.each([
    ['win32', 'taskkill /PID 4242 /T /F'],
    ['linux', 'kill -4242 SIGKILL'],
    ['darwin', 'kill -4242 SIGKILL']
  ] as const)('%s: %s, before the host reports it and restarts', async (os, treeKill) => {
    const { h, calls, studios, statuses, callsAt } = host(os)
    const ready = h.ensure()
    studios[0]!.emit('message', {
      type: 'ready',
      api: 'http://127.0.0.1:4000/api',
      rtmp: 'rtmp://127.0.0.1:1935/live',
      apiKey: 'fresh-key'
    })
    expect((await ready).apiKey).toBe('fresh-key')
    expect(calls).toEqual([])

    studios[0]!.exit(null, 'SIGKILL')
    expect(calls).toEqual([treeKill])
    // Already done when the host reported the death.
    expect(callsAt.at(-1)).toEqual([treeKill])
    expect(statuses.at(-1)).toMatchObject({ state: 'failed' })
    // A state and the exit's own figures: the Connection screen words it (connection-text.test.ts).
    expect(statuses.at(-1)!.error).toEqual({ kind: 'crashed', signal: 'SIGKILL', code: null })
    await h.stop()
    expect(studios).toHaveLength(1) // the restart was still waiting: stop dropped it
  })
})

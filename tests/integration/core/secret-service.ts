// A real Secret Service for the keychain tests. Uses the session's own if one answers; otherwise
// starts a private D-Bus session bus + gnome-keyring (unlocked, HOME in a temp dir, so the user's
// keyrings are never touched). If neither works the tests FAIL with the reason, unless
// ONAIR_ALLOW_NO_KEYCHAIN=1, in which case they are skipped with it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Keychain } from '../../../src/main/core/keychain'

export type SecretService = { ok: true; stop(): void } | { ok: false; reason: string }

const has = (bin: string): boolean => spawnSync('sh', ['-c', `command -v ${bin}`]).status === 0

async function reachable(): Promise<string | undefined> {
  try {
    await new Keychain(`onair-test-probe-${process.pid}`, 3000).check()
    return undefined
  } catch (e) {
    return (e as Error).message
  }
}

export async function useSecretService(): Promise<SecretService> {
  if (process.env.DBUS_SESSION_BUS_ADDRESS && !(await reachable()))
    return { ok: true, stop: () => {} }
  if (!has('dbus-daemon') || !has('gnome-keyring-daemon'))
    return {
      ok: false,
      reason: 'no Secret Service answers and dbus-daemon/gnome-keyring-daemon are not installed'
    }
  const home = mkdtempSync(join(tmpdir(), 'onair-keyring-'))
  const procs: ChildProcess[] = []
  const stop = (): void => {
    for (const p of procs) p.kill('SIGKILL')
    rmSync(home, { recursive: true, force: true })
  }
  const bus = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1'], {
    stdio: ['ignore', 'pipe', 'ignore']
  })
  procs.push(bus)
  const address = await new Promise<string>((resolve) => {
    let out = ''
    bus.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      if (out.includes('\n')) resolve(out.split('\n')[0]!.trim())
    })
    setTimeout(() => resolve(''), 5000)
  })
  if (!address) {
    stop()
    return { ok: false, reason: 'could not start a private D-Bus session bus' }
  }
  process.env.DBUS_SESSION_BUS_ADDRESS = address
  const keyring = spawn(
    'gnome-keyring-daemon',
    ['--foreground', '--unlock', '--components=secrets'],
    {
      env: { ...process.env, HOME: home, XDG_DATA_HOME: home, XDG_RUNTIME_DIR: home },
      stdio: ['pipe', 'ignore', 'ignore']
    }
  )
  procs.push(keyring)
  keyring.stdin!.end('test-password')
  let why: string | undefined = 'not tried'
  for (let i = 0; i < 20 && why; i++) {
    await new Promise((r) => setTimeout(r, 250))
    why = await reachable()
  }
  if (why) {
    stop()
    return { ok: false, reason: `gnome-keyring did not answer on a private bus: ${why}` }
  }
  return { ok: true, stop }
}

/** The message a missing keychain fails the suite with. */
export const NO_KEYCHAIN = (reason: string): string =>
  `No Secret Service is reachable (${reason}). Install gnome-keyring and dbus (apt-get install gnome-keyring dbus), ` +
  'or set ONAIR_ALLOW_NO_KEYCHAIN=1 to skip the keychain tests.'

// The keychain inside a real Secret Service, and connections that keep their keys only there.
import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { promisify } from 'node:util'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { findCredentialsAsync } from '@napi-rs/keyring'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Connections } from '../../../src/main/core/connections'
import { Keychain } from '../../../src/main/core/keychain'
import { LOCAL_ID, SettingsStore } from '../../../src/main/core/settings-store'
import { StudioHost } from '../../../src/main/core/studio-host'
import type { ConnectionStatus } from '../../../src/shared/contract'
import type { AppError } from '../../../src/shared/result'
import { startTestStudio, type TestStudio } from '../../helpers/studio'
import { NO_KEYCHAIN, useSecretService } from './secret-service'
import { failure } from '../../helpers/failure'

const run = promisify(execFile)
const ss = await useSecretService()
const allowMissing = process.env.ONAIR_ALLOW_NO_KEYCHAIN === '1'

if (!ss.ok && allowMissing) {
  it.skip(`keychain tests skipped: ${ss.reason}`, () => {})
} else if (!ss.ok) {
  it('needs a Secret Service', () => {
    throw new Error(NO_KEYCHAIN(ss.reason))
  })
} else {
  const service = `onair-test-${randomUUID().slice(0, 8)}`
  afterAll(() => ss.stop())

  describe('keychain', () => {
    it('saves, reads and deletes a secret', async () => {
      const kc = new Keychain(service)
      expect(await kc.get('round-trip')).toBeUndefined()
      await kc.set('round-trip', 's3cret-value')
      expect(await kc.get('round-trip')).toBe('s3cret-value')
      expect(await new Keychain(service).get('round-trip')).toBe('s3cret-value')
      await kc.delete('round-trip')
      expect(await kc.get('round-trip')).toBeUndefined()
    })

    it('checks at once, here and in another process of the same service, all pass and leave no probe behind', async () => {
      // The app's core, its web shell and a second Onair (or a test beside the app) check the same
      // service's keychain at the same time; CI once saw a check fail with the Secret Service's "no
      // result found" because another check had deleted the probe entry it had just written.
      const shared = `${service}-probe-race`
      const script = [
        `import m from ${JSON.stringify(join(process.cwd(), 'src/main/core/keychain.ts'))}`,
        'const { Keychain } = m',
        `const out = await Promise.allSettled(Array.from({ length: 8 }, () => new Keychain('${shared}').check()))`,
        "console.log(JSON.stringify(out.map((r) => r.status === 'fulfilled' ? null : r.reason.error ?? String(r.reason))))"
      ].join('\n')
      const other = run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        timeout: 60_000
      })
      const one = new Keychain(shared)
      const here = await Promise.allSettled([
        ...Array.from({ length: 8 }, () => new Keychain(shared).check()),
        // One instance asked twice at once (two reads finding no key) checks once.
        one.check(),
        one.check()
      ])
      const failures = here.filter((r) => r.status === 'rejected').map((r) => String(r.reason))
      const { stdout } = await other
      const otherFailures = (JSON.parse(stdout.trim().split('\n').pop()!) as unknown[]).filter(
        (f) => f !== null
      )
      expect({ here: failures, other: otherFailures }).toEqual({ here: [], other: [] })
      // No probe entry is left in the keychain.
      expect(await findCredentialsAsync(shared)).toEqual([])
    })

    it('says plainly when there is no keychain, instead of falling back', async () => {
      // The keyring library keeps its D-Bus connection per process: try from a fresh one with no bus.
      const script = [
        // The project is CommonJS: the module arrives as the default export.
        `import m from ${JSON.stringify(join(process.cwd(), 'src/main/core/keychain.ts'))}`,
        'const { Keychain } = m',
        `const kc = new Keychain('${service}', 3000)`,
        'const out = []',
        "for (const op of [() => kc.set('x', 'y'), () => kc.get('x')]) {",
        '  try { await op(); out.push(null) } catch (e) { out.push(e.error) }',
        '}',
        'console.log(JSON.stringify(out))'
      ].join('\n')
      const { stdout } = await run(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        {
          env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/onair-bus' },
          timeout: 30_000
        }
      )
      const [setErr, getErr] = JSON.parse(stdout.trim().split('\n').pop()!) as AppError[]
      expect(setErr).toMatchObject({ code: 'keychain-unavailable' })
      expect(setErr!.hint).toContain('gnome-keyring')
      expect(setErr!.message).toContain('Could not save the API key in the system keychain')
      expect(getErr).toMatchObject({ code: 'keychain-unavailable' })
    })

    it('a D-Bus session with no Secret Service on it: a save is refused, naming it and how to start one; nothing goes to the kernel keyring', async () => {
      // A session bus that cannot start gnome-keyring on demand (no service files): the keyring
      // library would fall back to the kernel keyring here, which forgets keys at reboot.
      const dir = await mkdtemp(join(tmpdir(), 'onair-bare-bus-'))
      try {
        const conf = join(dir, 'bus.conf')
        await writeFile(
          conf,
          [
            '<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">',
            '<busconfig><type>session</type>',
            `<listen>unix:dir=${dir}</listen><auth>EXTERNAL</auth>`,
            '<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>',
            '</busconfig>'
          ].join('\n')
        )
        const script = [
          `import m from ${JSON.stringify(join(process.cwd(), 'src/main/core/keychain.ts'))}`,
          'const { Keychain } = m',
          `const kc = new Keychain('${service}', 3000)`,
          'let err = null',
          "try { await kc.set('bare-bus', 'kept-only-until-reboot') } catch (e) { err = e.error }",
          'console.log(JSON.stringify({ bus: process.env.DBUS_SESSION_BUS_ADDRESS, err }))'
        ].join('\n')
        const { stdout } = await run(
          'dbus-run-session',
          [
            `--config-file=${conf}`,
            '--',
            process.execPath,
            '--import',
            'tsx',
            '--input-type=module',
            '-e',
            script
          ],
          { timeout: 30_000 }
        )
        const out = JSON.parse(stdout.trim().split('\n').pop()!) as { bus: string; err: AppError }
        expect(out.bus).toContain(dir)
        expect(out.err).toMatchObject({ code: 'keychain-unavailable' })
        expect(out.err.message).toContain('Could not save the API key in the system keychain')
        expect(out.err.message).toContain('no Secret Service (org.freedesktop.secrets) answers')
        expect(out.err.hint).toContain('gnome-keyring-daemon --start --components=secrets')
        // The kernel keyring holds nothing of this service (the library's silent fallback is off).
        expect(await readFile('/proc/keys', 'utf8')).not.toContain(`@${service}`)
      } finally {
        await rm(dir, { recursive: true, force: true })
      }
    })

    it('with a Secret Service the key goes there, not to the kernel keyring', async () => {
      const kc = new Keychain(service)
      await kc.set('not-kernel', 'kept-across-reboots')
      try {
        expect(await kc.get('not-kernel')).toBe('kept-across-reboots')
        expect(await readFile('/proc/keys', 'utf8')).not.toContain(`@${service}`)
      } finally {
        await kc.delete('not-kernel')
      }
    })

    it('the core without a keychain: the local studio still works (key in memory only), other services are refused plainly, nothing in plain text', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'onair-nokeychain-'))
      try {
        const script = [
          `import m from ${JSON.stringify(join(process.cwd(), 'src/main/core/core.ts'))}`,
          `const core = await m.createCore({ appDataDir: ${JSON.stringify(dir)}, shell: 'web', appVersion: '0', keychainService: '${service}' })`,
          'const created = await core.createStream({ name: "no keychain", profiles: [], record: false })',
          'const listed = await core.listStreams({})',
          'let addError = null',
          "try { await core.addConnection({ kind: 'custom', baseUrl: (await core.connectionStatus()).local.api, apiKey: 'whatever-key' }) } catch (e) { addError = e.error }",
          'const status = await core.connectionStatus()',
          'await core.shutdown()',
          'console.log(JSON.stringify({ created: created.id, listed: listed.items.map((s) => s.id), addError, local: status.local }))'
        ].join('\n')
        const { stdout } = await run(
          process.execPath,
          ['--import', 'tsx', '--input-type=module', '-e', script],
          {
            env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/onair-bus' },
            timeout: 90_000
          }
        )
        const out = JSON.parse(stdout.trim().split('\n').pop()!) as {
          created: string
          listed: string[]
          addError: AppError
          local: ConnectionStatus['local']
        }
        expect(out.local.state).toBe('ready')
        expect(out.listed).toContain(out.created)
        // A key for another service cannot be kept safely, so it is not kept at all.
        expect(out.addError).toMatchObject({ code: 'keychain-unavailable' })
        expect(out.addError.hint).toContain('gnome-keyring')
        // Nothing of any key landed in the settings file.
        const settings = await readFile(join(dir, 'settings.json'), 'utf8').catch(() => '')
        expect(settings).not.toMatch(/apiKey|"key"|whatever-key/i)
      } finally {
        await rm(dir, { recursive: true, force: true })
      }
    })
  })

  describe('the local studio key: one keychain entry per data folder', () => {
    const kc = new Keychain(service)
    const dirs: string[] = []
    const hosts: StudioHost[] = []
    const host = async (dir?: string): Promise<{ host: StudioHost; dir: string }> => {
      const d = dir ?? (await mkdtemp(join(tmpdir(), 'onair-keyed-')))
      if (!dir) dirs.push(d)
      const h = new StudioHost({ dataDir: join(d, 'studio'), keychain: kc })
      hosts.push(h)
      return { host: h, dir: d }
    }
    afterAll(async () => {
      await Promise.all(hosts.map((h) => h.stop()))
      await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })))
      await kc.delete(LOCAL_ID).catch(() => undefined)
    })

    it("two data folders keep two keys; an earlier Onair's shared entry moves to the folder whose studio it opens, and stays when it opens another's", async () => {
      const a = await host()
      const b = await host()
      const [infoA, infoB] = await Promise.all([a.host.ensure(), b.host.ensure()])
      expect(a.host.keyAccount).not.toBe(b.host.keyAccount)
      expect(a.host.keyAccount).toMatch(/^local-[0-9a-f]{16}$/)
      expect(await kc.get(a.host.keyAccount)).toBe(infoA.apiKey)
      expect(await kc.get(b.host.keyAccount)).toBe(infoB.apiKey)
      expect(infoA.apiKey).not.toBe(infoB.apiKey)
      expect(await kc.get(LOCAL_ID)).toBeUndefined()
      // The Connection screen's local row reads its own folder's entry.
      const conns = new Connections({ store: new SettingsStore(a.dir), keychain: kc, host: a.host })
      expect((await conns.list())[0]).toMatchObject({ kind: 'local', hasKey: true })

      // An earlier Onair kept A's key under the shared account: A's next start takes it over.
      await a.host.stop()
      await kc.delete(a.host.keyAccount)
      await kc.set(LOCAL_ID, infoA.apiKey)
      const again = await host(a.dir)
      expect((await again.host.ensure()).apiKey).toBe(infoA.apiKey)
      expect(await kc.get(again.host.keyAccount)).toBe(infoA.apiKey)
      expect(await kc.get(LOCAL_ID)).toBeUndefined()

      // The shared account holds B's key: A's studio rejects it, so A makes its own and leaves B's.
      await again.host.stop()
      await kc.delete(again.host.keyAccount)
      await kc.set(LOCAL_ID, infoB.apiKey)
      const third = await host(a.dir)
      const made = (await third.host.ensure()).apiKey
      expect([infoA.apiKey, infoB.apiKey]).not.toContain(made)
      expect(await kc.get(third.host.keyAccount)).toBe(made)
      expect(await kc.get(LOCAL_ID)).toBe(infoB.apiKey)
      // B's own entry was never touched.
      expect(await kc.get(b.host.keyAccount)).toBe(infoB.apiKey)
    })
  })

  describe('connections', () => {
    let studio: TestStudio
    let dir: string
    let conns: Connections
    let store: SettingsStore
    const statuses: ConnectionStatus[] = []
    const kc = new Keychain(service)

    beforeAll(async () => {
      studio = await startTestStudio()
      dir = await mkdtemp(join(tmpdir(), 'onair-conns-'))
      store = new SettingsStore(dir)
      const host = new StudioHost({ dataDir: join(dir, 'studio'), keychain: kc })
      conns = new Connections({ store, keychain: kc, host, onStatus: (s) => statuses.push(s) })
    })
    afterAll(async () => {
      await studio?.cleanup()
      await rm(dir, { recursive: true, force: true })
    })

    it('starts with the local studio as the only, active connection', async () => {
      const list = await conns.list()
      expect(list).toEqual([
        {
          id: 'local',
          kind: 'local',
          name: 'Local studio',
          baseUrl: '',
          hasKey: false,
          active: true
        }
      ])
    })

    it('rejects a wrong key without saving anything', async () => {
      const e = await failure(
        conns.add({ kind: 'custom', baseUrl: studio.apiUrl, apiKey: 'not-a-real-key-123' })
      )
      expect(e.code).toBe('key-rejected')
      expect(await conns.list()).toHaveLength(1)
      expect(
        (await failure(conns.add({ kind: 'custom', baseUrl: 'ftp://x', apiKey: 'k' }))).code
      ).toBe('bad-request')
    })

    it('saves a working key only in the keychain, and removing deletes it', async () => {
      const view = await conns.add({
        kind: 'custom',
        name: 'Bench',
        baseUrl: studio.apiUrl,
        apiKey: studio.apiKey
      })
      expect(view).toMatchObject({
        kind: 'custom',
        name: 'Bench',
        hasKey: true,
        active: true,
        baseUrl: studio.apiUrl
      })
      expect(JSON.stringify(view)).not.toContain(studio.apiKey)
      expect(await kc.get(view.id)).toBe(studio.apiKey)
      const onDisk = await readFile(store.file, 'utf8')
      expect(onDisk).toContain(view.id)
      expect(onDisk).not.toContain(studio.apiKey)
      expect(statuses.at(-1)!.active!.id).toBe(view.id)

      const { client, ingest } = await conns.active()
      expect(ingest.rtmp).toBe(studio.rtmpUrl)
      expect((await client.listStreams({ limit: 1 })).items).toBeInstanceOf(Array)

      await conns.remove(view.id)
      expect(await kc.get(view.id)).toBeUndefined()
      expect((await conns.status()).active!.id).toBe('local')
      expect((await failure(conns.remove('local'))).code).toBe('bad-request')
    })
  })
}

// createCore with the default local connection: the studio runs as a real child process (node + tsx
// on src/studio/cli.ts), its key goes to the keychain, and shutdown leaves no process behind.
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiClient } from '../../../src/main/core/api-client'
import { createCore, type Core } from '../../../src/main/core/core'
import { MARKER_FILE } from '../../../src/main/core/crash-marker'
import { Keychain } from '../../../src/main/core/keychain'
import type {
  ConnectionStatus,
  LiveHealthEvent,
  LiveStateEvent
} from '../../../src/shared/contract'
import { startStudio } from '../../../src/studio/index'
import { localKeyAccountOf, localStudioKey } from '../../helpers/local-key'
import { testFfmpeg, waitFor } from '../../helpers/studio'
import { ffmpegChildren, OUTPUT } from './live-helpers'
import { NO_KEYCHAIN, useSecretService } from './secret-service'

const ss = await useSecretService()
const service = `onair-test-${randomUUID().slice(0, 8)}`

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
/** Processes in the studio's process group (its own ffmpegs included). */
// Zombies are dead already: this container's pid 1 does not reap orphans, so they linger listed.
const groupMembers = (pgid: number): Promise<number[]> =>
  new Promise((r) =>
    execFile('pgrep', ['-g', String(pgid)], (_e, out) =>
      r(
        out
          .split('\n')
          .filter(Boolean)
          .map(Number)
          .filter((p) => stateOf(p) !== 'Z')
      )
    )
  )
const stateOf = (pid: number): string | undefined => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0]
  } catch {
    return undefined
  }
}

if (!ss.ok && process.env.ONAIR_ALLOW_NO_KEYCHAIN === '1') {
  it.skip(`local studio core tests skipped: ${ss.reason}`, () => {})
} else if (!ss.ok) {
  it('needs a Secret Service', () => {
    throw new Error(NO_KEYCHAIN(ss.reason))
  })
} else {
  describe('core with the local studio child', () => {
    let dir: string
    const statuses: ConnectionStatus['local'][] = []
    const newCore = async (): Promise<Core> => {
      const core = await createCore({
        appDataDir: dir,
        shell: 'web',
        appVersion: '0.0.0-test',
        keychainService: service,
        broadcast: { backoff: { initialMs: 300, capMs: 1500 }, preset: 'ultrafast' }
      })
      core.events.on('connection:status', (s) => statuses.push(s.local))
      return core
    }

    beforeAll(async () => {
      testFfmpeg()
      dir = await mkdtemp(join(tmpdir(), 'onair-core-'))
    })
    afterAll(async () => {
      ss.stop()
      await rm(dir, { recursive: true, force: true })
    })

    it('starts the studio on first use, goes live, and shutdown while live leaves nothing running', async () => {
      const core = await newCore()
      try {
        const [local] = await core.listConnections()
        expect(local).toMatchObject({ id: 'local', kind: 'local', active: true })
        expect((await core.listStreams({})).items).toEqual([])
        const status = await core.connectionStatus()
        expect(status.local.state).toBe('ready')
        expect(statuses.map((s) => s.state)).toContain('starting')
        expect((await core.listConnections())[0]!.hasKey).toBe(true)

        const stream = await core.createStream({ name: 'core live', profiles: [], record: true })
        const key = await core.revealStreamKey(stream.id)
        expect(stream.streamKeyMasked).toMatch(/^••••-••••-••••-\w{4}$/)
        expect(key.endsWith(stream.streamKeyMasked.slice(-4))).toBe(true)
        expect(JSON.stringify(stream)).not.toContain(key)

        const states: LiveStateEvent[] = []
        core.events.on('live:state', (s) => states.push(s))
        const health: LiveHealthEvent[] = []
        core.events.on('live:health', (h) => health.push(h))
        const { runId } = await core.goLive({
          streamId: stream.id,
          source: { kind: 'test-pattern' },
          output: OUTPUT
        })
        await waitFor(async () => states.some((s) => s.state === 'live'), 30_000, 'live')
        expect(
          (
            await core
              .goLive({ streamId: stream.id, source: { kind: 'test-pattern' }, output: OUTPUT })
              .catch((e) => e.error)
          ).code
        ).toBe('busy')
        expect((await core.liveStatus())!.runId).toBe(runId)
        // A running broadcast has its crash marker; nothing was cut off before this start.
        expect(existsSync(join(dir, MARKER_FILE))).toBe(true)
        expect(await core.cutOffNotice()).toBeNull()
        // Four seconds of media out by the run's own clock, then the studio is still the same child.
        await waitFor(
          async () => health.some((h) => h.mediaEpoch !== undefined && h.at - h.mediaEpoch >= 4000),
          30_000,
          '4 s of media sent'
        )
        const studioPid = (await studioPidOf(core))!
        expect(alive(studioPid)).toBe(true)
      } finally {
        await core.shutdown()
      }
      expect(await ffmpegChildren()).toEqual([])
      // Quitting while live ends the run in order: no marker is left, so no notice next time.
      expect(existsSync(join(dir, MARKER_FILE))).toBe(false)
      const pid = lastStudioPid!
      expect(alive(pid)).toBe(false)
      expect(await groupMembers(pid)).toEqual([])

      // The run was finalized: open the same data dir in-process and look at the session.
      const apiKey = await localStudioKey(dir, service)
      const studio = await startStudio({ dataDir: join(dir, 'studio'), host: '127.0.0.1' })
      try {
        const client = new ApiClient({ baseUrl: studio.apiUrl, apiKey })
        const [s] = (await client.listStreams({})).items
        const sessions = await client.listStreamSessions(s!.id!)
        expect(sessions.items).toHaveLength(1)
        expect(sessions.items[0]!.parentId).toBe(s!.id)
        const done = await waitFor(
          async () => {
            const x = await client.getSession(sessions.items[0]!.id!)
            return x.recordingStatus === 'ready' && x
          },
          60_000,
          'recording ready'
        )
        expect(done.sourceSegmentsDuration).toBeGreaterThan(2)
      } finally {
        await studio.stop()
      }
    })

    it('restarts the studio when it dies, reusing the key from the keychain', async () => {
      const core = await newCore()
      try {
        expect((await core.listStreams({})).items.map((s) => s.name)).toEqual(['core live'])
        const pid = (await studioPidOf(core))!
        const before = statuses.length
        process.kill(-pid, 'SIGKILL')
        await waitFor(
          async () => statuses.slice(before).some((s) => s.state === 'failed'),
          20_000,
          'failed status'
        )
        await waitFor(
          async () => statuses.slice(before).some((s) => s.state === 'ready'),
          60_000,
          'restarted'
        )
        expect((await core.listStreams({})).items).toHaveLength(1)
        expect(await studioPidOf(core)).not.toBe(pid)
      } finally {
        await core.shutdown()
      }
      expect(alive(lastStudioPid!)).toBe(false)
    })

    it('makes a new key with the CLI when the keychain lost it', async () => {
      await new Keychain(service).delete(localKeyAccountOf(dir))
      const core = await newCore()
      try {
        expect((await core.listStreams({})).items).toHaveLength(1)
        expect(await localStudioKey(dir, service)).toMatch(/\S{16,}/)
      } finally {
        await core.shutdown()
      }
    })
  })
}

let lastStudioPid: number | undefined
/** The studio child's pid, read through the process table (the core does not expose its host). */
async function studioPidOf(_core: Core): Promise<number | undefined> {
  const pids = await new Promise<number[]>((r) =>
    execFile('pgrep', ['-P', String(process.pid), '-f', 'src/studio/cli.ts'], (_e, out) =>
      r(out.split('\n').filter(Boolean).map(Number))
    )
  )
  lastStudioPid = pids[0] ?? lastStudioPid
  return pids[0]
}

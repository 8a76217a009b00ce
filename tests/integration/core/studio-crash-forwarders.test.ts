// kill -9 of the local studio while a destination is live. Its forwarder reads a rendition's live
// playlist, which never ends once the studio is gone: within 10 s of the kill no forwarder of the
// dead studio may be left. On Linux a forwarder often dies by itself a second or two later (its
// progress pipe lost its reader), so the test also asserts that the host ended it: gone within
// 0.5 s of the host seeing the studio's exit (the host kills the dead studio's process group). The
// host then restarts the studio. Real
// parts throughout: the studio child (node + tsx), its transcoder and forwarder ffmpegs, a second
// studio in-process as the target. (Windows has no process groups: that branch, taskkill /T on the
// dead studio's pid, runs by injection in tests/unit/core/studio-host-tree.test.ts.)
import { mkdtemp, rm } from 'node:fs/promises'
import { randomUUID } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Keychain } from '../../../src/main/core/keychain'
import { StudioHost } from '../../../src/main/core/studio-host'
import type { LocalStatus } from '../../../src/main/core/studio-host'
import {
  api,
  pushTestPattern,
  startTestStudio,
  testFfmpeg,
  waitFor,
  type StudioStream
} from '../../helpers/studio'
import { processesWith } from '../../helpers/proc'
import { waitUntil } from '../../helpers/wait-until'

describe('the local studio killed while a destination is live', () => {
  it('leaves no forwarder running 10 s later, and comes back', async () => {
    testFfmpeg()
    const dir = await mkdtemp(join(tmpdir(), 'onair-studio-crash-'))
    const service = `onair-test-${randomUUID().slice(0, 8)}`
    const statuses: LocalStatus[] = []
    let failedAt = 0
    const host = new StudioHost({
      dataDir: join(dir, 'studio'),
      keychain: new Keychain(service),
      // Free ports: this suite may share the machine with other studios.
      ports: { get: () => ({ api: 0, rtmp: 0 }), set: () => undefined },
      restartDelayMs: 500,
      onStatus: (s) => {
        statuses.push(s)
        if (s.state === 'failed') failedAt ||= Date.now()
      }
    })
    const target = await startTestStudio()
    const push: { kill?: () => Promise<void> } = {}
    try {
      const a = await host.ensure()
      const call = async <T>(
        s: { apiUrl: string },
        key: string,
        m: string,
        p: string,
        b?: unknown
      ) => {
        const r = await api<T>(s, key, m, p, b)
        if (r.status >= 300) throw new Error(`${m} ${p}: ${r.status} ${JSON.stringify(r.body)}`)
        return r.body
      }
      const receiver = await call<StudioStream>(target, target.apiKey, 'POST', '/stream', {
        name: 'receiver'
      })
      const t = await call<{ id: string }>(a, a.apiKey, 'POST', '/multistream/target', {
        name: 'elsewhere',
        url: `${target.rtmpUrl}/${receiver.streamKey}`
      })
      const stream = await call<StudioStream>(a, a.apiKey, 'POST', '/stream', {
        name: 'crashing',
        profiles: [{ name: '240p', width: 426, height: 240, bitrate: 300_000, fps: 30 }],
        multistream: { targets: [{ id: t.id, profile: '240p' }] }
      })
      const pusher = pushTestPattern(`${a.rtmpUrl}/${stream.streamKey}`, {
        seconds: 120,
        width: 640,
        height: 360
      })
      push.kill = pusher.kill
      await waitFor(
        async () =>
          (await call<StudioStream>(target, target.apiKey, 'GET', `/stream/${receiver.id}`))
            .isActive,
        40_000,
        'the destination live'
      )
      // The forwarder: an ffmpeg reading the rendition's playlist and pushing to the target's key.
      const forwarders = processesWith('-live_start_index', receiver.streamKey)
      expect(forwarders).toHaveLength(1)
      const studioPid = host.pid!
      const before = statuses.length

      process.kill(studioPid, 'SIGKILL')
      const killedAt = Date.now()
      await waitUntil(
        () => processesWith('-live_start_index', receiver.streamKey).length === 0,
        'no forwarder of the dead studio',
        10_000,
        20
      )
      const goneAt = Date.now()
      expect(goneAt - killedAt).toBeLessThan(10_000)
      // The host saw the exit ("failed", restarting) and had already ended the forwarder.
      expect(failedAt).toBeGreaterThan(0)
      expect(goneAt - failedAt).toBeLessThan(500)
      // And the host brings the studio back.
      await waitUntil(
        () => statuses.slice(before).some((s) => s.state === 'ready'),
        'the studio restarted',
        60_000
      )
      expect(host.pid).not.toBe(studioPid)
    } finally {
      await push.kill?.()
      await host.stop()
      await target.cleanup()
      await new Keychain(service).delete('local').catch(() => undefined)
      await rm(dir, { recursive: true, force: true })
    }
  }, 120_000)
})

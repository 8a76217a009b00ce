// The whole record-and-play path through the app's core, with an app-data folder whose name has
// spaces and non-ASCII letters (as under C:\Users\Ana López\AppData\... or "Onair Studio.app"):
// the local studio child, its database, the broadcaster, the HLS ladder, the recording and its MP4.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { OUTPUT } from './live-helpers'
import { createCore } from '../../../src/main/core/core'
import type { LiveStateEvent } from '../../../src/shared/contract'
import { decodeAll, ffprobe } from '../../helpers/studio'
import { waitUntil } from '../../helpers/wait-until'

const base = mkdtempSync(join(tmpdir(), 'onair-paths-'))
afterAll(() => rmSync(base, { recursive: true, force: true }))

describe('an app-data folder named "Onair Studio/Ana López (ñ, ü, 日本)"', () => {
  it('records and plays back end to end', async () => {
    const appDataDir = join(base, 'Onair Studio', 'Ana López (ñ, ü, 日本)')
    const core = await createCore({
      appDataDir,
      shell: 'web',
      appVersion: '0.0.0-test',
      keychainService: `onair-paths-${process.pid}`,
      broadcast: { preset: 'ultrafast' }
    })
    try {
      const stream = await core.createStream({
        name: 'Café ☕ show',
        profiles: [{ name: '360p', width: 640, height: 360, bitrate: 600_000, fps: 25 }],
        record: true
      })
      const states: LiveStateEvent[] = []
      core.events.on('live:state', (s) => states.push(s))
      const output = OUTPUT
      const { runId } = await core.goLive({
        streamId: stream.id,
        source: { kind: 'test-pattern' },
        output
      })
      await waitUntil(() => states.some((s) => s.state === 'live'), 'live', 60_000)
      // Six seconds of media after going live, measured by the session's own clock.
      await waitUntil(
        async () => {
          const s = (await core.listSessions({ streamId: stream.id })).items[0]
          return (s?.sourceSegmentsDuration ?? 0) >= 6
        },
        'six seconds recorded',
        60_000,
        250
      )
      await core.stopLive(runId)
      let session = (await core.listSessions({ streamId: stream.id })).items[0]
      await waitUntil(
        async () => {
          session = (await core.listSessions({ streamId: stream.id })).items[0]
          return session?.recordingStatus === 'ready'
        },
        'the recording to be ready',
        60_000,
        250
      )
      expect(session!.recordingUrl).toBeTruthy()
      const played = await decodeAll(session!.recordingUrl!)
      expect(played.ok, played.stderr).toBe(true)
      const mp4 = await ffprobe(session!.mp4Url!)
      expect(mp4.duration).toBeGreaterThan(5)
    } finally {
      await core.shutdown()
    }
  })
})

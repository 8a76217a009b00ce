// The studio as the app runs it (the CLI, a child process): killed with SIGKILL mid-recording five
// times, restarted on the same data dir each time. Nothing may stay waiting, every ready recording
// must play end to end, and SQLite must pass its integrity check. Also SIGTERM = clean exit 0.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'libsql'
import { afterAll, describe, expect, it } from 'vitest'
import { api, decodeAll, pushTestPattern, waitFor } from '../../helpers/studio'
import { killCliStudios, runCli, type CliReady } from '../../helpers/studio-cli'

interface Session {
  id: string
  recordingStatus?: string
  recordingUrl?: string
  sourceSegmentsDuration: number
}

afterAll(killCliStudios)

const studioOf = (r: CliReady): { apiUrl: string } => ({ apiUrl: r.api })

describe('studio process crashes', () => {
  let dataDir = ''
  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  it('survives five kill -9 mid-recording: nothing left waiting, ready recordings play, DB intact', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'onair-crash-'))
    let key = ''
    let streamId = ''
    let streamKey = ''
    for (let round = 0; round < 5; round++) {
      // No resume window: each restart finalizes what the kill left open (resuming is tested in
      // tests/e2e/reconnect.test.ts).
      const cli = runCli(['--data', dataDir, '--resume-window', '0'])
      const ready = await cli.ready
      if (round === 0) {
        key = ready.apiKey!
        const s = await api<{ id: string; streamKey: string }>(
          studioOf(ready),
          key,
          'POST',
          '/stream',
          {
            name: 'crashy',
            record: true,
            profiles: [{ name: '240p', width: 426, height: 240, bitrate: 400_000, fps: 0 }]
          }
        )
        streamId = s.body.id
        streamKey = s.body.streamKey
      } else {
        expect(ready.apiKey).toBeUndefined()
        // The previous round's session was finalized by this start: none is waiting.
        const sessions = (
          await api<Session[]>(studioOf(ready), key, 'GET', `/stream/${streamId}/sessions`)
        ).body
        expect(sessions).toHaveLength(round)
        expect(sessions.filter((s) => s.recordingStatus === 'waiting')).toEqual([])
      }
      const push = pushTestPattern(`${ready.rtmp}/${streamKey}`, {
        seconds: 60,
        width: 320,
        height: 240
      })
      await waitFor(
        async () => {
          const s = (
            await api<Session[]>(studioOf(ready), key, 'GET', `/stream/${streamId}/sessions`)
          ).body
          const open = s.find((x) => x.recordingStatus === 'waiting')
          return open && open.sourceSegmentsDuration > 2.5 ? open : undefined
        },
        30_000,
        'media in the recording'
      )
      cli.child.kill('SIGKILL')
      await cli.exit
      await push.kill()
    }
    const last = runCli(['--data', dataDir, '--resume-window', '0'])
    const ready = await last.ready
    const sessions = (
      await api<Session[]>(studioOf(ready), key, 'GET', `/stream/${streamId}/sessions`)
    ).body
    expect(sessions).toHaveLength(5)
    expect(sessions.filter((s) => s.recordingStatus === 'waiting')).toEqual([])
    const readyOnes = sessions.filter((s) => s.recordingStatus === 'ready')
    expect(readyOnes.length).toBeGreaterThan(0)
    for (const s of readyOnes) {
      const played = await decodeAll(s.recordingUrl!)
      expect([s.id, played.stderr]).toEqual([s.id, ''])
      expect(s.sourceSegmentsDuration).toBeGreaterThan(1)
    }
    // SIGTERM mid-recording: the studio finishes the recording itself, stops its ffmpeg and exits
    // 0.
    const push = pushTestPattern(`${ready.rtmp}/${streamKey}`, {
      seconds: 60,
      width: 320,
      height: 240
    })
    await waitFor(
      async () => {
        const s = (
          await api<Session[]>(studioOf(ready), key, 'GET', `/stream/${streamId}/sessions`)
        ).body
        return (s.find((x) => x.recordingStatus === 'waiting')?.sourceSegmentsDuration ?? 0) > 2.5
      },
      30_000,
      'media before SIGTERM'
    )
    last.child.kill('SIGTERM')
    expect(await last.exit).toBe(0)
    await push.kill()
    const again = runCli(['--data', dataDir])
    const r2 = await again.ready
    const after = (await api<Session[]>(studioOf(r2), key, 'GET', `/stream/${streamId}/sessions`))
      .body
    expect(after).toHaveLength(6)
    expect(after[0]!.recordingStatus).toBe('ready')
    expect((await decodeAll(after[0]!.recordingUrl!)).stderr).toBe('')
    // Finalized by the SIGTERM stop, not by this start's recovery.
    expect(again.stderr()).not.toContain('left open by a previous run')
    again.child.kill('SIGTERM')
    expect(await again.exit).toBe(0)
    const db = new Database(join(dataDir, 'studio.db'))
    const check = db.prepare('PRAGMA integrity_check').get() as { integrity_check: string }
    db.close()
    expect(check.integrity_check).toBe('ok')
  }, 240_000)
})

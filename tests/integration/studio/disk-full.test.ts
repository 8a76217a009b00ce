// Disk full, for real: the studio's data folder lives on a small tmpfs that we fill up mid-stream. What
// was recorded before still plays, the API names the cause instead of failing blindly, the run that hit
// the wall does not stay "waiting", and once space is freed the studio records again.
// Mounting a tmpfs needs root (CI and these machines run as root); elsewhere the test is skipped with
// that reason.
import { execFileSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  api,
  decodeAll,
  pushTestPattern,
  startTestStudio,
  studioCalls,
  waitFor,
  type StudioSession,
  type StudioStream,
  type TestStudio
} from '../../helpers/studio'

const mountPoint = mkdtempSync(join(tmpdir(), 'onair-full-'))
let mounted = false
let why = ''
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=48m', 'tmpfs', mountPoint], { stdio: 'pipe' })
  mounted = true
} catch (e) {
  why = `cannot mount a tmpfs here (${String((e as Error).message).split('\n')[0]})`
}

let studio: TestStudio
const filler = join(mountPoint, 'filler.bin')

/** Writes until the file system says ENOSPC. */
function fillDisk(): void {
  const fd = openSync(filler, 'w')
  const block = Buffer.alloc(256 * 1024, 7)
  try {
    for (;;) writeSync(fd, block)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e
  } finally {
    closeSync(fd)
  }
}

async function record(
  name: string,
  seconds: number
): Promise<{ stream: StudioStream; session: StudioSession }> {
  const calls = studioCalls(studio)
  const stream = await calls.createStream({ name, record: true })
  const push = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, {
    seconds,
    width: 320,
    height: 240,
    fps: 25
  })
  await push.done
  return { stream, session: await calls.finished(stream.id) }
}

beforeAll(async () => {
  if (mounted) studio = await startTestStudio({ dataDir: join(mountPoint, 'studio') })
})

afterAll(async () => {
  await studio?.stop().catch(() => undefined)
  if (mounted) execFileSync('umount', ['-l', mountPoint])
  rmSync(mountPoint, { recursive: true, force: true })
})

describe('the studio on a full disk', () => {
  it.skipIf(!mounted)(
    `keeps what was recorded, names the cause, never sticks in waiting, recovers${why ? ` (skipped: ${why})` : ''}`,
    async () => {
      const before = await record('before the disk filled', 4)
      expect(before.session.recordingStatus).toBe('ready')

      fillDisk()
      // A write the store cannot make is named, not a bare 500.
      const create = await api<{ errors: string[] }>(studio, studio.apiKey, 'POST', '/stream', {
        name: 'on a full disk',
        profiles: [{ name: '360p', width: 640, height: 360, bitrate: 800_000, fps: 0 }]
      })
      expect(create.status).toBe(507)
      expect(create.body.errors.join(' ')).toMatch(/disk is full/)

      // A run on the full disk ends failed (or ready with what fit), never waiting.
      const stream = (await api<StudioStream[]>(studio, studio.apiKey, 'GET', '/stream')).body[0]!
      const push = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, {
        seconds: 4,
        width: 320,
        height: 240,
        fps: 25
      })
      await push.done
      const sessions = await waitFor(
        async () => {
          const r = await api<StudioSession[]>(studio, studio.apiKey, 'GET', '/session')
          expect(r.status).toBeLessThan(500) // reads keep working on a full disk
          return r.body.every((s) => s.recordingStatus !== 'waiting') ? r.body : undefined
        },
        60_000,
        'no session left waiting'
      )
      expect(sessions.map((s) => s.recordingStatus)).not.toContain('waiting')
      // The publisher was refused with the cause in the studio's log, and the studio stayed up.
      expect(studio.logLines().join('\n')).toMatch(/refused a publisher.*disk is full|disk is full/)

      // Nothing already recorded is lost.
      const old = sessions.find((s) => s.id === before.session.id)!
      expect(old.recordingStatus).toBe('ready')
      expect((await decodeAll(old.recordingUrl!)).ok).toBe(true)

      // Space back: the studio records again.
      rmSync(filler)
      const after = await record('after space came back', 4)
      expect(after.session.recordingStatus).toBe('ready')
      expect((await decodeAll(after.session.recordingUrl!)).ok).toBe(true)
    }
  )

  it.skipIf(!mounted)(
    `a stream live when the disk filled ends once space is back: not active, its session ready or failed${why ? ` (skipped: ${why})` : ''}`,
    async () => {
      const calls = studioCalls(studio)
      const stream = await calls.createStream({ name: 'live when the disk filled', record: true })
      const get = async (): Promise<StudioStream> =>
        (await api<StudioStream>(studio, studio.apiKey, 'GET', `/stream/${stream.id}`)).body
      const push = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, {
        seconds: 6,
        width: 320,
        height: 240,
        fps: 25
      })
      await waitFor(async () => (await get()).sourceSegmentsDuration >= 2, 20_000, 'media on disk')
      fillDisk()
      // The publisher ends cleanly on the full disk: the session cannot be closed in the store.
      await push.done
      await waitFor(
        async () => studio.logLines().some((l) => /finalize failed: .*disk is full/.test(l)),
        30_000,
        'the finalize to fail on the full disk'
      )
      expect((await get()).isActive).toBe(true) // still open while the disk is full

      // Space back: the studio ends the stream and closes its session by itself.
      rmSync(filler)
      await waitFor(async () => !(await get()).isActive, 30_000, 'the stream to end')
      const session = (await calls.sessionsOf(stream.id))[0]!
      expect(['ready', 'failed']).toContain(session.recordingStatus)
      // And it goes live again.
      const again = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, {
        seconds: 3,
        width: 320,
        height: 240,
        fps: 25
      })
      await again.done
      const next = await calls.finished(stream.id)
      expect(next.id).not.toBe(session.id)
      expect(next.recordingStatus).toBe('ready')
    },
    120_000
  )
})

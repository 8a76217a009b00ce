// A crash must never leave the creator live. The app's main process is killed without a word
// (SIGKILL: what a crash, Force Quit or End task look like to its children) while live on the local
// studio, by the camera path and by the test pattern. Within 10 s no child of it may be left: the
// studio child, its transcoder, the broadcaster's ffmpeg. When the studio comes back, the session is
// finalized. (Windows: libuv puts every non-detached child in a kill-on-close job; that branch is
// covered by injection in tests/unit/foundation/process-control.test.ts.)
import { execFileSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createCore } from '../../../src/main/core/core'
import { MARKER_FILE } from '../../../src/main/core/crash-marker'
import { waitUntil } from '../../helpers/wait-until'
import { makeCameraFile, startLiveApp } from './live-helpers'

const dirs: string[] = []
const apps: ChildProcess[] = []
afterAll(() => {
  // A run that failed before its kill must not leave its app (and the app's children) running.
  for (const a of apps) {
    if (a.exitCode !== null || a.signalCode !== null) continue
    for (const k of descendants(a.pid!)) {
      try {
        process.kill(k.pid, 'SIGKILL')
      } catch {
        // Already gone.
      }
    }
    a.kill('SIGKILL')
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** Every live descendant of pid (from /proc), with its command line. */
function descendants(pid: number): { pid: number; cmd: string }[] {
  const parentOf = new Map<number, number>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (fields[0] === 'Z') continue
      parentOf.set(Number(name), Number(fields[1]))
    } catch {
      // Gone while we looked.
    }
  }
  const out: { pid: number; cmd: string }[] = []
  for (const p of parentOf.keys()) {
    for (let q = parentOf.get(p); q !== undefined && q > 1; q = parentOf.get(q)) {
      if (q === pid) {
        let cmd = ''
        try {
          cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' ')
        } catch {
          // Gone.
        }
        out.push({ pid: p, cmd })
        break
      }
    }
  }
  return out
}

function stillAlive(pids: number[]): number[] {
  return pids.filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
    } catch {
      return false
    }
  })
}

describe.each(['test pattern', 'camera'])('SIGKILL of the app while live (%s)', (path) => {
  it('leaves no child after 10 s, and the session is finalized when the studio comes back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'onair-crash-'))
    dirs.push(dir)
    const appData = join(dir, 'app data')
    const env = {
      ...process.env,
      ONAIR_APP_DATA: appData,
      ONAIR_KEYCHAIN_SERVICE: `onair-crash-${process.pid}`
    }
    const {
      app,
      out: printed,
      live
    } = startLiveApp(path === 'camera' ? [makeCameraFile(dir, 20)] : [], env)
    apps.push(app)
    await live
    const out = printed()
    expect(out).toContain('LIVE ')
    const liveAt = Date.now()
    const { streamId } = JSON.parse(/LIVE (.+)/.exec(out)![1]!) as { streamId: string }

    // Live means the broadcaster's ffmpeg is pushing; the studio's two ffmpegs for the run (the
    // source recorder and, with the stream's one profile, the ladder) start a moment later.
    let kids: { pid: number; cmd: string }[] = []
    const hls = () => kids.filter((k) => /ffmpeg .*-f hls/.test(k.cmd))
    const kinds = () => ({
      studio: kids.filter((k) => k.cmd.includes('studio/cli.ts')).length,
      sourceRecorder: hls().filter((k) => /[\\/]source[\\/]/.test(k.cmd)).length,
      ladder: hls().filter((k) => !/[\\/]source[\\/]/.test(k.cmd)).length,
      broadcaster: kids.filter((k) => /ffmpeg .*-f flv/.test(k.cmd)).length
    })
    await waitUntil(
      () => {
        kids = descendants(app.pid!)
        const k = kinds()
        return k.studio > 0 && k.sourceRecorder > 0 && k.ladder > 0 && k.broadcaster > 0
      },
      'the studio, its source recorder and ladder, and the broadcaster to run',
      30_000
    )
    expect(kinds()).toEqual({ studio: 1, sourceRecorder: 1, ladder: 1, broadcaster: 1 })

    // While live, the run's marker is in the app data folder.
    expect(existsSync(join(appData, MARKER_FILE))).toBe(true)
    const killedAt = Date.now()
    process.kill(app.pid!, 'SIGKILL')
    const pids = kids.map((k) => k.pid)
    // Every child ends by itself (generous bound: none may outlive its parent for long).
    await waitUntil(
      () => stillAlive(pids).length === 0,
      'every child of the killed app to end',
      30_000
    )

    // The app comes back on the same data: the studio restarts and the run is finalized.
    const core = await createCore({
      appDataDir: appData,
      shell: 'web',
      appVersion: '0.0.0-test',
      keychainService: env.ONAIR_KEYCHAIN_SERVICE
    })
    try {
      let status = ''
      await waitUntil(
        async () => {
          const page = await core.listSessions({ streamId })
          status = page.items[0]?.recordingStatus ?? 'none'
          return page.items.length === 1 && status !== 'waiting' && status !== 'none'
        },
        'the session to be finalized',
        60_000,
        500
      )
      expect(['ready', 'failed']).toContain(status)

      // The next start tells the creator, through the contract, that the broadcast was cut off:
      // the stream, when (the session's last media, between going live and the kill), and the
      // session with its recording's duration; once dismissed, never again.
      const notice = await core.cutOffNotice()
      const session = (await core.listSessions({ streamId })).items[0]!
      expect(notice).toMatchObject({
        streamId,
        streamName: 'Crash test',
        session: { id: session.id, recordingStatus: status }
      })
      expect(notice!.cutAt).toBeGreaterThanOrEqual(liveAt - 1000)
      expect(notice!.cutAt).toBeLessThanOrEqual(killedAt + 2000)
      // The length the notice gives is the session's own record's.
      expect(notice!.session!.sourceSegmentsDuration).toBe(session.sourceSegmentsDuration)
      await core.dismissCutOffNotice(notice!.runId)
      expect(await core.cutOffNotice()).toBeNull()
      expect(existsSync(join(appData, MARKER_FILE))).toBe(false)
    } finally {
      await core.shutdown()
    }
    // And nothing of the first run was left behind by the second either.
    expect(execFileSync('ps', ['-eo', 'args']).toString()).not.toContain(appData)
  })
})

// Record on this computer while live (issue 18 §3): the app's main process killed with SIGKILL, with the
// real local studio, ffmpeg and the fixture app (tests/fixtures/app/live-app.ts). Run alone (npm test's
// 'alone' group): the file must reach to within 2 s of the kill, a time a shared machine stretches.
// - The app dies 12 s into a broadcast (test pattern, camera path): the file it leaves plays (a full
//   decode) and reaches to within 2 s of the kill.
// - A copy the kill cut off is marked on the next start (when it was cut) and made whole: remuxed to
//   an MP4 an editor takes (local-copy-checks.ts), its length written, the Matroska removed only once
//   the MP4 is in place.
// The copy through reconnects, a full disk and the page's own Matroska: local-recording-studio.test.ts.
import { execFile, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCore } from '../../../src/main/core/core'
import type { LocalRecordingView } from '../../../src/shared/contract'
import { decodeAll, waitFor } from '../../helpers/studio'
import { waitUntil } from '../../helpers/wait-until'
import { covers, expectEditorReady } from './local-copy-checks'
import { largestGap, packetTimes } from './raw-media'
import { makeCameraFile, OUTPUT, sleep, startLiveApp } from './live-helpers'

const run = promisify(execFile)
let dir: string
/** The fixture app paces its camera file as 20 s long. */
let camera20: string
const apps: ChildProcess[] = []

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'onair-localrec-'))
  camera20 = makeCameraFile(dir, 20)
})
afterAll(() => {
  for (const a of apps) if (a.exitCode === null && a.signalCode === null) a.kill('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
})

describe.each(['test pattern', 'camera'])(
  'the app is killed 12 s into a broadcast (%s)',
  (path) => {
    it('leaves a file in Videos/Onair that plays to within 2 s of the kill', async () => {
      const base = mkdtempSync(join(dir, 'crash-'))
      const appData = join(base, 'app data')
      const videos = join(base, 'Videos', 'Onair')
      const env = {
        ...process.env,
        ONAIR_APP_DATA: appData,
        ONAIR_RECORDINGS_DIR: videos,
        ONAIR_KEYCHAIN_SERVICE: `onair-localrec-${process.pid}`
      }
      const { app, out, live } = startLiveApp(
        path === 'camera' ? ['--record', camera20] : ['--record'],
        env
      )
      apps.push(app)
      await live
      expect(out()).toContain('LIVE ')
      const index = (): LocalRecordingView[] =>
        JSON.parse(
          readFileSync(join(appData, 'local-recordings.json'), 'utf8')
        ) as LocalRecordingView[]
      const rec = index()[0]!
      expect(rec.state).toBe('recording')
      expect(rec.file.startsWith(videos)).toBe(true)

      // 12 s of broadcast is the scenario itself, counted from the start of the file.
      await sleep(Math.max(0, rec.startedAt + 12_000 - Date.now()))
      const killedAt = Date.now()
      app.kill('SIGKILL')
      await waitUntil(() => app.signalCode !== null, 'the app to die', 10_000)
      // The test pattern's file is written by the broadcaster's ffmpeg: it ends by itself with the app.
      await waitUntil(
        async () =>
          (await run('pgrep', ['-f', rec.file]).catch(() => ({ stdout: '' }))).stdout === '',
        'the broadcaster ffmpeg writing the file to end',
        15_000
      )

      const decoded = await decodeAll(rec.file, false)
      expect(decoded.ok, decoded.stderr).toBe(true)
      const shouldCover = (killedAt - rec.startedAt) / 1000
      const cover = await covers(rec.file)
      expect(
        Math.abs(cover - shouldCover),
        `covers ${cover} s of ${shouldCover} s`
      ).toBeLessThanOrEqual(2)
      expect(largestGap(await packetTimes(rec.file, 'v'))).toBeLessThan(1)

      // The next start marks the copy (when it was cut) and makes it whole: an MP4 an editor takes,
      // its length written; the Matroska is removed only once the MP4 is in place.
      const core = await createCore({
        appDataDir: appData,
        shell: 'web',
        appVersion: '0.0.0-test',
        keychainService: env.ONAIR_KEYCHAIN_SERVICE,
        recordingsDir: videos
      })
      try {
        const marked = index()[0]!
        expect(marked.state).toBe('interrupted')
        expect(marked.cutAt).toBeGreaterThanOrEqual(killedAt - 2000)
        expect(marked.cutAt).toBeLessThanOrEqual(killedAt + 1000)
        const whole = await waitFor(
          async () => {
            const e = index()[0]!
            return e.durationSec !== undefined ? e : undefined
          },
          60_000,
          'the cut-off copy to be made whole'
        )
        expect(whole.state).toBe('interrupted')
        expect(whole.cutAt).toBe(marked.cutAt)
        expect(whole.file).toBe(rec.file.replace(/\.mkv$/, '.mp4'))
        expect(existsSync(whole.file)).toBe(true)
        // The index points at the MP4 before the Matroska goes (a death between them loses nothing):
        // the Matroska is removed right after.
        await waitUntil(() => !existsSync(rec.file), 'the Matroska to be removed', 10_000)
        expect(existsSync(whole.file)).toBe(true)
        expect(Math.abs(whole.durationSec! - cover), `plays ${whole.durationSec} s`).toBeLessThan(1)
        await expectEditorReady(whole.file, OUTPUT.fps)
        // The sessions list carries the same marks for the row.
        const { streamId } = JSON.parse(/LIVE (.+)/.exec(out())![1]!) as { streamId: string }
        const listed = await waitFor(
          async () => (await core.listSessions({ streamId })).items[0]?.localRecording,
          60_000,
          'the session with its local copy'
        )
        expect(listed).toMatchObject({ state: 'interrupted', cutAt: marked.cutAt })
      } finally {
        await core.shutdown()
      }
    })
  }
)

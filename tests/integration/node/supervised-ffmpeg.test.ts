// The one supervised ffmpeg, with a real ffmpeg (a small lavfi picture into the null muxer, or into
// HLS for the transcoder): media flowing as progress.ts defines it, a crash (SIGKILL) restarted after
// the backoff with the backoff's count starting over once media flows again, a stall (media time not
// advancing) killed and named, a policy that gives up, and the orderly 'q' stop.
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { QUIET_WITH_PROGRESS } from '../../../src/node/ffmpeg/progress'
import { SupervisedFfmpeg, type FfmpegExit } from '../../../src/node/ffmpeg/supervised'
import type { NextAttempt } from '../../../src/node/restart-loop'
import { startTranscoder } from '../../../src/studio/transcoder'
import { testFfmpeg } from '../../helpers/studio'
import { waitUntil } from '../../helpers/wait-until'

const FAST = { initialMs: 200, factor: 2, capMs: 1000, jitter: 0 }
/** Real-time test picture, discarded: media time advances about a second a second. */
const LIVE_PICTURE = [
  ...QUIET_WITH_PROGRESS,
  '-re',
  '-f',
  'lavfi',
  '-i',
  'testsrc=size=64x64:rate=10'
]
const PICTURE = [...LIVE_PICTURE, '-f', 'null', '-']
const dirs: string[] = []
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})

function record(extra: Partial<ConstructorParameters<typeof SupervisedFfmpeg>[0]> = {}) {
  const exits: { exit: FfmpegExit; next?: NextAttempt }[] = []
  const flowing: number[] = []
  const pids: number[] = []
  const ff = new SupervisedFfmpeg({
    ffmpeg: testFfmpeg(),
    args: () => PICTURE,
    backoff: FAST,
    onStart: (c) => pids.push(c.pid!),
    onFlowing: (n) => flowing.push(n),
    onExit: (exit, next) => exits.push({ exit, next }),
    ...extra
  })
  return { ff, exits, flowing, pids }
}

describe('supervised ffmpeg (real ffmpeg)', () => {
  it('restarts a killed ffmpeg after the backoff, and the count starts over once media flows', async () => {
    const { ff, exits, flowing, pids } = record()
    ff.start()
    await waitUntil(() => flowing.length === 1, 'media flowing', 15_000)
    for (let round = 1; round <= 2; round++) {
      process.kill(ff.pid!, 'SIGKILL')
      await waitUntil(() => exits.length === round, `exit ${round}`, 10_000)
      const { exit, next } = exits[round - 1]!
      expect(exit).toMatchObject({ signal: 'SIGKILL', wasUp: true, everUp: true, stalled: false })
      // Media had flowed in the killed attempt: each time it is the first restart again (200 ms).
      expect(next).toMatchObject({ attempt: 1, delayMs: 200 })
      await waitUntil(() => flowing.length === round + 1, `flowing again ${round}`, 15_000)
    }
    expect(new Set(pids).size).toBe(3)
    const done = ff.done
    await ff.stop(5000)
    const last = await done
    expect(last.stopped).toBe(true)
    expect(exits.at(-1)!.next).toBeUndefined()
  }, 60_000)

  it('kills an ffmpeg whose media time stops advancing, says so, and backs off further each time', async () => {
    // Raw audio from a stdin nobody writes: ffmpeg waits for input forever.
    const { ff, exits, flowing } = record({
      args: () => [
        ...QUIET_WITH_PROGRESS,
        '-f',
        's16le',
        '-ar',
        '8000',
        '-i',
        'pipe:0',
        '-f',
        'null',
        '-'
      ],
      stallMs: 400
    })
    ff.start()
    await waitUntil(() => exits.length === 2, 'two stalls', 15_000)
    expect(exits.map((e) => e.exit.stalled)).toEqual([true, true])
    expect(exits.map((e) => e.exit.signal)).toEqual(['SIGKILL', 'SIGKILL'])
    expect(exits.map((e) => e.next?.delayMs)).toEqual([200, 400])
    expect(flowing).toEqual([])
    await ff.stop(2000)
  }, 30_000)

  it('gives up when the policy says so; a binary that is not there is a spawn error', async () => {
    const bad = record({
      args: () => [...QUIET_WITH_PROGRESS, '-i', '/nonexistent/input.mkv', '-f', 'null', '-'],
      decide: (exit) => (exit.code === 0 ? 'restart' : 'give-up')
    })
    bad.ff.start()
    const last = await bad.ff.done
    expect(last.code).not.toBe(0)
    expect(last.stderr.join('\n')).toMatch(/No such file/)
    expect(bad.exits).toHaveLength(1)
    expect(bad.exits[0]!.next).toBeUndefined()

    const missing = record({ ffmpeg: '/nonexistent/ffmpeg', decide: () => 'give-up' })
    missing.ff.start()
    expect((await missing.ff.done).spawnError).toMatchObject({ code: 'ENOENT' })
  }, 30_000)

  it('stops a waiting restart at once, and done resolves', async () => {
    const { ff, exits, pids } = record({ backoff: { ...FAST, initialMs: 60_000, capMs: 60_000 } })
    ff.start()
    await waitUntil(() => pids.length === 1, 'started', 10_000)
    process.kill(ff.pid!, 'SIGKILL')
    await waitUntil(() => ff.waiting, 'a waiting restart', 10_000)
    await ff.stop()
    expect((await ff.done).signal).toBe('SIGKILL')
    expect(ff.waiting).toBe(false)
    expect(exits).toHaveLength(1)
    expect(pids).toHaveLength(1)
  }, 30_000)
})

describe('transcoder supervision (real ffmpeg into HLS)', () => {
  it('restarts a crashed transcoder into the output its restart hook prepares, while the source is live', async () => {
    const root = await mkdtemp(join(tmpdir(), 'onair-transcode-'))
    dirs.push(root)
    let live = true
    let seconds = 0
    const prepared: number[] = []
    const t = startTranscoder({
      ffmpeg: testFfmpeg(),
      prepare: async (n) => {
        prepared.push(n)
        const out = join(root, `run${n}`)
        const args = [
          ...LIVE_PICTURE,
          '-c:v',
          'libx264',
          '-preset',
          'ultrafast',
          '-g',
          '10',
          '-f',
          'hls',
          '-hls_time',
          '1',
          join(out, 'v0', 'index.m3u8')
        ]
        return {
          args,
          renditions: [
            { dir: 'v0', name: 'source', width: 64, height: 64, bandwidth: 1, codecs: '' }
          ],
          out
        }
      },
      restartable: () => live,
      onStart: () => (seconds = 0),
      onProgress: (s) => (seconds = s),
      backoff: FAST
    })
    await waitUntil(
      () => existsSync(join(root, 'run1', 'v0', 'index.m3u8')),
      'run 1 playlist',
      15_000
    )
    // Media must have flowed before a crash is worth a restart.
    await waitUntil(() => seconds >= 0.6, 'run 1 media flowing', 15_000)
    process.kill(t.pid!, 'SIGKILL')
    await waitUntil(
      () => existsSync(join(root, 'run2', 'v0', 'index.m3u8')),
      'run 2 playlist',
      15_000
    )
    expect(prepared).toEqual([1, 2])
    // The source is gone: the next crash is not restarted, and the transcoding is done.
    live = false
    await waitUntil(() => seconds >= 0.6, 'run 2 media flowing', 15_000)
    process.kill(t.pid!, 'SIGKILL')
    expect(await t.done).toBeNull()
    expect(prepared).toEqual([1, 2])
  }, 60_000)
})

// The broadcaster's faults that need the machine to themselves (npm test's 'alone' group): camera media
// pushed faster than real time, an ingest that refuses the key, Live at the moment the studio has the
// stream, a process that exits without shutdown(), ffmpeg missing. The ingest going away at random
// moments, and Stop at any moment: broadcast-stress.test.ts.
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { Broadcaster } from '../../../src/main/core/broadcaster'
import { AppFailure } from '../../../src/shared/result'
import { waitFor } from '../../helpers/studio'
import {
  FAST,
  liveBroadcaster,
  feedPaced,
  makeCameraFile,
  OUTPUT
} from './live-helpers'
import { studioForFile } from './file-studio'

const run = promisify(execFile)
/** Running (not a zombie: this container's pid 1 does not reap orphans). */
const alive = (pid: number): boolean => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z'
  } catch {
    return false
  }
}

const file = studioForFile({ resumeWindowMs: 1000 })

describe('broadcaster under ingest faults', () => {
  it('a process that exits without shutdown() still takes its ffmpeg with it (exit hook)', async () => {
    const s = await file.client.createStream({ name: 'exit-hook', profiles: [], record: false })
    const script = [
      `import m from ${JSON.stringify(join(process.cwd(), 'src/main/core/broadcaster.ts'))}`,
      'let live = false',
      "const b = new m.Broadcaster({ onState: (e) => { if (e.state === 'live') live = true }, onHealth: () => {} })",
      `b.start(${JSON.stringify({
        args: {
          streamId: s.id,
          source: { kind: 'test-pattern' },
          output: { ...OUTPUT, width: 320, height: 180 }
        },
        streamName: s.name,
        streamKey: s.streamKey,
        ingestRtmp: file.studio.rtmpUrl
      })})`,
      'while (!live) await new Promise((r) => setTimeout(r, 50))',
      'console.log(JSON.stringify({ pid: b.pid }))',
      'process.exit(0)'
    ].join('\n')
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        timeout: 60_000
      }
    )
    const { pid } = JSON.parse(stdout.trim().split('\n').pop()!) as { pid: number }
    expect(pid).toBeGreaterThan(0)
    await waitFor(async () => !alive(pid), 5000, 'ffmpeg gone after the parent exited')
  })

  it('ffmpeg missing: goLive fails with a clear error and nothing runs', () => {
    const saved = process.env.FFMPEG_PATH
    process.env.FFMPEG_PATH = '/nonexistent/ffmpeg'
    try {
      const b = new Broadcaster({ onState: () => {}, onHealth: () => {} })
      let err: AppFailure | undefined
      try {
        b.start({
          args: { streamId: 'x', source: { kind: 'test-pattern' }, output: OUTPUT },
          streamName: 'x',
          streamKey: 'abcd-efgh-ijkl-mnop',
          ingestRtmp: file.studio.rtmpUrl
        })
      } catch (e) {
        err = e as AppFailure
      }
      expect(err).toBeInstanceOf(AppFailure)
      expect(err!.error).toMatchObject({ code: 'ffmpeg-missing' })
      expect(err!.error.message).toContain('/nonexistent/ffmpeg')
      expect(err!.error.hint).toContain('FFMPEG_PATH')
      expect(b.status()).toBeNull()
    } finally {
      // Assigning undefined would set the text "undefined": unset it as it was.
      if (saved === undefined) delete process.env.FFMPEG_PATH
      else process.env.FFMPEG_PATH = saved
    }
  })

  it('an ingest that refuses the key: the first try fails over to retries, Stop ends it', async () => {
    const { b, states, waitState } = liveBroadcaster()
    const runId = b.start({
      args: { streamId: 'x', source: { kind: 'test-pattern' }, output: OUTPUT },
      streamName: 'nobody',
      streamKey: 'zzzz-zzzz-zzzz-zzzz',
      ingestRtmp: file.studio.rtmpUrl
    })
    await waitState('reconnecting', 30_000)
    // Two more refused attempts: none of them is ever shown live.
    await waitFor(async () => (b.status()!.attempt ?? 0) >= 3, 30_000, 'attempt 3')
    await b.stop(runId)
    expect(b.status()!.state).toBe('ended')
    expect(states.map((s) => s.state)).not.toContain('live')
    const text = JSON.stringify(states)
    expect(text).not.toContain('zzzz-zzzz-zzzz-zzzz')
  })

  it('camera media pushed faster than real time into an ingest that refuses the key: never live (each first block counts a burst the socket holds, not taken)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'onair-refused-'))
    const { b, states } = liveBroadcaster()
    const runId = b.start({
      args: {
        streamId: 'x',
        source: { kind: 'media', mimeType: 'video/x-matroska;codecs=avc1,opus' },
        output: OUTPUT
      },
      streamName: 'nobody',
      streamKey: 'yyyy-yyyy-yyyy-yyyy',
      ingestRtmp: file.studio.rtmpUrl
    })
    // 30 s of camera media in 10 s: three times real time, and buffered while reconnecting, so
    // every attempt starts with seconds of media queued.
    const feed = feedPaced((c) => b.pushMedia(runId, c), makeCameraFile(dir, 30), 10)
    try {
      await waitFor(async () => (b.status()!.attempt ?? 0) >= 3, 45_000, 'attempt 3')
    } finally {
      feed.stop()
      await feed.done.catch(() => 0)
      await b.stop(runId)
      rmSync(dir, { recursive: true, force: true })
    }
    expect(states.map((s) => s.state)).not.toContain('live')
    expect(states.map((s) => s.state)).toContain('reconnecting')
  })

  it('Live only once the ingest has the stream: at that moment the studio says it is active', async () => {
    const s = await file.client.createStream({ name: 'truth', profiles: [], record: false })
    const activeAtLive: boolean[] = []
    const b = new Broadcaster({
      tuning: FAST,
      onState: (e) => {
        if (e.state === 'live')
          void file.client.getStream(s.id!).then((x) => activeAtLive.push(x.isActive === true))
      },
      onHealth: () => {}
    })
    const runId = b.start({
      args: { streamId: s.id!, source: { kind: 'test-pattern' }, output: OUTPUT },
      streamName: 'truth',
      streamKey: s.streamKey!,
      ingestRtmp: file.studio.rtmpUrl
    })
    await waitFor(async () => activeAtLive.length > 0, 30_000, 'live')
    await b.stop(runId)
    expect(activeAtLive).toEqual([true])
  })
})

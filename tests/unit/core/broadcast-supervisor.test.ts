// The supervisor's state machine with a fake ffmpeg (a real one cannot be scripted to fail on cue)
// and fake timers (the reconnect schedule must be exact, not waited for).
import { EventEmitter } from 'node:events'
import { PassThrough } from 'node:stream'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { BroadcastSupervisor, type ChildLike } from '../../../src/main/core/broadcast/supervisor'
import { backoffDelay } from '../../../src/shared/backoff'
import type {
  EncoderTargetEvent,
  LiveHealthEvent,
  LiveStateEvent
} from '../../../src/shared/contract'
import { cluster, streamHeader } from '../../helpers/matroska-writer'

const KEY = 'ab12-cd34-ef56-gh78'

class FakeChild extends EventEmitter implements ChildLike {
  pid: number | undefined = Math.floor(Math.random() * 1e6)
  /**
   * Like ffmpeg reading its media (or the test pattern's tone) from stdin: the end of stdin and SIGTERM
   * both end it; a test may make it stubborn.
   */
  obeys = true
  stdin = new PassThrough()
  stdout = new PassThrough()
  stderr = new PassThrough()
  signals: string[] = []
  exited = false
  stdinBytes = 0
  stdinEnded = false
  constructor() {
    super()
    this.stdin.on('data', (d: Buffer) => (this.stdinBytes += d.length))
    this.stdin.on('finish', () => {
      this.stdinEnded = true
      if (this.obeys) setTimeout(() => this.exit(0), 100)
    })
  }
  kill(sig: NodeJS.Signals = 'SIGTERM'): boolean {
    this.signals.push(sig)
    if (sig === 'SIGKILL') this.exit(null, 'SIGKILL')
    else if (this.obeys) setTimeout(() => this.exit(255), 50)
    return true
  }
  private opened = false
  /** The block ffmpeg prints once its output's header is written: the publish was answered. */
  opensOutput(): void {
    this.opened = true
    this.stdout.write(
      `frame=0\nfps=0\nbitrate=N/A\ntotal_size=N/A\nout_time_us=0\ndrop_frames=0\ndup_frames=0\nspeed=N/A\nprogress=continue\n`
    )
  }
  /**
   * One progress block with media flowing, after the header's block (written first if this attempt
   * has none yet): the ingest kept the connection a stats period after media went out.
   */
  flowing(seconds = 1): void {
    if (!this.opened) this.opensOutput()
    this.stdout.write(
      `frame=${seconds * 30}\nfps=30\nbitrate=1000kbits/s\ntotal_size=${seconds * 125000}\nout_time_us=${seconds * 1e6}\ndrop_frames=0\ndup_frames=0\nspeed=1.0x\nprogress=continue\n`
    )
  }
  exit(code: number | null, signal: NodeJS.Signals | null = null): void {
    if (this.exited) return
    this.exited = true
    this.emit('exit', code, signal)
  }
}

const output = {
  width: 640,
  height: 360,
  fps: 30,
  videoBitrateKbps: 1000,
  audioBitrateKbps: 128,
  keyframeIntervalSec: 2
}

function setup(extra: Partial<ConstructorParameters<typeof BroadcastSupervisor>[0]> = {}) {
  const children: FakeChild[] = []
  const states: LiveStateEvent[] = []
  const sup = new BroadcastSupervisor({
    runId: 'r1',
    streamId: 's1',
    streamName: 'Show',
    source: { kind: 'test-pattern' },
    output,
    url: `rtmp://127.0.0.1/live/${KEY}`,
    secrets: [KEY],
    spawn: () => {
      const c = new FakeChild()
      children.push(c)
      return c
    },
    random: () => 0.5, // no jitter: the schedule is exact
    onState: (s) => states.push(s),
    ...extra
  })
  const child = (): FakeChild => children[children.length - 1]!
  return { sup, children, states, child }
}

const tick = async (ms = 0): Promise<void> => {
  await vi.advanceTimersByTimeAsync(ms)
}
/** Stop and let the fake ffmpeg honour the end of its stdin under fake time. */
const stopped = async (sup: BroadcastSupervisor): Promise<LiveStateEvent> => {
  const done = sup.stop()
  await tick(8000)
  return done
}

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 })
})
afterEach(() => {
  vi.useRealTimers()
})

describe('broadcast supervisor', () => {
  it('goes connecting -> live on the first block with media out', async () => {
    const { sup, child, states } = setup()
    sup.start()
    expect(sup.state).toBe('connecting')
    child().stdout.write('frame=0\ntotal_size=0\nout_time_us=0\nprogress=continue\n')
    await tick()
    expect(sup.state).toBe('connecting')
    child().flowing()
    await tick()
    expect(sup.state).toBe('live')
    expect(states.map((s) => s.state)).toEqual(['connecting', 'live'])
    expect(sup.status().liveSince).toBe(1_000_000)
  })

  it('is not live on a first block that counts a burst, nor on the last block: an ingest that takes the publish and refuses the key never shows Live', async () => {
    const { sup, child, states } = setup()
    sup.start()
    // The header's block already counts 2 s of queued media (a camera's backlog), then the ingest
    // closes the connection: ffmpeg's last block counts what it wrote before noticing.
    child().stdout.write('frame=60\ntotal_size=250000\nout_time_us=2000000\nprogress=continue\n')
    await tick()
    expect(sup.state).toBe('connecting')
    child().stdout.write('frame=75\ntotal_size=300000\nout_time_us=2500000\nprogress=end\n')
    child().stderr.write('Error writing trailer: Broken pipe\n')
    child().exit(1)
    await tick()
    expect(states.map((s) => s.state)).not.toContain('live')
    expect(sup.state).toBe('reconnecting')
    await stopped(sup)
  })

  it("reports the pushed media clock with health: the earliest 'at − media time' of the attempt", async () => {
    const health: { mediaEpoch?: number }[] = []
    const { sup, child } = setup({ onHealth: (h) => health.push(h) })
    sup.start()
    child().flowing(1) // at 1_000_000 ms, media time 1 s: epoch 999_000
    await tick(1000)
    child().flowing(1.5) // at 1_001_000 ms, media time 1.5 s: 999_500, later than the first
    await tick(1000)
    child().flowing(3) // at 1_002_000 ms, media time 3 s: 999_000 again
    await tick()
    expect(health.length).toBeGreaterThan(0)
    expect(health.every((h) => h.mediaEpoch === 999_000)).toBe(true)
    await stopped(sup)
  })

  it('reconnects with backoff 1 s, x1.5 ..., capped, and resets after going live again', async () => {
    const { sup, child, children, states } = setup({ backoff: { capMs: 3000 } })
    sup.start()
    child().flowing()
    await tick()
    const delays: number[] = []
    for (let i = 0; i < 5; i++) {
      child().stderr.write(`rtmp://h/live/${KEY}: Connection refused\n`)
      child().exit(1)
      await tick()
      const s = sup.status()
      expect(s.state).toBe('reconnecting')
      expect(s.attempt).toBe(i + 1)
      delays.push(s.nextRetryAt! - Date.now())
      await tick(delays[i]! - 1)
      expect(children).toHaveLength(i + 1) // not yet
      await tick(1)
      expect(children).toHaveLength(i + 2)
    }
    expect(delays).toEqual([1000, 1500, 2250, 3000, 3000])
    child().flowing()
    await tick()
    expect(sup.state).toBe('live')
    child().exit(1)
    await tick()
    expect(sup.status().attempt).toBe(1)
    // Errors carry the cause, redacted.
    const withError = states.find((s) => s.error)!
    expect(withError.error!.message).toContain('live/****')
    expect(JSON.stringify(states)).not.toContain(KEY)
    await stopped(sup)
  })

  it('jitters within ±20 % and never exceeds the cap', () => {
    const b = { initialMs: 1000, factor: 1.5, capMs: 30_000, jitter: 0.2 }
    expect(backoffDelay(1, b, () => 0)).toBe(800)
    expect(backoffDelay(1, b, () => 1)).toBe(1200)
    expect(backoffDelay(20, b, () => 1)).toBe(30_000)
    expect(backoffDelay(20, b, () => 0)).toBe(24_000)
  })

  it('retryNow skips the wait', async () => {
    const { sup, child, children } = setup()
    sup.start()
    child().flowing()
    await tick()
    child().exit(1)
    await tick()
    expect(sup.state).toBe('reconnecting')
    sup.retryNow()
    expect(children).toHaveLength(2)
    child().flowing()
    await tick()
    expect(sup.state).toBe('live')
  })

  it('a reconnect asks where the ingest is now (a local studio back on another port); with no answer it goes where the last went', async () => {
    const urls: string[] = []
    const children: FakeChild[] = []
    let now: () => Promise<string> = async () => `rtmp://127.0.0.1:41935/live/${KEY}`
    const asked: number[] = []
    const { sup } = setup({
      spawn: (args) => {
        urls.push(args.find((a) => a.startsWith('rtmp://'))!)
        const c = new FakeChild()
        children.push(c)
        return c
      },
      urlNow: () => {
        asked.push(Date.now())
        return now()
      }
    })
    const child = (): FakeChild => children.at(-1)!
    sup.start()
    await tick()
    // The first attempt goes where the run was started for, without asking.
    expect(urls, JSON.stringify(urls)).toEqual([`rtmp://127.0.0.1/live/${KEY}`])
    expect(asked).toEqual([])
    child().flowing()
    await tick()
    child().exit(1)
    await tick(1000)
    expect(urls.at(-1)).toBe(`rtmp://127.0.0.1:41935/live/${KEY}`)
    expect(asked).toHaveLength(1)
    // The service cannot say now (its studio still starting): where the last attempt went.
    child().exit(1)
    now = () => Promise.reject(new Error('the local studio could not start'))
    await tick(1500)
    expect(urls.at(-1)).toBe(`rtmp://127.0.0.1:41935/live/${KEY}`)
    // Nor when it does not answer within 10 s.
    child().exit(1)
    now = () => new Promise(() => undefined)
    await tick(2250)
    expect(urls).toHaveLength(3)
    await tick(10_000)
    expect(urls).toHaveLength(4)
    expect(urls.at(-1)).toBe(`rtmp://127.0.0.1:41935/live/${KEY}`)
    expect(sup.state).toBe('reconnecting')
    child().flowing()
    await tick()
    expect(sup.state).toBe('live')
    await stopped(sup)
  })

  it('stop mid-retry ends at once and never starts another ffmpeg', async () => {
    const { sup, child, children } = setup()
    sup.start()
    child().flowing()
    await tick()
    child().exit(1)
    await tick()
    const final = await sup.stop()
    expect(final.state).toBe('ended')
    await tick(60_000)
    expect(children).toHaveLength(1)
  })

  it('stop while a reconnect attempt is connecting terminates that ffmpeg right away', async () => {
    const { sup, child } = setup()
    sup.start()
    child().flowing()
    await tick()
    child().exit(1)
    await tick(1000)
    expect(sup.state).toBe('reconnecting')
    const attempt = child()
    const done = sup.stop()
    expect(attempt.signals).toEqual(['SIGTERM'])
    await tick(50)
    expect((await done).state).toBe('ended')
  })

  it('stop while live: stdin closed first, SIGTERM after 5 s, SIGKILL 2 s later', async () => {
    const { sup, child } = setup()
    sup.start()
    child().flowing()
    await tick()
    const c = child()
    c.obeys = false
    const done = sup.stop()
    expect(sup.state).toBe('stopping')
    await tick(0)
    expect(c.stdinEnded).toBe(true)
    await tick(4999)
    expect(c.signals).toEqual([])
    await tick(1)
    expect(c.signals).toEqual(['SIGTERM'])
    await tick(2000)
    expect(c.signals).toEqual(['SIGTERM', 'SIGKILL'])
    expect((await done).state).toBe('ended')
  })

  it('feeds the test pattern its tone in real time, and an orderly exit after stdin closed ends without further signals', async () => {
    const { sup, child } = setup()
    sup.start()
    child().flowing()
    await tick()
    const c = child()
    // 48 kHz stereo s16le, written as time passes (plus a short lead): about 192 kB a second.
    const before = c.stdinBytes
    await tick(1000)
    expect(c.stdinBytes - before).toBeGreaterThan(180_000)
    expect(c.stdinBytes - before).toBeLessThan(200_000)
    const done = sup.stop()
    await tick(100)
    expect(c.stdinEnded).toBe(true)
    expect((await done).state).toBe('ended')
    await tick(10_000)
    expect(c.signals).toEqual([])
  })

  it('fails at once when the first try dies of a non-network error, or ffmpeg is missing', async () => {
    const a = setup()
    a.sup.start()
    a.child().stderr.write('Unknown encoder libx264\n')
    a.child().exit(1)
    await tick()
    expect(a.sup.state).toBe('failed')
    expect(a.sup.status().error).toMatchObject({ code: 'ffmpeg-failed' })

    const b = setup()
    b.sup.start()
    const enoent = Object.assign(new Error('spawn /nope ENOENT'), { code: 'ENOENT' })
    b.child().pid = undefined
    b.child().emit('error', enoent)
    await tick()
    expect(b.sup.status()).toMatchObject({ state: 'failed', error: { code: 'ffmpeg-missing' } })
  })

  it('does not reconnect when auto-reconnect is off', async () => {
    const { sup, child } = setup({ autoReconnect: false })
    sup.start()
    child().flowing()
    await tick()
    child().exit(1)
    await tick()
    expect(sup.state).toBe('failed')
  })

  it('kills a stalled ffmpeg (no progress) and reconnects', async () => {
    const { sup, child, children } = setup({ stallMs: 5000 })
    sup.start()
    child().flowing()
    await tick(4000)
    child().flowing(2)
    await tick(4999)
    expect(children[0]!.signals).toEqual([])
    await tick(1)
    expect(children[0]!.signals).toEqual(['SIGKILL'])
    await tick()
    expect(sup.state).toBe('reconnecting')
    await stopped(sup)
  })

  it('emits health at most once a second while live', async () => {
    const health: number[] = []
    const { sup, child } = setup({ onHealth: (h) => health.push(h.at) })
    sup.start()
    for (let i = 1; i <= 10; i++) {
      child().flowing(i)
      await tick(250)
    }
    expect(health.length).toBeGreaterThanOrEqual(2)
    expect(health.length).toBeLessThanOrEqual(3)
    for (let i = 1; i < health.length; i++)
      expect(health[i]! - health[i - 1]!).toBeGreaterThanOrEqual(1000)
    await stopped(sup)
  })
})

describe('broadcast supervisor, media source', () => {
  it('waits for a keyframe without calling it a stall, then names a real stall', async () => {
    const { sup, children, states } = setup({
      source: { kind: 'media', mimeType: 'video/webm;codecs=h264,opus' },
      stallMs: 5000
    })
    sup.start()
    await tick(20_000)
    // No media yet: the renderer's pace, not a hung ffmpeg.
    expect(children[0]!.signals).toEqual([])
    expect(sup.state).toBe('connecting')
    const { readFileSync } = await import('node:fs')
    const { join } = await import('node:path')
    const file = readFileSync(join(__dirname, '../../fixtures/core/h264-opus-4s.mkv'))
    await sup.pushMedia(file.subarray(0, 40_000))
    expect(children[0]!.stdin.readableLength + children[0]!.stdinBytes).toBeGreaterThan(0)
    await tick(5000)
    expect(children[0]!.signals).toEqual(['SIGKILL'])
    expect(states.at(-1)).toMatchObject({
      state: 'reconnecting',
      error: { code: 'network', message: 'Nothing went out for 5 s: the connection stalled.' }
    })
    await stopped(sup)
  })
})

describe('broadcast supervisor: the uplink (#19)', () => {
  /** A progress block: `sent` s of media out, `bytes` written to the socket so far. */
  const block = (sent: number, bytes: number, frame = sent * 30): string =>
    `frame=${Math.round(frame)}\nfps=30\nbitrate=1000kbits/s\ntotal_size=${bytes}\nout_time_us=${Math.round(sent * 1e6)}\ndrop_frames=0\ndup_frames=0\nspeed=1.0x\nprogress=continue\n`

  /**
   * A live run of the page's media (2.6 Mbit/s: 100 ms clusters of three 10.8 KB frames) whose fake
   * ffmpeg reports, every 250 ms, how much media went out and how many bytes the socket took.
   */
  async function mediaRun(extra: Partial<ConstructorParameters<typeof BroadcastSupervisor>[0]>) {
    const { sup, child } = setup({
      source: { kind: 'media', mimeType: 'video/x-matroska;codecs=avc1,opus' },
      output: { ...output, videoBitrateKbps: 2500 },
      ...extra
    })
    sup.start()
    await sup.pushMedia(streamHeader())
    let at = 0 // media ms pushed
    let handed = 0 // media ms the page has made by now
    let bytes = 0
    let sent = 0
    let frames = 0
    const pushTo = async (ms: number): Promise<void> => {
      for (; at < ms; at += 100)
        await sup.pushMedia(
          cluster({ timeMs: at, key: at % 2000 === 0, frames: 3, payload: 10_800 })
        )
    }
    await pushTo(100)
    child().opensOutput()
    /**
     * `n` blocks 250 ms apart; each, the socket takes `bytesEach` and `sentEach` s more media went
     * out ('all': all that was handed to ffmpeg, the link open).
     */
    const blocks = async (
      n: number,
      bytesEach: number,
      sentEach: number | 'all',
      /** Frames a second in what went out (the page's, as ffmpeg copies it). */
      fps = 30
    ): Promise<void> => {
      for (let s = 1; s <= n; s++) {
        handed += 250
        await pushTo(handed)
        bytes += bytesEach
        // The frame count as ffmpeg gives it: the media time sent at this rate.
        frames += (sentEach === 'all' ? at / 1000 - sent : sentEach) * fps
        sent = sentEach === 'all' ? at / 1000 : sent + sentEach
        child().stdout.write(block(sent, bytes, frames))
        await tick(250)
      }
    }
    return { sup, blocks }
  }

  it('a queue that builds lowers the encoder to what the socket takes, drops past 700 ms with a keyframe asked, and says so', async () => {
    const encoder: EncoderTargetEvent[] = []
    const health: LiveHealthEvent[] = []
    const { sup, blocks } = await mediaRun({
      onEncoder: (e) => encoder.push(e),
      onHealth: (h) => health.push(h),
      // An idle computer: what queues is the upload's.
      cpuBusy: () => 0.3
    })
    // The link carries all of it for 2 s: live, no word to the encoder.
    await blocks(8, 85_000, 0.25)
    expect(sup.state).toBe('live')
    expect(encoder, JSON.stringify(encoder)).toEqual([])
    // Now the socket takes ~1.05 Mbit/s while 2.6 arrive: ffmpeg's sent time falls behind what it
    // is handed, main hands it no more than 300 ms ahead of it, and media piles up in main.
    await blocks(20, 33_000, 0.1)
    const lowered = encoder.filter((e) => !e.keyframe)
    expect(lowered.length).toBeGreaterThan(0)
    // Within 5 s of the slowdown: under what the socket takes for video (1,056 - 128 kbit/s), with
    // headroom, and not under the floor.
    const target = lowered[lowered.length - 1]!.videoBitrateKbps
    expect(target).toBeLessThanOrEqual(Math.round(0.85 * (1056 - 128)) + 1)
    expect(target).toBeGreaterThanOrEqual(300)
    // Past 700 ms queued, media was dropped up to the next keyframe and one was asked for.
    expect(encoder.some((e) => e.keyframe)).toBe(true)
    const last = health[health.length - 1]!
    expect(last.uplink).toMatchObject({ state: 'limited', maxVideoKbps: 2500 })
    expect(last.uplink!.drops).toBeGreaterThan(0)
    expect(last.congestion).toBeGreaterThanOrEqual(2)
    expect(last.shortfall).toMatchObject({ cause: 'upload', needKbps: 2628 })
    expect((last.shortfall as { carriedKbps: number }).carriedKbps).toBeLessThan(2628)
    // The rate leaving the computer is the recent one, not the average since the start.
    expect(last.kbps).toBeLessThan(1500)
    // The link opens: ffmpeg sends all it is handed, main's queue empties. For 3 s after the last
    // drop the upload still counts as short (the strip said "keeps up again" beside "frames dropped"
    // in the uplink bench); then, the queue empty, the bitrate is on its way back.
    const lastDropAt = last.uplink!.lastDropAt!
    const from = health.length
    await blocks(24, 85_000, 'all')
    const after = health.slice(from)
    expect(after.length).toBeGreaterThan(4)
    expect(after.some((h) => h.uplink?.lastDropAt !== lastDropAt)).toBe(false)
    for (const h of after)
      expect(h.uplink!.state, `at ${h.at - lastDropAt} ms after the last drop`).toBe(
        h.at - lastDropAt < 3000 ? 'limited' : 'recovering'
      )
    await stopped(sup)
  })

  it('a queue on a computer too busy to keep up names the computer, not the upload', async () => {
    const health: LiveHealthEvent[] = []
    const { sup, blocks } = await mediaRun({
      onHealth: (h) => health.push(h),
      cpuBusy: () => 0.97
    })
    await blocks(8, 85_000, 0.25)
    // ffmpeg, starved of CPU, takes what it is handed late: the same queue a short link makes.
    await blocks(20, 33_000, 0.1)
    const last = health[health.length - 1]!
    expect(last.uplink).toMatchObject({ state: 'limited', cause: 'computer', cpuPercent: 97 })
    expect(last.shortfall).toMatchObject({ cause: 'busy-computer', cpuPercent: 97 })
    await stopped(sup)
  })

  it("Onair's encoder between bursts of skips on a busy computer: the computer is named, never the upload", async () => {
    const health: LiveHealthEvent[] = []
    let skipped = 0
    const { sup, blocks } = await mediaRun({
      onHealth: (h) => health.push(h),
      cpuBusy: () => 0.99,
      encoderSkipped: () => skipped
    })
    await blocks(8, 85_000, 0.25)
    // A burst of skips: the encoder names itself, whatever the load.
    skipped = 23
    await blocks(4, 33_000, 0.1)
    expect(health.at(-1)!.uplink).toMatchObject({ cause: 'encoder', encoderSkipped: 23 })
    expect(health.at(-1)!.shortfall).toMatchObject({ cause: 'encoder-skips', cpuPercent: 99 })
    // No skip for more than 3 s while the starved ffmpeg still takes media late: the queue is the
    // computer's (CI of 94c7bb5 said "upload" here).
    await blocks(20, 33_000, 0.1)
    const last = health.at(-1)!
    expect(last.uplink).toMatchObject({ state: 'limited', cause: 'computer', encoderSkipped: 23 })
    expect(last.shortfall).toMatchObject({ cause: 'busy-computer', cpuPercent: 99 })
    await stopped(sup)
  })

  it('few frames on a computer too busy names the computer, not the camera', async () => {
    const health: LiveHealthEvent[] = []
    const { sup, blocks } = await mediaRun({
      onHealth: (h) => health.push(h),
      cpuBusy: () => 1
    })
    // The link takes all, nothing queues or drops; the page, starved, hands over 8 frames a second.
    await blocks(12, 85_000, 'all', 8)
    const last = health[health.length - 1]!
    expect(last.uplink).toMatchObject({ state: 'full', queuedMs: 0, drops: 0 })
    expect(last.shortfall).toEqual({
      cause: 'busy-computer',
      dropping: false,
      cpuPercent: 100,
      deliveredFps: 8,
      targetFps: 30
    })
    await stopped(sup)
  })

  it('few frames on an idle computer: the source is what delivers them', async () => {
    const health: LiveHealthEvent[] = []
    const { sup, blocks } = await mediaRun({
      onHealth: (h) => health.push(h),
      cpuBusy: () => 0.3
    })
    await blocks(12, 85_000, 'all', 8)
    expect(health[health.length - 1]!.shortfall).toMatchObject({
      cause: 'source-fps',
      targetFps: 30
    })
    await stopped(sup)
  })
})

// Broadcaster benchmark (`npm run bench:live`): figures are printed, never asserted.
// - go-live time: goLive call -> ingest accepted (state 'live') and -> first live playlist served;
// - CPU seconds per media second of the broadcaster's own ffmpeg: H.264 copy path vs the libx264
//   encode path (VP8 camera input), 720p30 camera-like chunks pushed in real time;
// - reconnect time: ingest back -> 'live' again (includes the backoff wait, default schedule);
// - local recording: extra CPU: what Record on this computer adds per media second (main's writes, or the
//   tee's second output, plus the MP4 remux at the end), beside the same run without it, alternating.
// Medians of a few runs. The machine is shared: read the ratios rather than absolute numbers.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ApiClient } from '../../src/main/core/api-client'
import { Broadcaster, type BroadcastTuning } from '../../src/main/core/broadcaster'
import { LocalRecordings } from '../../src/main/core/local-recording/recordings'
import { resolveFfmpeg } from '../../src/node/ffmpeg/locate'
import type { LiveSource, LiveStateEvent, OutputSettings } from '../../src/shared/contract'
import {
  makeMediaFile,
  startTestStudio,
  waitFor,
  type TestStudio
} from '../../tests/helpers/studio'
import { DEFAULT_OUTPUT } from '../../src/shared/output'
import { runAsScript } from './results'
import { median, type BenchRow } from './types'

const RUNS = 3
const MEDIA_S = 10
const OUT: OutputSettings = { ...DEFAULT_OUTPUT }
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
const round = (n: number, d = 3): number => Math.round(n * 10 ** d) / 10 ** d

function harness(tuning?: BroadcastTuning, recordings?: LocalRecordings) {
  const states: (LiveStateEvent & { t: number })[] = []
  const b = new Broadcaster({
    tuning,
    recordings,
    onState: (s) => states.push({ ...s, t: performance.now() }),
    onHealth: () => {}
  })
  const waitState = async (want: string, after: number, timeoutMs = 60_000): Promise<number> => {
    const t0 = performance.now()
    for (;;) {
      const hit = states.slice(after).find((s) => s.state === want)
      if (hit) return hit.t
      if (performance.now() - t0 > timeoutMs) throw new Error(`no '${want}' within ${timeoutMs} ms`)
      await sleep(10)
    }
  }
  return { b, states, waitState }
}

/** utime+stime of a live process, in seconds (0 once it is gone). */
function cpuOf(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(f[11]) + Number(f[12])) / CLK_TCK
  } catch {
    return 0
  }
}

function cameraFile(dir: string, codec: 'h264' | 'vp8'): string {
  const out = join(dir, `camera-${codec}.mkv`)
  const video =
    codec === 'h264'
      ? [
          '-c:v',
          'libx264',
          '-preset',
          'ultrafast',
          '-g',
          '30',
          '-bf',
          '0',
          '-pix_fmt',
          'yuv420p',
          '-b:v',
          '2500k'
        ]
      : ['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-g', '30', '-b:v', '2500k']
  return makeMediaFile(out, [
    ...['-f', 'lavfi', '-i', 'testsrc2=size=1280x720:rate=30'],
    ...[
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=330:sample_rate=48000',
      '-t',
      String(MEDIA_S),
      ...video
    ],
    ...[
      '-c:a',
      'libopus',
      '-b:a',
      '96k',
      '-f',
      'matroska',
      '-live',
      '1',
      '-cluster_time_limit',
      '1000'
    ]
  ])
}

/** The live playlist lists a segment: the master's first variant (or the playlist itself) has one. */
async function hasSegment(url: string): Promise<boolean> {
  const r = await fetch(url)
  if (!r.ok) return false
  const text = await r.text()
  if (text.includes('#EXTINF')) return true
  const variant = text.split('\n').find((l) => l.trim() && !l.startsWith('#'))
  if (!variant) return false
  const v = await fetch(new URL(variant.trim(), url))
  return v.ok && (await v.text()).includes('#EXTINF')
}

async function newStream(client: ApiClient, name: string) {
  return client.createStream({ name, profiles: [], record: false })
}

async function goLiveTimes(
  studio: TestStudio,
  client: ApiClient
): Promise<{ live: number; playlist: number }> {
  const ingest = await client.getIngest()
  const s = await newStream(client, 'bench go-live')
  const { b, waitState } = harness()
  const t0 = performance.now()
  const runId = b.start({
    args: { streamId: s.id!, source: { kind: 'test-pattern' }, output: OUT },
    streamName: s.name,
    streamKey: s.streamKey!,
    ingestRtmp: studio.rtmpUrl
  })
  const live = (await waitState('live', 0)) - t0
  const url = `${ingest.playbackBase}/${s.playbackId}/index.m3u8`
  await waitFor(() => hasSegment(url), 60_000, 'first live playlist', 50)
  const playlist = performance.now() - t0
  await b.stop(runId)
  return { live, playlist }
}

async function cpuPerMediaSecond(
  studio: TestStudio,
  client: ApiClient,
  file: string,
  source: LiveSource
): Promise<number> {
  const s = await newStream(client, 'bench cpu')
  const { b, waitState } = harness()
  const runId = b.start({
    args: { streamId: s.id!, source, output: OUT },
    streamName: s.name,
    streamKey: s.streamKey!,
    ingestRtmp: studio.rtmpUrl
  })
  const bytes = readFileSync(file)
  const per = Math.ceil(bytes.length / (MEDIA_S * 4))
  const t0 = performance.now()
  let cpu = 0
  for (let at = 0; at < bytes.length; at += per) {
    await b.pushMedia(runId, new Uint8Array(bytes.subarray(at, at + per)))
    const pid = b.pid
    if (pid) cpu = Math.max(cpu, cpuOf(pid))
    await sleep(Math.max(0, t0 + ((at + per) / bytes.length) * MEDIA_S * 1000 - performance.now()))
  }
  await waitState('live', 0)
  return (await stopReadingCpu(b, runId, cpu)) / MEDIA_S
}

/** Stops the run, reading the broadcaster ffmpeg's counters while it drains the last chunks, up to its exit. */
async function stopReadingCpu(b: Broadcaster, runId: string, cpuSoFar: number): Promise<number> {
  let cpu = cpuSoFar
  const pid = b.pid
  const stopping = b.stop(runId)
  while (pid && b.status()!.state !== 'ended') {
    cpu = Math.max(cpu, cpuOf(pid))
    await sleep(20)
  }
  await stopping
  return cpu
}

/** utime+stime of this process and of its reaped children (ffmpegs that have exited), in seconds. */
function selfCpu(): { own: number; children: number } {
  const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')
  return {
    own: (Number(f[11]) + Number(f[12])) / CLK_TCK,
    children: (Number(f[13]) + Number(f[14])) / CLK_TCK
  }
}

/**
 * One run of MEDIA_S seconds (camera file pushed in real time, or the test pattern), with or without
 * Record on this computer: the broadcaster's ffmpeg CPU + this process's own CPU (main's writes; the
 * in-process studio's share is the same in both) + the remux at the end, per media second.
 */
async function recordingRunCpu(
  studio: TestStudio,
  client: ApiClient,
  dir: string,
  file: string | null,
  record: boolean
): Promise<number> {
  const recordings = new LocalRecordings({
    appDataDir: join(dir, 'app'),
    folder: () => join(dir, 'Videos', 'Onair'),
    ffmpeg: () => resolveFfmpeg().path
  })
  const s = await newStream(client, 'bench local recording')
  const { b, waitState } = harness(undefined, recordings)
  const source: LiveSource = file
    ? { kind: 'media', mimeType: 'video/x-matroska;codecs=avc1,opus' }
    : { kind: 'test-pattern' }
  const before = selfCpu()
  const runId = b.start({
    args: { streamId: s.id!, source, output: OUT, recordLocally: record },
    streamName: s.name,
    streamKey: s.streamKey!,
    ingestRtmp: studio.rtmpUrl
  })
  let ff = 0
  const t0 = performance.now()
  if (file) {
    const bytes = readFileSync(file)
    const per = Math.ceil(bytes.length / (MEDIA_S * 4))
    for (let at = 0; at < bytes.length; at += per) {
      await b.pushMedia(runId, new Uint8Array(bytes.subarray(at, at + per)))
      if (b.pid) ff = Math.max(ff, cpuOf(b.pid))
      await sleep(
        Math.max(0, t0 + ((at + per) / bytes.length) * MEDIA_S * 1000 - performance.now())
      )
    }
  } else {
    await waitState('live', 0)
    while (performance.now() - t0 < MEDIA_S * 1000) {
      if (b.pid) ff = Math.max(ff, cpuOf(b.pid))
      await sleep(200)
    }
  }
  await waitState('live', 0)
  ff = await stopReadingCpu(b, runId, ff)
  // The broadcaster's ffmpeg is reaped by now: what the children's counter gains from here is the remux.
  const beforeRemux = selfCpu().children
  await b.recordingSaved()
  const remux = selfCpu().children - beforeRemux
  if (record && recordings.list()[0]?.state !== 'saved')
    throw new Error(`the local recording was not saved: ${JSON.stringify(recordings.list()[0])}`)
  const own = selfCpu().own - before.own
  return (ff + own + remux) / MEDIA_S
}

async function reconnectTime(studio: TestStudio, client: ApiClient): Promise<number> {
  const s = await newStream(client, 'bench reconnect')
  const { b, states, waitState } = harness()
  const runId = b.start({
    args: {
      streamId: s.id!,
      source: { kind: 'test-pattern' },
      output: { ...OUT, width: 640, height: 360 }
    },
    streamName: s.name,
    streamKey: s.streamKey!,
    ingestRtmp: studio.rtmpUrl
  })
  await waitState('live', 0)
  await sleep(2000)
  const mark = states.length
  await studio.stopIngest()
  await waitState('reconnecting', mark)
  await sleep(1000)
  const back = performance.now()
  await studio.startIngest()
  const t = (await waitState('live', mark)) - back
  await b.stop(runId)
  return t
}

export async function runLiveBench(): Promise<BenchRow[]> {
  const studio = await startTestStudio({ resumeWindowMs: 1000 })
  const dir = await mkdtemp(join(tmpdir(), 'onair-bench-live-'))
  try {
    const client = new ApiClient({ baseUrl: studio.apiUrl, apiKey: studio.apiKey })
    const golive: { live: number; playlist: number }[] = []
    for (let i = 0; i < RUNS; i++) golive.push(await goLiveTimes(studio, client))
    const h264 = cameraFile(dir, 'h264')
    const vp8 = cameraFile(dir, 'vp8')
    const copy: number[] = []
    const encode: number[] = []
    for (let i = 0; i < RUNS; i++) {
      copy.push(
        await cpuPerMediaSecond(studio, client, h264, {
          kind: 'media',
          mimeType: 'video/x-matroska;codecs=avc1,opus'
        })
      )
      encode.push(
        await cpuPerMediaSecond(studio, client, vp8, {
          kind: 'media',
          mimeType: 'video/webm;codecs=vp8,opus'
        })
      )
    }
    const reconnect: number[] = []
    for (let i = 0; i < RUNS; i++) reconnect.push(await reconnectTime(studio, client))
    // Record on this computer, side by side: off and on alternate, so the machine's load hits both.
    const alone = { camera: [] as number[], pattern: [] as number[] }
    const extra = { camera: [] as number[], pattern: [] as number[] }
    for (let i = 0; i < RUNS; i++) {
      const d = await mkdtemp(join(dir, 'rec-'))
      for (const [kind, file] of [
        ['camera', h264],
        ['pattern', null]
      ] as const) {
        const off = await recordingRunCpu(studio, client, d, file, false)
        const on = await recordingRunCpu(studio, client, d, file, true)
        alone[kind].push(off)
        extra[kind].push(on - off)
      }
      await rm(d, { recursive: true, force: true })
    }
    const cCopy = median(copy)
    const cEnc = median(encode)
    return [
      {
        name: 'Go live: call -> ingest accepted (720p30 test pattern)',
        value: round(median(golive.map((g) => g.live)) / 1000),
        unit: 's',
        note: `median of ${RUNS}; 'live' = the ingest took media: a progress block after the attempt's first (not its last) with 0.5 s of media out`
      },
      {
        name: 'Go live: call -> first live playlist (local studio, source only)',
        value: round(median(golive.map((g) => g.playlist)) / 1000),
        unit: 's',
        note: `median of ${RUNS}`
      },
      {
        name: 'Broadcaster ffmpeg CPU per media second, H.264 copy path (720p30)',
        value: round(cCopy),
        unit: 'cpu-s/s',
        reference: {
          name: 'libx264 veryfast encode path (VP8 input)',
          value: round(cEnc),
          unit: 'cpu-s/s'
        },
        note: `encode/copy = ${round(cEnc / cCopy, 1)}x; median of ${RUNS}, ${MEDIA_S} s pushed in real time`
      },
      {
        name: 'Reconnect: ingest back -> live again',
        value: round(median(reconnect) / 1000),
        unit: 's',
        note: `median of ${RUNS}; includes the wait for the next backoff tick (1 s, x1.5, jitter)`
      },
      {
        name: 'local recording: extra CPU',
        value: round(median(extra.camera)),
        unit: 'cpu-s/s',
        goal: { max: 0.02 },
        reference: {
          name: 'the broadcaster alone (H.264 copy path, 720p30 camera)',
          value: round(median(alone.camera)),
          unit: 'cpu-s/s'
        },
        note:
          `goal <= 0.02; camera path: main writes the pushed bytes, then an MP4 remux; ` +
          `test pattern (tee, second output of the one encode): ${round(median(extra.pattern))} cpu-s/s extra ` +
          `beside ${round(median(alone.pattern))} alone; median of ${RUNS} off/on pairs, ${MEDIA_S} s each; ` +
          `this process's CPU is counted in both, so the in-process studio's share cancels out`
      }
    ]
  } finally {
    await studio.cleanup()
    await rm(dir, { recursive: true, force: true })
  }
}

if (require.main === module)
  runAsScript('bench:live', runLiveBench, { section: 'Broadcaster', command: 'npm run bench:live' })

// Local studio benchmark (`npm run bench:studio`): figures are printed, never asserted.
// - the 3-profile ladder (one decode, three encodes) vs three separate single-rendition ffmpegs:
//   real-time factor (processing seconds per media second) and CPU seconds per media second;
// - publish -> first live playlist, clean stop -> recording ready (real RTMP publish, -re);
// - GET /session p50/p99 with 10,000 sessions in the store;
// - multistream: CPU of one target's forwarding ffmpeg per media second, beside the session's own
//   ladder in the same run (Linux: read from /proc/<pid>/stat).
// Medians of a few runs. The machine is shared: read ratios rather than absolute numbers.
import { execFile, execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { RECOMMENDED_PROFILES } from '../../src/shared/profiles'
import { seedSessions } from '../../tests/helpers/seed-sessions'
import { ladderArgs, X264_PRESET } from '../../src/studio/transcoder'
import {
  api,
  pushTestPattern,
  startTestStudio,
  testFfmpeg,
  waitFor
} from '../../tests/helpers/studio'
import { runAsScript } from './results'
import { median, percentile, type BenchRow } from './types'

const MEDIA_S = 12
const RUNS = 3

const pct = percentile
const round = (n: number, d = 3): number => Math.round(n * 10 ** d) / 10 ** d

interface Usage {
  cpu: number
  real: number
}

/** Runs ffmpeg with -benchmark and reads its own utime+stime and rtime. */
function ffmpegBench(args: string[]): Promise<Usage> {
  // -benchmark reports at info level; the studio's args ask for warnings only.
  const loud = args.map((a, i) => (args[i - 1] === '-loglevel' ? 'info' : a))
  return new Promise((resolve, reject) => {
    execFile(
      testFfmpeg(),
      ['-benchmark', ...loud],
      { maxBuffer: 1 << 24 },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`ffmpeg failed: ${stderr.slice(-500)}`))
        const m = /bench: utime=([\d.]+)s stime=([\d.]+)s rtime=([\d.]+)s/.exec(stderr + stdout)
        if (!m) return reject(new Error('no -benchmark line'))
        resolve({ cpu: Number(m[1]) + Number(m[2]), real: Number(m[3]) })
      }
    )
  })
}

async function makeSource(dir: string): Promise<string> {
  const file = join(dir, 'source.flv')
  await new Promise<void>((resolve, reject) =>
    execFile(
      testFfmpeg(),
      [
        '-v',
        'error',
        '-y',
        '-f',
        'lavfi',
        '-i',
        'testsrc2=size=1280x720:rate=30',
        '-f',
        'lavfi',
        '-i',
        'sine=frequency=440:sample_rate=48000',
        '-t',
        String(MEDIA_S),
        '-c:v',
        'libx264',
        '-preset',
        'veryfast',
        '-g',
        '60',
        '-pix_fmt',
        'yuv420p',
        '-c:a',
        'aac',
        file
      ],
      (err) => (err ? reject(err) : resolve())
    )
  )
  return file
}

/** The studio's own arguments minus -rw_timeout (an RTMP option; the bench reads a file). */
function fileInput(args: string[]): string[] {
  const i = args.indexOf('-rw_timeout')
  return i < 0 ? args : [...args.slice(0, i), ...args.slice(i + 2)]
}

async function transcodeRows(dir: string): Promise<BenchRow[]> {
  const input = await makeSource(dir)
  const src = { hasAudio: true, videoIsH264: true, width: 1280, height: 720, videoBitrate: 0 }
  const profiles = [...RECOMMENDED_PROFILES]
  const ladder: Usage[] = []
  const separate: Usage[] = []
  for (let i = 0; i < RUNS; i++) {
    // The studio's own arguments, with a file instead of the RTMP pull (as fast as it can go).
    const out = join(dir, `ladder${i}`)
    for (const v of ['v0', 'v1', 'v2']) await mkdir(join(out, v), { recursive: true })
    ladder.push(await ffmpegBench(fileInput(ladderArgs(input, out, profiles, src))))
    // Reference: three independent ffmpegs, each decoding the source and encoding one rendition.
    const t0 = Date.now()
    const each = await Promise.all(
      profiles.map((p, k) => {
        const out = join(dir, `single${i}-${k}`)
        return (async () => {
          await mkdir(join(out, 'v0'), { recursive: true })
          return ffmpegBench(fileInput(ladderArgs(input, out, [p], src)))
        })()
      })
    )
    separate.push({ cpu: each.reduce((t, u) => t + u.cpu, 0), real: (Date.now() - t0) / 1000 })
  }
  const lRtf = median(ladder.map((u) => u.real / MEDIA_S))
  const sRtf = median(separate.map((u) => u.real / MEDIA_S))
  const lCpu = median(ladder.map((u) => u.cpu / MEDIA_S))
  const sCpu = median(separate.map((u) => u.cpu / MEDIA_S))
  return [
    {
      name: `studio: 720p/480p/360p ladder real-time factor (libx264 ${X264_PRESET})`,
      value: round(lRtf),
      unit: 's per media s',
      reference: {
        name: 'three separate single-rendition ffmpegs, run together',
        value: round(sRtf),
        unit: 's per media s'
      },
      note: `ratio ${round(lRtf / sRtf, 2)}; < 1 keeps up with a live source; ${MEDIA_S} s 720p30 input, median of ${RUNS}`
    },
    {
      name: 'studio: ladder CPU seconds per media second',
      value: round(lCpu),
      unit: 'CPU s / media s',
      reference: {
        name: 'three separate single-rendition ffmpegs (sum)',
        value: round(sCpu),
        unit: 'CPU s / media s'
      },
      note: `ratio ${round(lCpu / sCpu, 2)} (decode once vs three decodes)`
    }
  ]
}

async function liveRows(): Promise<BenchRow[]> {
  const studio = await startTestStudio()
  const firstPlaylist: number[] = []
  const ready: number[] = []
  try {
    const base = studio.apiUrl.replace(/\/api$/, '')
    for (let i = 0; i < RUNS; i++) {
      const s = (
        await api<{ id: string; streamKey: string; playbackId: string }>(
          studio,
          studio.apiKey,
          'POST',
          '/stream',
          {
            name: `bench ${i}`,
            record: true,
            profiles: RECOMMENDED_PROFILES
          }
        )
      ).body
      const t0 = Date.now()
      const push = pushTestPattern(`${studio.rtmpUrl}/${s.streamKey}`, { seconds: 8 })
      await waitFor(
        async () => (await fetch(`${base}/hls/${s.playbackId}/index.m3u8`)).status === 200,
        30_000,
        'first playlist',
        50
      )
      firstPlaylist.push((Date.now() - t0) / 1000)
      await push.done
      const t1 = Date.now()
      await waitFor(
        async () => {
          const list = (
            await api<Array<{ recordingStatus?: string }>>(
              studio,
              studio.apiKey,
              'GET',
              `/stream/${s.id}/sessions`
            )
          ).body
          return list[0]?.recordingStatus === 'ready'
        },
        60_000,
        'recording ready',
        50
      )
      ready.push((Date.now() - t1) / 1000)
    }
  } finally {
    await studio.cleanup()
  }
  return [
    {
      name: 'studio: publish -> first live master playlist',
      value: round(median(firstPlaylist), 2),
      unit: 's',
      note: `3-profile ladder, 2 s segments, median of ${RUNS}`
    },
    {
      name: 'studio: clean stop -> recordingStatus ready',
      value: round(median(ready), 2),
      unit: 's',
      note: `8 s recording incl. MP4 remux, median of ${RUNS}`
    }
  ]
}

async function sessionListRows(): Promise<BenchRow[]> {
  const studio = await startTestStudio()
  try {
    await seedSessions(studio.dataDir, studio.apiKey, 10_000)
    const times: number[] = []
    for (let i = 0; i < 600; i++) {
      const t0 = performance.now()
      const res = await fetch(`${studio.apiUrl}/session`, {
        headers: { authorization: `Bearer ${studio.apiKey}` }
      })
      await res.arrayBuffer()
      if (i >= 100) times.push(performance.now() - t0) // the first 100 warm up
    }
    const deep: number[] = []
    for (let i = 0; i < 100; i++) {
      const t0 = performance.now()
      const res = await fetch(`${studio.apiUrl}/session?limit=100&cursor=skip9800&count=1`, {
        headers: { authorization: `Bearer ${studio.apiKey}` }
      })
      await res.arrayBuffer()
      deep.push(performance.now() - t0)
    }
    return [
      {
        name: 'studio: GET /session p50 (10,000 sessions, limit 20)',
        value: round(pct(times, 50), 2),
        unit: 'ms'
      },
      {
        name: 'studio: GET /session p99 (10,000 sessions, limit 20)',
        value: round(pct(times, 99), 2),
        unit: 'ms'
      },
      {
        name: 'studio: GET /session p50 (last page, limit 100, count)',
        value: round(pct(deep, 50), 2),
        unit: 'ms'
      }
    ]
  } finally {
    await studio.cleanup()
  }
}

// ---- multistream -------------------------------------------------------------------------------

/** This process's children (the in-process studios' ffmpegs) with their command lines. */
function childProcesses(): Array<{ pid: number; cmd: string }> {
  const out: Array<{ pid: number; cmd: string }> = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      // Fields after the parenthesised command name: state, ppid, ...
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid !== process.pid) continue
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ')
      out.push({ pid: Number(name), cmd })
    } catch {
      // The process ended while we looked.
    }
  }
  return out
}

/** utime + stime of a process in seconds (/proc/<pid>/stat fields 14 and 15). */
function cpuSeconds(pid: number, ticks: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // f[0] is field 3 (state): utime is field 14, stime field 15.
  return (Number(f[11]) + Number(f[12])) / ticks
}

async function multistreamRows(): Promise<BenchRow[]> {
  const name = 'multistream: CPU per target'
  if (process.platform !== 'linux' || !existsSync('/proc/self/stat')) {
    return [{ name, value: NaN, unit: 'CPU s / media s', note: 'needs /proc (Linux only)' }]
  }
  const ticks = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100
  const a = await startTestStudio()
  const b = await startTestStudio()
  try {
    const recv = (
      await api<{ id: string; streamKey: string }>(b, b.apiKey, 'POST', '/stream', {
        name: 'receiver'
      })
    ).body
    const rtmpB = new URL(b.rtmpUrl)
    const s = (
      await api<{ id: string; streamKey: string }>(a, a.apiKey, 'POST', '/stream', {
        name: 'multistream bench',
        profiles: RECOMMENDED_PROFILES,
        multistream: {
          targets: [
            {
              profile: RECOMMENDED_PROFILES[1]!.name,
              spec: { name: 'bench', url: `rtmp://127.0.0.1:${rtmpB.port}/live/${recv.streamKey}` }
            }
          ]
        }
      })
    ).body
    const window = 30
    const push = pushTestPattern(`${a.rtmpUrl}/${s.streamKey}`, { seconds: window + 15 })
    try {
      await waitFor(
        async () =>
          (await api<{ isActive: boolean }>(b, b.apiKey, 'GET', `/stream/${recv.id}`)).body
            .isActive,
        60_000,
        'the target live'
      )
      const procs = childProcesses()
      // The forwarder reads the rendition's playlist; the ladder is the one with a filter graph.
      const fwd = procs.find((p) => p.cmd.includes('-live_start_index'))
      const ladder = procs.find((p) => p.cmd.includes('-filter_complex'))
      if (!fwd || !ladder) throw new Error('forwarder or ladder ffmpeg not found in /proc')
      const f0 = cpuSeconds(fwd.pid, ticks)
      const l0 = cpuSeconds(ladder.pid, ticks)
      const t0 = Date.now()
      await new Promise((r) => setTimeout(r, window * 1000))
      const f1 = cpuSeconds(fwd.pid, ticks)
      const l1 = cpuSeconds(ladder.pid, ticks)
      // The push is real time (-re), so wall time is media time.
      const media = (Date.now() - t0) / 1000
      const perTarget = (f1 - f0) / media
      return [
        {
          name,
          value: round(perTarget, 4),
          unit: 'CPU s / media s',
          goal: { max: 0.03 },
          reference: {
            name: "the session's own 720p/480p/360p ladder, same run",
            value: round((l1 - l0) / media),
            unit: 'CPU s / media s'
          },
          note: `one target fed the 360p rendition (-c copy from its live HLS), ${round(media, 1)} s of media, /proc/<pid>/stat utime+stime; goal <= 0.03`
        }
      ]
    } finally {
      await push.kill()
    }
  } finally {
    await a.cleanup()
    await b.cleanup()
  }
}

export async function runStudioBench(): Promise<BenchRow[]> {
  const dir = await mkdtemp(join(tmpdir(), 'onair-bench-studio-'))
  try {
    if (process.env.BENCH_ONLY === 'multistream') return await multistreamRows()
    return [
      ...(await transcodeRows(dir)),
      ...(await liveRows()),
      ...(await sessionListRows()),
      ...(await multistreamRows())
    ]
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

if (require.main === module)
  runAsScript('bench:studio', runStudioBench, {
    section: 'Local studio',
    command: 'npm run bench:studio'
  })

// Test helpers for the local studio: a studio on a temp data dir and free ports, a real ffmpeg
// pushing lavfi test video over RTMP, ffprobe, and small HTTP helpers. Used by the studio, core and
// e2e suites.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, renameSync, statSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { createHash } from 'node:crypto'
import { tmpdir } from 'node:os'
import { extname, join } from 'node:path'
import { resolveFfmpeg, resolveFfprobe } from '../../src/node/ffmpeg/locate'
import { startStudio, type RunningStudio, type StudioOptions } from '../../src/studio/index'

/** ffmpeg for tests: the app's own choice (FFMPEG_PATH, ffmpeg-static, then PATH). */
export function testFfmpeg(): string {
  return resolveFfmpeg().path
}

/** Made media files kept between test files (and runs): each is named by the hash of its recipe. */
const MEDIA_CACHE = join(tmpdir(), 'onair-test-media')
/** Bigger files (raw y4m cameras) are made each time rather than kept. */
const MEDIA_CACHE_MAX_BYTES = 64 * 1024 * 1024

/**
 * Makes a media file with ffmpeg (quiet, overwriting) and returns its path: `args` are the inputs and
 * output options, `out` the file. Throws with ffmpeg's message when it fails. A recipe whose inputs
 * are all lavfi sources (nothing read from a file that could change) is made once: later calls copy
 * the file made first (a copy: a test may change its file).
 */
export function makeMediaFile(out: string, args: readonly string[]): string {
  const make = (to: string): void => {
    execFileSync(testFfmpeg(), ['-hide_banner', '-loglevel', 'error', '-y', ...args, to], {
      stdio: ['ignore', 'ignore', 'pipe']
    })
  }
  const inputs = args.flatMap((a, i) => (a === '-i' ? [i] : []))
  // Muxers that write more files than `out` (HLS segments...) are made each time too.
  const manyFiles = args.some(
    (a, i) => args[i - 1] === '-f' && /^(hls|dash|segment|stream_segment|image2|tee)$/.test(a)
  )
  if (
    manyFiles ||
    inputs.length === 0 ||
    inputs.some((i) => args[i - 2] !== '-f' || args[i - 1] !== 'lavfi')
  ) {
    make(out)
    return out
  }
  // The ffmpeg's own file time too: another ffmpeg (an upgrade) makes its files anew.
  const recipe = JSON.stringify([testFfmpeg(), statSync(testFfmpeg()).mtimeMs, args, extname(out)])
  const cached = join(
    MEDIA_CACHE,
    createHash('sha256').update(recipe).digest('hex').slice(0, 32) + extname(out)
  )
  if (!existsSync(cached)) {
    make(out)
    if (statSync(out).size <= MEDIA_CACHE_MAX_BYTES) {
      // Written beside it and renamed: another test file running at the same time sees it whole or not at all.
      mkdirSync(MEDIA_CACHE, { recursive: true })
      const part = `${cached}.${process.pid}.part`
      copyFileSync(out, part)
      renameSync(part, cached)
    }
    return out
  }
  copyFileSync(cached, out)
  return out
}

/**
 * A ~200 MB local copy in `dir`: 10 s of 720p at a high bitrate (about 19 MB) looped 11 times without
 * re-encoding, with a tone. For the uploads test and bench.
 */
export function makeLongCopy(dir: string): string {
  const base = makeMediaFile(join(dir, 'base.mp4'), [
    '-f',
    'lavfi',
    '-i',
    'testsrc2=size=1280x720:rate=30',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440:sample_rate=48000',
    '-t',
    '10',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-qp',
    '6',
    '-g',
    '30',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-shortest'
  ])
  return makeMediaFile(join(dir, 'local copy.mp4'), [
    '-stream_loop',
    '10',
    '-i',
    base,
    '-c',
    'copy',
    '-movflags',
    '+faststart'
  ])
}

export type TestStudio = RunningStudio & {
  apiKey: string
  cleanup(): Promise<void>
  /** Every line the studio logged so far (set STUDIO_DEBUG=1 to also see them on stderr). */
  logLines(): string[]
}

export async function startTestStudio(opts: Partial<StudioOptions> = {}): Promise<TestStudio> {
  testFfmpeg()
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'onair-studio-')))
  const lines: string[] = []
  const studio = await startStudio({
    host: '127.0.0.1',
    port: 0,
    rtmpPort: 0,
    resumeWindowMs: 3000,
    log: (l) => {
      lines.push(l)
      if (process.env.STUDIO_DEBUG) process.stderr.write(l + '\n')
    },
    ...opts,
    dataDir
  })
  if (!studio.apiKey) throw new Error('startTestStudio needs a fresh data dir (no key was made)')
  return {
    ...studio,
    apiKey: studio.apiKey,
    logLines: () => [...lines],
    cleanup: async () => {
      await studio.stop()
      if (!opts.dataDir)
        await rm(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 })
    }
  }
}

export interface Pusher {
  child: ChildProcess
  /** Resolves with ffmpeg's exit code when the push ends. */
  done: Promise<number | null>
  /** Abrupt drop: the socket dies without an RTMP deleteStream. */
  kill(): Promise<void>
  stderr(): string
}

export interface PushOptions {
  seconds: number
  width?: number
  height?: number
  fps?: number
  audio?: boolean
  /** The lavfi video source without size and rate (default testsrc2), e.g. 'color=c=red'. */
  video?: string
}

/**
 * A real ffmpeg publishing lavfi test video (+ a sine tone) in real time; ends cleanly after
 * `seconds`.
 */
export function pushTestPattern(url: string, o: PushOptions): Pusher {
  const w = o.width ?? 1280
  const h = o.height ?? 720
  const fps = o.fps ?? 30
  const args = ['-hide_banner', '-loglevel', 'error', '-nostdin', '-re']
  const video = o.video ?? 'testsrc2'
  args.push(
    '-f',
    'lavfi',
    '-i',
    `${video}${video.includes('=') ? ':' : '='}size=${w}x${h}:rate=${fps}`
  )
  if (o.audio !== false) args.push('-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000')
  args.push(
    '-t',
    String(o.seconds),
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-tune',
    'zerolatency'
  )
  args.push('-g', String(fps * 2), '-pix_fmt', 'yuv420p')
  if (o.audio !== false) args.push('-c:a', 'aac', '-b:a', '96k')
  args.push('-f', 'flv', url)
  const child = spawn(testFfmpeg(), args, { stdio: ['ignore', 'ignore', 'pipe'] })
  let err = ''
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (err = (err + c).slice(-4000)))
  const done = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return {
    child,
    done,
    stderr: () => err,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await done
    }
  }
}

export interface Probe {
  duration: number
  streams: Array<{ codec_type: string; codec_name: string; width?: number; height?: number }>
}

export function ffprobe(target: string): Promise<Probe> {
  return new Promise((resolve, reject) => {
    execFile(
      resolveFfprobe(),
      ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', target],
      { timeout: 60_000 },
      (err, stdout) => {
        if (err) return reject(err)
        const j = JSON.parse(stdout) as { format: { duration?: string }; streams: Probe['streams'] }
        resolve({ duration: Number(j.format.duration ?? 0), streams: j.streams })
      }
    )
  })
}

/**
 * Decodes the whole playlist (every segment, every frame): proves it plays end to end. strict =
 * any decode error fails. Across an EXT-X-DISCONTINUITY ffmpeg 5.1's HLS demuxer keeps one MPEG-TS
 * context and flags the new run's first packet corrupt (continuity counters restart); players
 * reset there, so resumed recordings are checked with strict=false plus their decoded duration.
 */
export function decodeAll(target: string, strict = true): Promise<{ ok: boolean; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      testFfmpeg(),
      // -rw_timeout bounds network inputs (an RTMP play the server never feeds).
      [
        '-v',
        'error',
        ...(strict ? ['-xerror'] : []),
        '-rw_timeout',
        '5000000',
        '-i',
        target,
        // The null output counts time in the input's units: a composed scene's frames are not exactly
        // 1/30 s apart, and rounding them to 1/30 s made it complain about its own rounding.
        '-enc_time_base',
        '-1',
        '-f',
        'null',
        '-'
      ],
      { timeout: 120_000 },
      (err, _out, stderr) => resolve({ ok: !err, stderr })
    )
  })
}

export interface ApiResponse<T = unknown> {
  status: number
  body: T
  headers: Headers
}

/** fetch against the studio API with the key; parses JSON when there is a body. */
export async function api<T = unknown>(
  studio: { apiUrl: string },
  key: string | undefined,
  method: string,
  path: string,
  body?: unknown
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = {}
  if (key !== undefined) headers.authorization = `Bearer ${key}`
  if (body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(studio.apiUrl + path, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body)
  })
  const text = await res.text()
  return {
    status: res.status,
    body: (text ? JSON.parse(text) : undefined) as T,
    headers: res.headers
  }
}

/** Polls `fn` until it returns a truthy value (bounded, for events such as a session appearing). */
export async function waitFor<T>(
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 30_000,
  what = 'condition',
  intervalMs = 200
): Promise<T> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const v = await fn()
    if (v) return v
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, intervalMs))
  }
}

export const LADDER_720_480_360 = [
  { name: '720p', width: 1280, height: 720, bitrate: 3_000_000, fps: 30 },
  { name: '480p', width: 854, height: 480, bitrate: 1_600_000, fps: 30 },
  { name: '360p', width: 640, height: 360, bitrate: 800_000, fps: 30 }
]

/** A stream as the studio's API returns it (the fields the tests read). */
export interface StudioStream {
  id: string
  name: string
  streamKey: string
  playbackId: string
  profiles: unknown[]
  record: boolean
  isActive: boolean
  userId: string
  createdAt: number
  suspended: boolean
  kind: string
  lastSeen: number
  sourceSegmentsDuration: number
}

export interface StudioSession {
  id: string
  parentId: string
  record: boolean
  recordingStatus?: string
  recordingUrl?: string
  mp4Url?: string
  sourceSegmentsDuration: number
  profiles: unknown[]
}

/** The calls most studio tests make, bound to one studio and its key. */
export function studioCalls(studio: { apiUrl: string; apiKey: string }) {
  const sessionsOf = async (streamId: string): Promise<StudioSession[]> =>
    (await api<StudioSession[]>(studio, studio.apiKey, 'GET', `/stream/${streamId}/sessions`)).body
  return {
    async createStream(body: Record<string, unknown>): Promise<StudioStream> {
      const res = await api<StudioStream>(studio, studio.apiKey, 'POST', '/stream', body)
      if (res.status !== 201)
        throw new Error(`POST /stream: HTTP ${res.status} ${JSON.stringify(res.body)}`)
      return res.body
    },
    sessionsOf,
    /** The stream's newest session once its recording is no longer waiting. */
    finished: (streamId: string, timeoutMs = 30_000): Promise<StudioSession> =>
      waitFor(
        async () => {
          const s = (await sessionsOf(streamId))[0]
          return s && s.recordingStatus !== 'waiting' ? s : undefined
        },
        timeoutMs,
        'the recording to be finalized'
      )
  }
}

// The ffmpegs that pull one publish run from the RTMP ingest, each supervised on its own:
// - the source recorder: the source as it arrives, H.264 and AAC copied (no encode), into source/;
// - the ladder (only with profiles): decode once, one scaled H.264 encode per profile, AAC audio,
//   one event playlist per rendition in v<i>/.
// Neither depends on the other, so a ladder that fails costs no recorded media. A restart after a
// crash appends to the same playlists (ffmpeg's append_list marks the join with
// EXT-X-DISCONTINUITY). The master playlists are ours.
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { QUIET_WITH_PROGRESS } from '../node/ffmpeg/progress'
import { SupervisedFfmpeg, type FfmpegExit } from '../node/ffmpeg/supervised'
import type { NextAttempt } from '../node/restart-loop'
import type { Backoff } from '../shared/backoff'
import { h264Level } from '../shared/h264'
import type { Profile } from '../shared/profiles'
import { SOURCE_DIR, type RenditionInfo } from './recordings'

export const AUDIO_BITRATE = 128_000
/**
 * superfast: the 3-rendition 720p ladder keeps up on 2 shared cores with headroom (see the bench).
 */
export const X264_PRESET = 'superfast'
/** Segment length (s) of the source and of a ladder without its own GOP; WHIP senders get keyframes on it. */
export const DEFAULT_GOP_S = 2

export interface SourceInfo {
  hasAudio: boolean
  /** FLV codec id 7 = H.264. */
  videoIsH264: boolean
  /** FLV sound format 10 = AAC. */
  audioIsAac?: boolean
  width: number
  height: number
  /** Bits per second the publisher announced (0 = unknown). */
  videoBitrate: number
}

const X264_PROFILE: Record<string, [string, string]> = {
  H264Baseline: ['baseline', '42c0'],
  H264Main: ['main', '4d40'],
  H264High: ['high', '6400'],
  // x264 has no constrained-high mode; high without B-frames is what the reference's encoders send.
  H264ConstrainedHigh: ['high', '6400']
}

const even = (n: number): number => Math.max(2, Math.round(n / 2) * 2)

export function gopSeconds(p: Profile): number | 'intra' {
  if (p.gop === 'intra') return 'intra'
  const g = Number(p.gop)
  return Number.isFinite(g) && g > 0 ? g : DEFAULT_GOP_S
}

export function ladderRenditions(profiles: Profile[], hasAudio: boolean): RenditionInfo[] {
  return profiles.map((p, i) => {
    const [, idc] = X264_PROFILE[p.profile ?? 'H264High']!
    const level = h264Level(p.width, p.height, p.fps)
    return {
      dir: `v${i}`,
      name: p.name,
      width: even(p.width),
      height: even(p.height),
      bandwidth: Math.round(p.bitrate * 1.1) + (hasAudio ? AUDIO_BITRATE : 0),
      codecs: `avc1.${idc}${level.toString(16)}` + (hasAudio ? ',mp4a.40.2' : '')
    }
  })
}

/**
 * Arguments for a ladder attempt. `input` is the RTMP pull URL; `out` the run directory; `append`
 * for a restart (the playlists go on after a discontinuity).
 */
export function ladderArgs(
  input: string,
  out: string,
  profiles: Profile[],
  src: SourceInfo,
  append = false
): string[] {
  const n = profiles.length
  const labels = profiles.map((_, i) => `[s${i}]`).join('')
  const chains = profiles.map((p, i) => {
    const fps = p.fps > 0 ? `fps=${p.fps}/${p.fpsDen ?? 1},` : ''
    // One decode, split N ways; setsar=1 so players show the profile's exact frame size.
    return `[s${i}]${fps}scale=${even(p.width)}:${even(p.height)},setsar=1,format=yuv420p[o${i}]`
  })
  const args = [
    ...inputArgs(input),
    '-filter_complex',
    `[0:v]split=${n}${labels};${chains.join(';')}`
  ]
  profiles.forEach((_, i) => {
    args.push('-map', `[o${i}]`)
    if (src.hasAudio) args.push('-map', '0:a:0')
  })
  args.push('-c:v', 'libx264', '-preset', X264_PRESET, '-sc_threshold', '0', '-bf', '0')
  profiles.forEach((p, i) => {
    const [prof] = X264_PROFILE[p.profile ?? 'H264High']!
    const gop = gopSeconds(p)
    args.push(
      `-b:v:${i}`,
      String(p.bitrate),
      `-maxrate:v:${i}`,
      String(Math.round(p.bitrate * 1.1)),
      `-bufsize:v:${i}`,
      String(p.bitrate * 2),
      `-profile:v:${i}`,
      prof,
      `-level:v:${i}`,
      (h264Level(p.width, p.height, p.fps) / 10).toFixed(1),
      // Keyframes on the clock, not on frame counts: segments of every rendition line up (ABR
      // switching).
      ...(gop === 'intra'
        ? [`-g:v:${i}`, '1']
        : [`-force_key_frames:v:${i}`, `expr:gte(t,n_forced*${gop})`])
    )
  })
  if (src.hasAudio) args.push('-c:a', 'aac', '-b:a', String(AUDIO_BITRATE), '-ac', '2')
  const hlsTime = profiles.map(gopSeconds).find((g): g is number => g !== 'intra') ?? DEFAULT_GOP_S
  const map = profiles.map((_, i) => (src.hasAudio ? `v:${i},a:${i}` : `v:${i}`)).join(' ')
  return [
    ...args,
    ...hlsArgs({ seconds: hlsTime, append }),
    '-hls_segment_filename',
    join(out, 'v%v', 'seg%05d.ts'),
    '-var_stream_map',
    map,
    join(out, 'v%v', 'index.m3u8')
  ]
}

export function sourceRendition(src: SourceInfo): RenditionInfo {
  const w = src.width > 0 ? src.width : 1280
  const h = src.height > 0 ? src.height : 720
  const level = h264Level(w, h, 0) // the source's rate is unknown
  return {
    dir: SOURCE_DIR,
    name: 'source',
    width: w,
    height: h,
    bandwidth:
      Math.round((src.videoBitrate > 0 ? src.videoBitrate : 4_000_000) * 1.2) +
      (src.hasAudio ? AUDIO_BITRATE : 0),
    codecs: `avc1.6400${level.toString(16)}` + (src.hasAudio ? ',mp4a.40.2' : '')
  }
}

/**
 * The source recorder: the source as one rendition in source/, H.264 copied (no transcoding) when
 * it is H.264. `append` for a restart.
 */
export function sourceArgs(input: string, out: string, src: SourceInfo, append = false): string[] {
  const args = [...inputArgs(input), '-map', '0:v:0']
  if (src.hasAudio) args.push('-map', '0:a:0')
  if (src.videoIsH264) args.push('-c:v', 'copy')
  else
    args.push(
      '-c:v',
      'libx264',
      '-preset',
      X264_PRESET,
      '-force_key_frames',
      'expr:gte(t,n_forced*2)'
    )
  // AAC (what RTMP publishers send) is copied too: no transcoding at all for a stream without
  // profiles.
  if (src.hasAudio && src.audioIsAac) args.push('-c:a', 'copy')
  else if (src.hasAudio) args.push('-c:a', 'aac', '-b:a', String(AUDIO_BITRATE), '-ac', '2')
  return [
    ...args,
    ...hlsArgs({ seconds: DEFAULT_GOP_S, append }),
    '-hls_segment_filename',
    join(out, SOURCE_DIR, 'seg%05d.ts'),
    join(out, SOURCE_DIR, 'index.m3u8')
  ]
}

function inputArgs(input: string): string[] {
  return [
    // No -nostdin: stdin is how the studio asks ffmpeg to finish in order ('q'), on every OS.
    // The progress blocks' out_time_us feeds sourceSegmentsDuration.
    ...QUIET_WITH_PROGRESS,
    // Ends the pull when the ingest goes silent (studio stopped, publisher gone) instead of
    // hanging.
    '-rw_timeout',
    '5000000',
    '-i',
    input
  ]
}

function hlsArgs(o: { seconds: number; append: boolean }): string[] {
  const { seconds } = o
  return [
    '-f',
    'hls',
    '-hls_time',
    String(seconds),
    // event: the playlist keeps every segment (the recording is built from it) and gets ENDLIST at
    // the end.
    '-hls_playlist_type',
    'event',
    // temp_file: a segment appears under its name only once complete, so nothing half-written is
    // served.
    '-hls_flags',
    // program_date_time: each segment says the wall-clock time it starts at, so a live player can
    // tell how far behind live it is (the live monitor shows it).
    // append_list (a restart): the playlist goes on where the crashed attempt left it, its
    // segment numbers continue, and the join gets EXT-X-DISCONTINUITY (the timestamps restart).
    'independent_segments+temp_file+program_date_time' + (o.append ? '+append_list' : '')
  ]
}

/** Restarts after a crash: 1 s, 2 s, 4 s ... capped at 8 s, ±20 %. The publisher is still live. */
export const TRANSCODE_BACKOFF: Backoff = { initialMs: 1000, factor: 2, capMs: 8000, jitter: 0.2 }

/** One attempt's output: where it writes and how. */
export interface TranscoderAttempt {
  args: string[]
  renditions: RenditionInfo[]
  out: string
}

export interface TranscoderOptions {
  ffmpeg: string
  /** Attempt n's output (n is 1-based). A restart writes a fresh one: ffmpeg starts its media time at 0. */
  prepare: (n: number) => Promise<TranscoderAttempt>
  /** Whether the live source is still there to restart from after a crash. */
  restartable: () => boolean
  /** Attempt n's ffmpeg is running. */
  onStart?: (n: number, attempt: TranscoderAttempt) => void
  /** Media time written so far by the current attempt, in seconds (0 means nothing written yet). */
  onProgress: (seconds: number) => void
  /** Attempt n is writing media (showsMediaFlowing). */
  onFlowing?: (n: number) => void
  onExit?: (exit: FfmpegExit, next?: NextAttempt) => void
  backoff?: Backoff
  /**
   * Restart an attempt that failed before it ever wrote media too (the ladder: a pull that failed
   * once may work the next time). Default: only after media had flowed.
   */
  restartNeverUp?: boolean
  /** Media time not advancing for this long (unless excused) is a hung ffmpeg: killed, restarted. */
  stallMs?: number
  stallExcused?: () => boolean
}

export interface RunningTranscoder {
  /** The running attempt's ffmpeg pid. */
  readonly pid: number | undefined
  /** Resolves once the transcoding has ended for good: the last ffmpeg's exit code (null if killed, -1 if it never started). */
  done: Promise<number | null>
  /** Last stderr lines, stream keys redacted. */
  stderr: () => string[]
  /** No more restarts; the running ffmpeg ends by itself (its input closes). */
  endWithInput(): void
  /** Ends the run: 'q' first (ffmpeg closes its playlists), forced if it does not exit in time. */
  stop(graceMs?: number): Promise<void>
}

/**
 * One of the run's ffmpegs, supervised: one that crashes (any end but a clean one) after it had
 * written media (or at any time, with restartNeverUp), while the source is still live, is started
 * again after TRANSCODE_BACKOFF from the live source, with the arguments `prepare` gives it.
 */
export function startTranscoder(o: TranscoderOptions): RunningTranscoder {
  let current: TranscoderAttempt | undefined
  const ffmpeg = new SupervisedFfmpeg({
    ffmpeg: o.ffmpeg,
    args: async (n) => {
      const a = await o.prepare(n)
      await Promise.all(a.renditions.map((r) => mkdir(join(a.out, r.dir), { recursive: true })))
      current = a
      return a.args
    },
    backoff: o.backoff ?? TRANSCODE_BACKOFF,
    decide: (exit) =>
      exit.code !== 0 && (exit.everUp || o.restartNeverUp) && !exit.spawnError && o.restartable()
        ? 'restart'
        : 'give-up',
    onStart: (_child, n) => o.onStart?.(n, current!),
    // Media time written so far feeds the session's duration; 0 means nothing written yet.
    onProgress: (b) => {
      if (b.outTimeUs > 0) o.onProgress(b.outTimeUs / 1e6)
    },
    onFlowing: o.onFlowing,
    stallMs: o.stallMs,
    stallExcused: o.stallExcused,
    onExit: o.onExit
  })
  ffmpeg.start()
  return {
    get pid() {
      return ffmpeg.pid
    },
    done: ffmpeg.done.then((x) => (x.spawnError ? -1 : x.code)),
    stderr: () => ffmpeg.stderr(),
    endWithInput: () => void ffmpeg.stopWith(() => Promise.resolve()),
    stop: (graceMs = 5000) => ffmpeg.stop(graceMs)
  }
}

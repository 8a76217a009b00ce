// Pure builders for the broadcaster's ffmpeg command line. Every flag that is not obvious says why.
import type { LiveSource, OutputSettings } from '../../../shared/contract'
import { quietWithProgress } from '../../../node/ffmpeg/progress'
import { pushOutputArgs } from '../../../node/ffmpeg/push'
import { TONE_CHANNELS, TONE_RATE } from './tone-feed'
import {
  FFMPEG_INPUT_PACKETS,
  INTERLEAVE_DELTA_US,
  PROGRESS_PERIOD_S,
  sendBufferFor
} from './uplink/tuning'

export interface BroadcastArgsInput {
  source: LiveSource
  output: OutputSettings
  /** Full RTMP URL including the stream key: only ever passed to ffmpeg, never logged. */
  url: string
  /** libx264 preset for the encode path; veryfast leaves headroom on small machines. */
  preset?: string
  /**
   * Record on this computer, test pattern: the file this attempt also writes (called once per attempt).
   * The media path needs no flag here: main writes the renderer's bytes itself (local-recording/).
   */
  localFile?: () => string | undefined
  /**
   * Filters drawn over the test pattern as it is made (an ffmpeg filter chain): benchmarks paint the
   * wall clock into it with this, to measure the delay to a viewer.
   */
  testPatternOverlay?: string
}

/** MediaRecorder says what it produced in its mimeType: `video/webm;codecs=avc1.42E01F,opus`. */
export function isH264Mime(mimeType: string): boolean {
  return /avc1|h264/i.test(mimeType)
}

/** Whether the video can go out as it came in (H.264) or must be encoded. */
export function videoPath(source: LiveSource): 'copy' | 'encode' {
  return source.kind === 'media' && isH264Mime(source.mimeType) ? 'copy' : 'encode'
}

export function buildBroadcastArgs(input: BroadcastArgsInput): string[] {
  const { source, output } = input
  const args = [
    // Progress ten times a second (PROGRESS_PERIOD_S): the uplink's queue is judged, and stdin
    // paced, on ffmpeg's sent media time, which is at most one period old.
    ...quietWithProgress(PROGRESS_PERIOD_S)
    // stdin carries the media (the camera's chunks, or the test pattern's tone): its end is the
    // orderly stop, and the app's death ends it too (see tone-feed.ts).
  ]
  if (source.kind === 'test-pattern') {
    args.push(...testPatternInputs(output, input.testPatternOverlay))
  } else {
    args.push(
      // MediaRecorder timestamps can start anywhere and have gaps; regenerate missing ones.
      '-fflags',
      '+genpts',
      // Browser chunks are WebM/Matroska; saying so spares probing a pipe that cannot seek.
      '-f',
      'matroska',
      // Little waits inside ffmpeg: the uplink's queue lives in main, where it is measured and
      // dropped (media-feed.ts). (ffmpeg 5.1 reads a single input on its main thread anyway.)
      '-thread_queue_size',
      String(FFMPEG_INPUT_PACKETS),
      '-i',
      'pipe:0'
    )
  }
  args.push('-map', '0:v:0', '-map', source.kind === 'test-pattern' ? '1:a:0' : '0:a:0?')
  args.push(...videoArgs(videoPath(source), output, input.preset ?? 'veryfast'))
  args.push(...audioArgs(output, source))
  // The muxer interleaves by time and by default holds one stream up to 10 s waiting for the other.
  // The page's Matroska is interleaved already: a packet goes out as it comes (INTERLEAVE_DELTA_US),
  // not after the AAC encoder's lookahead, nor held with a late sound as delay main cannot see or drop.
  if (source.kind === 'media') args.push('-max_interleave_delta', String(INTERLEAVE_DELTA_US))
  // The test pattern ends with its tone: when the app stops writing it (a stop, or the app died).
  if (source.kind === 'test-pattern') args.push('-shortest')
  const file = source.kind === 'test-pattern' ? input.localFile?.() : undefined
  const sendBufferBytes =
    source.kind === 'media'
      ? sendBufferFor(output.videoBitrateKbps + output.audioBitrateKbps)
      : undefined
  args.push(
    ...(file ? teeOutputArgs(input.url, file) : pushOutputArgs(input.url, { sendBufferBytes }))
  )
  return args
}

/**
 * The push plus a local Matroska file from the one encode (the tee muxer): the file is exactly what is
 * sent. Its failure (a full disk) is ignored so the broadcast goes on; the push's failure ends ffmpeg as
 * usual. A cluster a second bounds what a crash can lose, and lets the file's growth stand in for the
 * output bitrate, which ffmpeg reports as N/A through the tee (supervisor outputBytes). The tee cannot ask each output for its codec headers, so they go in the global header, which
 * FLV and Matroska both want.
 */
export function teeOutputArgs(url: string, file: string): string[] {
  const push = pushOutputArgs(url)
  const target = push[push.length - 1]!
  // ['-f','flv','-flvflags','x','-rw_timeout','n'] -> f=flv:flvflags=x:rw_timeout=n
  const pairs: string[] = []
  for (let i = 0; i + 1 < push.length - 1; i += 2)
    pairs.push(`${push[i]!.replace(/^-/, '')}=${push[i + 1]!}`)
  return [
    '-flags',
    '+global_header',
    '-f',
    'tee',
    // onfail=abort said outright: ffmpeg 5.1 went on without a failed slave that did not say it.
    `[${['onfail=abort', ...pairs].join(':')}]${teeEscape(target)}|[f=matroska:onfail=ignore:cluster_time_limit=1000]${teeEscape(file)}`
  ]
}

/** The tee's special characters in a file name or URL are escaped with a backslash. */
const teeEscape = (s: string): string => s.replace(/[\\|[\]]/g, (c) => `\\${c}`)

function testPatternInputs(o: OutputSettings, overlay?: string): string[] {
  return [
    // -re paces the synthetic sources at real time, like a camera.
    '-re',
    '-f',
    'lavfi',
    '-i',
    `testsrc2=size=${o.width}x${o.height}:rate=${o.fps}` + (overlay ? `,${overlay}` : ''),
    // The tone comes from the app through stdin (ToneFeed), paced by the app in real time. Raw PCM
    // with its format given needs no probing: without these, ffmpeg waits ~0.8 s for probe data.
    '-probesize',
    '32',
    '-analyzeduration',
    '0',
    '-f',
    's16le',
    '-ar',
    String(TONE_RATE),
    '-ac',
    String(TONE_CHANNELS),
    '-i',
    'pipe:0'
  ]
}

function videoArgs(path: 'copy' | 'encode', o: OutputSettings, preset: string): string[] {
  if (path === 'copy') return ['-c:v', 'copy']
  const gop = Math.max(1, Math.round(o.fps * o.keyframeIntervalSec))
  const kbps = o.videoBitrateKbps
  return [
    '-c:v',
    'libx264',
    '-preset',
    preset,
    // No lookahead, no frame-threading delay: frames leave as they are made.
    '-tune',
    'zerolatency',
    '-pix_fmt',
    'yuv420p',
    // Scale to the chosen size and hold a constant frame rate (browser input is variable rate).
    '-vf',
    `scale=${o.width}:${o.height}:force_original_aspect_ratio=decrease,pad=${o.width}:${o.height}:-1:-1,setsar=1`,
    '-r',
    String(o.fps),
    '-b:v',
    `${kbps}k`,
    '-maxrate',
    `${kbps}k`,
    '-bufsize',
    `${kbps * 2}k`,
    // A keyframe every keyframeIntervalSec exactly: segmenters cut on them, so no scene-cut extras.
    '-g',
    String(gop),
    '-keyint_min',
    String(gop),
    '-sc_threshold',
    '0',
    // No B-frames: RTMP ingests and low-latency players expect pts = dts order.
    '-bf',
    '0'
  ]
}

/** AAC already (Onair's encoder makes it at the Output's rate): copied, so nothing encodes it twice. */
export const isAacMime = (mimeType: string): boolean => /mp4a|aac/i.test(mimeType)

function audioArgs(o: OutputSettings, source: LiveSource): string[] {
  if (source.kind === 'media' && isAacMime(source.mimeType)) return ['-c:a', 'copy']
  return ['-c:a', 'aac', '-b:a', `${o.audioBitrateKbps}k`, '-ar', '48000', '-ac', '2']
}

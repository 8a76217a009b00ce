// An uploaded file becomes an asset's HLS (and its MP4, made from the HLS as a clip's is): H.264
// video and AAC or MP3 sound are copied as they are (a local copy of Onair's goes through in
// seconds), anything else is encoded to H.264/AAC. ffmpeg reads the file first (`ffmpeg -i`, whose
// report names the streams and the duration), so a file that is not a video fails with that cause.
import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { runChild } from '../../node/process'
import { parseMediaPlaylist } from '../recordings'

export interface MediaInfo {
  /** The first video stream's codec (h264, vp8, hevc...), if there is one. */
  video?: string
  audio?: string
  /** Seconds, when the container says. */
  duration?: number
}

/** What `ffmpeg -i FILE` reports: the first video and audio streams' codecs and the duration. */
export function parseProbe(stderr: string): MediaInfo {
  const info: MediaInfo = {}
  const d = /Duration:\s*(\d+):(\d{2}):(\d{2}(?:\.\d+)?)/.exec(stderr)
  if (d) info.duration = Number(d[1]) * 3600 + Number(d[2]) * 60 + Number(d[3])
  const v = /Stream #\d+:\d+[^:]*: Video: ([A-Za-z0-9_]+)/.exec(stderr)
  if (v) info.video = v[1]!.toLowerCase()
  const a = /Stream #\d+:\d+[^:]*: Audio: ([A-Za-z0-9_]+)/.exec(stderr)
  if (a) info.audio = a[1]!.toLowerCase()
  return info
}

/** The file's streams, or why ffmpeg cannot read it. */
export async function probeMedia(ffmpeg: string, file: string): Promise<MediaInfo | string> {
  const r = await runChild(ffmpeg, ['-hide_banner', '-i', file], { timeoutMs: 60_000 })
  if (r.error && r.code === null) return `ffmpeg could not read the file (${r.error.message})`
  const info = parseProbe(r.stderr)
  if (!info.video) {
    const why = /Invalid data found|could not find codec parameters|moov atom not found/i.exec(
      r.stderr
    )
    return why
      ? `the file is not a video ffmpeg can read (${why[0]})`
      : 'the file has no video stream'
  }
  return info
}

/** ffmpeg's arguments for the HLS of `file` in `out` (index.m3u8 and s00000.ts...). */
export function hlsArgs(file: string, out: string, info: MediaInfo, playlist: string): string[] {
  const copyVideo = info.video === 'h264'
  const copyAudio = info.audio === 'aac' || info.audio === 'mp3'
  return [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-i',
    file,
    '-map',
    '0:v:0',
    '-map',
    '0:a:0?',
    ...(copyVideo
      ? ['-c:v', 'copy']
      : ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', '-pix_fmt', 'yuv420p']),
    ...(copyAudio ? ['-c:a', 'copy'] : ['-c:a', 'aac', '-b:a', '160k']),
    '-f',
    'hls',
    '-hls_time',
    '4',
    '-hls_playlist_type',
    'vod',
    '-hls_list_size',
    '0',
    '-hls_segment_filename',
    join(out, 's%05d.ts'),
    join(out, playlist)
  ]
}

/**
 * Writes the HLS; answers its length in seconds (the playlist's segments), or throws with
 * ffmpeg's cause. A copy takes seconds; an encode is given four times the media's length.
 */
export async function makeHls(
  ffmpeg: string,
  file: string,
  out: string,
  info: MediaInfo,
  playlist: string
): Promise<number> {
  const copy = info.video === 'h264'
  const media = info.duration ?? 6 * 3600
  const timeoutMs = 120_000 + Math.round(media * (copy ? 100 : 4000))
  const r = await runChild(ffmpeg, hlsArgs(file, out, info, playlist), { timeoutMs })
  if (r.code !== 0 || r.error) {
    await rm(join(out, playlist), { force: true })
    const said = r.stderr.trim().split('\n').slice(-2).join(' ').slice(0, 300)
    throw new Error(
      `ffmpeg could not make the HLS: ${r.error?.message ?? said ?? `exit ${r.code}`}`
    )
  }
  const segments = parseMediaPlaylist(await readFile(join(out, playlist), 'utf8'))
  if (segments.length === 0) throw new Error('ffmpeg made no segment: the file holds no frames')
  return Math.round(segments.reduce((t, s) => t + s.duration, 0) * 1000) / 1000
}

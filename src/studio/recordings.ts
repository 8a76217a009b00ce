// Media layout and recording assembly. Each publish run of a session writes its own HLS ladder into
// media/<sessionId>/run<k>/ (ffmpeg's event playlists, v<i>/index.m3u8); when the session ends (or
// a later start finds it left open by a crash) the runs become one VOD set at media/<sessionId>/:
// index.m3u8 (master) + v<i>.m3u8 (each rendition, runs joined by EXT-X-DISCONTINUITY,
// EXT-X-ENDLIST), plus an MP4 of the source. Only segments a playlist lists are used: those are
// complete. A restart inside a run (a crashed ffmpeg) left a discontinuity in that run's playlist,
// and it is kept; the segments' wall-clock times go along, so a player lines renditions up across
// a rendition's gap.
import { existsSync } from 'node:fs'
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { runChild } from '../node/process'
import { MP4_NAME } from './session-store'

export interface RenditionInfo {
  /** Directory of the rendition inside a run, `v0`, `v1`... (profile names are free text). */
  dir: string
  name: string
  width: number
  height: number
  /** Peak bits per second, audio included, for BANDWIDTH. */
  bandwidth: number
  codecs: string
}

/** The source rendition's directory in a run (beside the ladder's v<i>), and its VOD playlist. */
export const SOURCE_DIR = 'source'
const SOURCE_PLAYLIST = `${SOURCE_DIR}.m3u8`

export const mediaDir = (dataDir: string): string => join(dataDir, 'media')
export const sessionDir = (dataDir: string, sessionId: string): string =>
  join(mediaDir(dataDir), sessionId)
export const runDir = (dataDir: string, sessionId: string, run: number): string =>
  join(sessionDir(dataDir, sessionId), `run${run}`)

export function masterPlaylist(
  renditions: RenditionInfo[],
  uri: (r: RenditionInfo) => string
): string {
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-INDEPENDENT-SEGMENTS']
  for (const r of renditions) {
    // NAME is not a standard attribute of EXT-X-STREAM-INF (players ignore it), but hls.js reads it:
    // the quality menu tells the source from a rendition of the same size, and names profiles.
    // A quoted string cannot hold '"' or a line break.
    const name = r.name.replace(/["\r\n]/g, "'").slice(0, 200)
    lines.push(
      `#EXT-X-STREAM-INF:BANDWIDTH=${r.bandwidth},RESOLUTION=${r.width}x${r.height},CODECS="${r.codecs}",NAME="${name}"`,
      uri(r)
    )
  }
  return lines.join('\n') + '\n'
}

export async function writeRunRenditions(dir: string, renditions: RenditionInfo[]): Promise<void> {
  await writeFile(join(dir, 'renditions.json'), JSON.stringify(renditions))
}

/** The live master of a run; written once the first rendition playlist exists, so it never 404s. */
export async function writeRunMaster(dir: string, renditions: RenditionInfo[]): Promise<void> {
  const tmp = join(dir, 'index.m3u8.tmp')
  await writeFile(
    tmp,
    masterPlaylist(renditions, (r) => `${r.dir}/index.m3u8`)
  )
  await rename(tmp, join(dir, 'index.m3u8'))
}

export interface Segment {
  duration: number
  uri: string
  /** EXT-X-DISCONTINUITY before this segment (its timestamps start over). */
  discontinuity?: true
  /** Its EXT-X-PROGRAM-DATE-TIME. */
  dateTime?: string
}

export function parseMediaPlaylist(text: string): Segment[] {
  const out: Segment[] = []
  let pending: number | undefined
  let discontinuity = false
  let dateTime: string | undefined
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    const m = /^#EXTINF:([\d.]+)/.exec(line)
    if (m) pending = Number(m[1])
    else if (line === '#EXT-X-DISCONTINUITY') discontinuity = true
    else if (line.startsWith('#EXT-X-PROGRAM-DATE-TIME:'))
      dateTime = line.slice('#EXT-X-PROGRAM-DATE-TIME:'.length)
    else if (line && !line.startsWith('#') && pending !== undefined) {
      const seg: Segment = { duration: pending, uri: line }
      if (discontinuity) seg.discontinuity = true
      if (dateTime) seg.dateTime = dateTime
      out.push(seg)
      pending = undefined
      discontinuity = false
      dateTime = undefined
    }
  }
  return out
}

async function runsOf(dir: string): Promise<number[]> {
  let names: string[] = []
  try {
    names = await readdir(dir)
  } catch {
    return []
  }
  return names
    .map((n) => /^run(\d+)$/.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b)
}

async function readRenditions(dir: string, runs: number[]): Promise<RenditionInfo[] | undefined> {
  for (const k of runs) {
    try {
      return JSON.parse(
        await readFile(join(dir, `run${k}`, 'renditions.json'), 'utf8')
      ) as RenditionInfo[]
    } catch {
      // that run never got as far as starting its transcoder; try the next
    }
  }
  return undefined
}

async function segmentsOf(dir: string, run: number, rendition: string): Promise<Segment[]> {
  const prefix = `run${run}/${rendition}/`
  try {
    const text = await readFile(join(dir, prefix, 'index.m3u8'), 'utf8')
    return parseMediaPlaylist(text)
      .filter((s) => /^[A-Za-z0-9_-]+\.ts$/.test(s.uri) && existsSync(join(dir, prefix, s.uri)))
      .map((s) => ({ ...s, uri: prefix + s.uri }))
  } catch {
    return []
  }
}

export function vodPlaylist(parts: Segment[][]): string {
  const all = parts.flat()
  const target = Math.max(1, ...all.map((s) => Math.ceil(s.duration)))
  const lines = [
    '#EXTM3U',
    '#EXT-X-VERSION:3',
    '#EXT-X-PLAYLIST-TYPE:VOD',
    `#EXT-X-TARGETDURATION:${target}`,
    '#EXT-X-MEDIA-SEQUENCE:0',
    '#EXT-X-INDEPENDENT-SEGMENTS'
  ]
  let first = true
  for (const segs of parts) {
    segs.forEach((s, i) => {
      // Each run restarts its timestamps, and so does a restart inside a run: tell the player so it
      // does not stall at the join.
      if (!first && (i === 0 || s.discontinuity)) lines.push('#EXT-X-DISCONTINUITY')
      first = false
      if (s.dateTime) lines.push(`#EXT-X-PROGRAM-DATE-TIME:${s.dateTime}`)
      lines.push(`#EXTINF:${s.duration.toFixed(6)},`, s.uri)
    })
  }
  lines.push('#EXT-X-ENDLIST')
  return lines.join('\n') + '\n'
}

export interface Assembled {
  ok: boolean
  /** Seconds of media in the first usable rendition (the source). */
  duration: number
}

/**
 * The segments of a session's best rendition (the source; for a recording from before the source was
 * recorded apart, its first rendition), one list per run, URIs relative to the session's folder: what
 * is complete so far while live, the whole recording after.
 */
export async function bestSegments(dir: string): Promise<Segment[][]> {
  const runs = await runsOf(dir)
  const renditions = await readRenditions(dir, runs)
  const top = renditions?.find((r) => r.dir === SOURCE_DIR) ?? renditions?.[0]
  if (!top) return []
  return Promise.all(runs.map((k) => segmentsOf(dir, k, top.dir)))
}

/** Builds the VOD set of a session from its runs. ok=false when no segment was ever completed. */
export async function assembleRecording(dir: string): Promise<Assembled> {
  const runs = await runsOf(dir)
  const renditions = await readRenditions(dir, runs)
  if (!renditions || renditions.length === 0) return { ok: false, duration: 0 }
  let duration = 0
  const usable: RenditionInfo[] = []
  for (const [i, r] of renditions.entries()) {
    const parts = await Promise.all(runs.map((k) => segmentsOf(dir, k, r.dir)))
    const segs = parts.flat()
    if (segs.length === 0) continue
    if (i === 0 || usable.length === 0) duration = segs.reduce((t, s) => t + s.duration, 0)
    await writeFile(join(dir, `${r.dir}.m3u8`), vodPlaylist(parts))
    usable.push(r)
  }
  if (usable.length === 0) return { ok: false, duration: 0 }
  await writeFile(
    join(dir, 'index.m3u8'),
    masterPlaylist(usable, (r) => `${r.dir}.m3u8`)
  )
  return { ok: true, duration }
}

/**
 * Remuxes the best rendition to MP4 (no re-encode): the source, which the master lists first
 * (a recording from before the source was recorded apart: its first rendition). Resolves false
 * when ffmpeg could not.
 */
export async function makeMp4(dir: string, ffmpeg: string, timeoutMs = 120_000): Promise<boolean> {
  const master = await readFile(join(dir, 'index.m3u8'), 'utf8').catch(() => '')
  const listed = master.split('\n').filter((l) => l.endsWith('.m3u8'))
  const top = listed.find((l) => l === SOURCE_PLAYLIST) ?? listed[0]
  if (!top) return false
  return remux(dir, ffmpeg, top, MP4_NAME, timeoutMs)
}

/** Remuxes an HLS playlist in dir to an MP4 there (no re-encode); false when ffmpeg could not. */
export async function remux(
  dir: string,
  ffmpeg: string,
  playlist: string,
  name: string,
  timeoutMs: number
): Promise<boolean> {
  const tmp = join(dir, `${name}.tmp.mp4`)
  const r = await runChild(
    ffmpeg,
    // +faststart: the index goes first, so a browser can start playing the download at once.
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      '-i',
      join(dir, playlist),
      '-c',
      'copy',
      '-movflags',
      '+faststart',
      tmp
    ],
    { timeoutMs }
  )
  const ok = r.code === 0 && !r.error
  if (!ok) {
    await rm(tmp, { force: true })
    return false
  }
  await rename(tmp, join(dir, name))
  return true
}

/** One MP4 a recording offers for download: the source's (recording.mp4) and each rendition's. */
export interface Download {
  /** File name in the session's folder. */
  file: string
  name: string
  width: number
  height: number
  /** Peak bits per second, audio included. */
  bitrate: number
}

/** What downloads a finished recording offers, written beside it (GET /playback lists them). */
export const DOWNLOADS_NAME = 'downloads.json'

/**
 * After makeMp4: an MP4 of every other rendition of the master (`<dir>.mp4`, no re-encode), and
 * downloads.json listing the MP4s that exist, the best first. Returns that list.
 */
export async function makeDownloads(
  dir: string,
  ffmpeg: string,
  timeoutMs = 120_000
): Promise<Download[]> {
  const renditions = (await readRenditions(dir, await runsOf(dir))) ?? []
  const master = await readFile(join(dir, 'index.m3u8'), 'utf8').catch(() => '')
  const listed = new Set(master.split('\n').filter((l) => l.endsWith('.m3u8')))
  const out: Download[] = []
  for (const r of renditions) {
    const playlist = `${r.dir}.m3u8`
    if (!listed.has(playlist)) continue
    const best = out.length === 0 && existsSync(join(dir, MP4_NAME))
    const file = best ? MP4_NAME : `${r.dir}.mp4`
    if (!best && !(await remux(dir, ffmpeg, playlist, file, timeoutMs))) continue
    out.push({ file, name: r.name, width: r.width, height: r.height, bitrate: r.bandwidth })
  }
  await writeFile(join(dir, DOWNLOADS_NAME), JSON.stringify(out))
  return out
}

/** The downloads a recording offers ([] for one made before they were listed). */
export async function readDownloads(dir: string): Promise<Download[]> {
  try {
    const list = JSON.parse(await readFile(join(dir, DOWNLOADS_NAME), 'utf8')) as Download[]
    return Array.isArray(list) ? list : []
  } catch {
    return []
  }
}

export async function removeSessionMedia(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true })
}

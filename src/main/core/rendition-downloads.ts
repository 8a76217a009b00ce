// Each rendition of a recording, saved as an MP4. The service keeps one MP4 per recording (the
// session's mp4Url: on Livepeer and in the local studio, the source); every rendition is listed in
// its HLS master playlist (the session's recordingUrl, which the player loads). A rendition is saved
// by remuxing its playlist to MP4 with ffmpeg (no re-encode), into the file the shell chose. Only a
// playlist this module read from the session's own master playlist is ever fetched.
import { rename, rm } from 'node:fs/promises'
import type { RecordingDownload, SessionView } from '../../shared/contract'
import { AppFailure, type AppError } from '../../shared/result'
import { runChild } from '../../node/process'
import { recordingFileName } from './download-name'

export interface MasterVariant {
  /** The rendition's playlist, absolute (resolved against the master's URL). */
  url: string
  bandwidth: number
  width?: number
  height?: number
  name?: string
}

const attr = (line: string, key: string): string | undefined => {
  const m = new RegExp(`(?:^|,)${key}=("([^"]*)"|[^,]*)`).exec(line)
  return m ? (m[2] ?? m[1]) : undefined
}

/** The variants of an HLS master playlist, in its order, each with its playlist's absolute URL. */
export function parseMasterPlaylist(text: string, masterUrl: string): MasterVariant[] {
  const lines = text.split(/\r?\n/).map((l) => l.trim())
  const out: MasterVariant[] = []
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (!line.startsWith('#EXT-X-STREAM-INF:')) continue
    const uri = lines.slice(i + 1).find((l) => l !== '' && !l.startsWith('#'))
    if (!uri) continue
    const info = line.slice('#EXT-X-STREAM-INF:'.length)
    const [w, h] = (attr(info, 'RESOLUTION') ?? '').split('x').map(Number)
    let url: string
    try {
      url = new URL(uri, masterUrl).href
    } catch {
      continue
    }
    out.push({
      url,
      bandwidth: Number(attr(info, 'BANDWIDTH')) || 0,
      ...(w && h ? { width: w, height: h } : {}),
      ...(attr(info, 'NAME') ? { name: attr(info, 'NAME') } : {})
    })
  }
  return out
}

/** How a rendition is named in its file: "720p", else its NAME, else its place in the ladder. */
export const renditionTag = (v: MasterVariant, index: number): string =>
  v.height ? `${v.height}p` : (v.name ?? `rendition ${index + 1}`)

export interface RenditionDownloadsOptions {
  ffmpeg: () => string
  /** Reading the master playlist. */
  fetchTimeoutMs?: number
  /** The whole remux (a long recording over a slow network takes a while). */
  remuxTimeoutMs?: number
}

/** A failure of save() as the shells pass it on (an unexpected one in plain words, no stack). */
export const saveFailure = (e: unknown): AppError =>
  e instanceof AppFailure
    ? e.error
    : { code: 'internal', message: 'The rendition could not be saved as MP4.' }

export class RenditionDownloads {
  /** Playlists handed out by prepare(): the only ones save() fetches. */
  private issued = new Set<string>()

  constructor(private readonly o: RenditionDownloadsOptions) {}

  /** Checks that `rendition` is one of the session's recording's renditions, and names its file. */
  async prepare(s: SessionView, rendition: string): Promise<RecordingDownload> {
    if (!s.recordingUrl || s.recordingStatus !== 'ready')
      throw new AppFailure({
        code: 'not-found',
        message: 'This session has no recording to save yet.',
        hint: 'Wait until its recording is ready, then try again.'
      })
    const variants = await this.variants(s.recordingUrl)
    const asked = URL.canParse(rendition) ? new URL(rendition).href : rendition
    const index = variants.findIndex((v) => v.url === asked)
    if (index < 0)
      throw new AppFailure({
        code: 'bad-request',
        field: 'rendition',
        message: "That rendition is not one of this recording's."
      })
    const v = variants[index]!
    this.issued.add(v.url)
    return {
      url: v.url,
      filename: recordingFileName(s.name, s.createdAt, renditionTag(v, index)),
      format: 'hls'
    }
  }

  /** Remuxes a rendition prepare() named into `file` (written beside it first, then renamed). */
  async save(url: string, file: string): Promise<void> {
    if (!this.issued.has(url))
      throw new AppFailure({
        code: 'bad-request',
        message: 'Only a rendition of a recording can be saved this way.'
      })
    const part = `${file}.part`
    const r = await runChild(
      this.o.ffmpeg(),
      // +faststart: the index goes first, so the file plays at once wherever it is opened.
      ['-hide_banner', '-loglevel', 'error', '-y', '-i', url, '-c', 'copy'].concat([
        '-movflags',
        '+faststart',
        '-f',
        'mp4',
        part
      ]),
      { timeoutMs: this.o.remuxTimeoutMs ?? 30 * 60_000 }
    )
    if (r.code !== 0 || r.error) {
      await rm(part, { force: true })
      const why = r.error?.message ?? r.stderr.trim().split('\n').pop() ?? `exit ${r.code}`
      throw new AppFailure({
        code: 'ffmpeg-failed',
        message: `The rendition could not be saved as MP4: ${why}.`,
        hint: 'Check the connection and try again.'
      })
    }
    await rename(part, file)
  }

  private async variants(masterUrl: string): Promise<MasterVariant[]> {
    let text: string
    try {
      const res = await fetch(masterUrl, {
        signal: AbortSignal.timeout(this.o.fetchTimeoutMs ?? 15_000)
      })
      if (!res.ok) throw new Error(`HTTP ${res.status}`)
      text = await res.text()
    } catch (e) {
      throw new AppFailure({
        code: 'network',
        message: `The recording's playlist could not be read: ${(e as Error).message}.`,
        hint: 'Check the connection and try again.'
      })
    }
    return parseMasterPlaylist(text, masterUrl)
  }
}

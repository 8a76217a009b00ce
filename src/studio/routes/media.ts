// Read-only media from the data dir: live HLS by playbackId and recordings by session id. Only
// names this studio writes are accepted (letters, digits, - and _, one known extension, at most 3
// levels), so nothing outside the data dir, and no database or log file inside it, can be reached.
import { createReadStream } from 'node:fs'
import { readFile, stat } from 'node:fs/promises'
import { join, resolve, sep } from 'node:path'
import type { ServerResponse } from 'node:http'
import type { StudioContext } from '../context'
import { corsHeaders, sendError, type Req, type Router } from '../http'
import { getSession } from '../session-store'
import { getAssetByPlaybackId } from '../asset-store'
import { clipDir } from '../clips'
import { mediaDir } from '../recordings'
import { MONITOR_PARAM, MONITOR_VALUE } from '../../shared/viewers'
import { tagMaster, VIEWER_PARAM, viewerInfo } from '../viewers'
import { MEDIA_START_ATTR, MEDIA_START_DATERANGE } from '../../shared/live-state'

const TYPES: Record<string, string> = {
  m3u8: 'application/vnd.apple.mpegurl',
  ts: 'video/mp2t',
  mp4: 'video/mp4'
}
const NAME = /^[A-Za-z0-9_-]{1,64}$/
const FILE = /^([A-Za-z0-9_-]{1,64})\.(m3u8|ts|mp4)$/

/** The relative file path, or undefined when the name is not one we could have written. */
export function safeRelative(rest: string): string[] | undefined {
  const parts = rest.split('/')
  if (parts.length < 1 || parts.length > 3) return undefined
  const file = parts[parts.length - 1]!
  if (!FILE.test(file)) return undefined
  if (!parts.slice(0, -1).every((p) => NAME.test(p))) return undefined
  return parts
}

async function sendFile(
  req: Req,
  res: ServerResponse,
  root: string,
  parts: string[]
): Promise<void> {
  const full = resolve(root, ...parts)
  if (!full.startsWith(resolve(root) + sep)) return sendError(res, 404, 'not found')
  let size: number
  try {
    const st = await stat(full)
    if (!st.isFile()) return sendError(res, 404, 'not found')
    size = st.size
  } catch {
    return sendError(res, 404, 'not found')
  }
  const ext = FILE.exec(parts[parts.length - 1]!)![2]!
  res.writeHead(200, {
    ...corsHeaders(),
    'Content-Type': TYPES[ext]!,
    'Content-Length': size,
    // Live playlists change every segment, so they are never kept; segments and finished recordings
    // never change (a live segment's address names its run: underRun()).
    'Cache-Control': ext === 'm3u8' ? 'no-store' : 'max-age=3600'
  })
  if (req.method === 'HEAD') {
    res.end()
    return
  }
  const s = createReadStream(full)
  s.on('error', () => res.destroy())
  s.pipe(res)
}

/** How long a live master request waits for a run's first playlist (players 404 on a missing master). */
const MASTER_WAIT_MS = 10_000
/** At most this many master requests wait at once; more are answered at once. */
const MAX_MASTER_WAITERS = 64

/**
 * The live master of a run, read once it is written. A viewer who opens the stream in the seconds
 * between go-live and the first segment waits for it instead of getting a 404, which players (hls.js)
 * do not retry. Undefined when the run ended first or the wait ran out.
 */
async function readMaster(
  file: string,
  stillLive: () => boolean,
  waiting: { n: number }
): Promise<string | undefined> {
  const first = await readFile(file, 'utf8').catch(() => undefined)
  if (first !== undefined || waiting.n >= MAX_MASTER_WAITERS) return first
  waiting.n++
  try {
    const until = Date.now() + MASTER_WAIT_MS
    while (Date.now() < until && stillLive()) {
      await new Promise((r) => setTimeout(r, 200))
      const text = await readFile(file, 'utf8').catch(() => undefined)
      if (text !== undefined) return text
    }
    return undefined
  } finally {
    waiting.n--
  }
}

/** The master's URIs under the run's token, so each run's media has addresses of its own. */
export function underRun(master: string, token: string): string {
  return master
    .split('\n')
    .map((line) => (line.trim() === '' || line.startsWith('#') ? line : `${token}/${line}`))
    .join('\n')
}

/**
 * A live media playlist that says where it begins in the publisher's media (ms): an EXT-X-DATERANGE
 * (MEDIA_START_DATERANGE) at its first segment's date, before that segment. The live monitor counts
 * its delay from it (shared/live-state.ts mediaBehind). Unchanged until the first segment is listed.
 */
export function withMediaStart(playlist: string, startMs: number): string {
  const lines = playlist.split('\n')
  const at = lines.findIndex((l) => l.startsWith('#EXT-X-PROGRAM-DATE-TIME:'))
  if (at < 0) return playlist
  const date = lines[at]!.slice('#EXT-X-PROGRAM-DATE-TIME:'.length).trim()
  lines.splice(
    at,
    0,
    `#EXT-X-DATERANGE:ID="${MEDIA_START_DATERANGE}",START-DATE="${date}",${MEDIA_START_ATTR}=${Math.round(startMs)}`
  )
  return lines.join('\n')
}

function sendPlaylist(res: ServerResponse, text: string): void {
  const body = Buffer.from(text)
  res.writeHead(200, {
    ...corsHeaders(),
    'Content-Type': TYPES.m3u8!,
    'Content-Length': body.length,
    // A live playlist is never kept: the next request is always the current one.
    'Cache-Control': 'no-store'
  })
  res.end(body)
}

export function mediaRoutes(router: Router, ctx: StudioContext): void {
  const waiting = { n: 0 }
  router.add('GET', /^\/hls\/([^/]*)\/(.*)$/, async (req, res) => {
    const [playbackId, rest] = req.params as [string, string]
    const parts = safeRelative(rest)
    const run = NAME.test(playbackId) && parts ? ctx.live.liveRun(playbackId) : undefined
    if (!run || !parts) return sendError(res, 404, 'not found')
    // The master: /hls/<playbackId>/index.m3u8, rewritten for the player that asked.
    if (parts.length === 1 && parts[0] === 'index.m3u8') {
      const master = await readMaster(
        join(run.dir, 'index.m3u8'),
        () => ctx.live.liveRun(playbackId)?.token === run.token,
        waiting
      )
      if (master === undefined) return sendError(res, 404, 'not found')
      const ours = underRun(master, run.token)
      // Onair's own live monitor is no viewer; anyone else starts a player session.
      const monitor = req.url.searchParams.get(MONITOR_PARAM) === MONITOR_VALUE
      return sendPlaylist(
        res,
        monitor
          ? ours
          : tagMaster(
              ours,
              ctx.viewers.start(playbackId, viewerInfo(req.raw.headers['user-agent']))
            )
      )
    }
    // The run's media: /hls/<playbackId>/<token>/<rendition>/<file>; another run's token is gone.
    if (parts.length !== 3 || parts[0] !== run.token) return sendError(res, 404, 'not found')
    const session = req.url.searchParams.get(VIEWER_PARAM)
    // A media playlist's reload keeps its player session watching.
    if (session && parts[2]!.endsWith('.m3u8')) ctx.viewers.touch(session, playbackId)
    const startMs = parts[2] === 'index.m3u8' ? run.mediaStartMs(parts[1]!) : undefined
    if (startMs !== undefined) {
      const text = await readFile(join(run.dir, parts[1]!, parts[2]!), 'utf8').catch(
        () => undefined
      )
      if (text === undefined) return sendError(res, 404, 'not found')
      return sendPlaylist(res, withMediaStart(text, startMs))
    }
    await sendFile(req, res, run.dir, parts.slice(1))
  })

  // A ready clip's own HLS and MP4, by the asset's playbackId (asset.playbackUrl, downloadUrl).
  router.add('GET', /^\/asset\/([^/]*)\/(.*)$/, async (req, res) => {
    const [playbackId, rest] = req.params as [string, string]
    const parts = safeRelative(rest)
    const asset =
      NAME.test(playbackId) && parts ? getAssetByPlaybackId(ctx.db, playbackId) : undefined
    if (asset?.phase !== 'ready' || !parts || parts.length !== 1)
      return sendError(res, 404, 'not found')
    await sendFile(req, res, clipDir(ctx.dataDir, asset.id), parts)
  })

  router.add('GET', /^\/recordings\/([^/]*)\/(.*)$/, async (req, res) => {
    const [sessionId, rest] = req.params as [string, string]
    const parts = safeRelative(rest)
    const session =
      /^[0-9a-f-]{36}$/.test(sessionId) && parts ? getSession(ctx.db, sessionId) : undefined
    if (!session?.record || !parts) return sendError(res, 404, 'not found')
    await sendFile(req, res, join(mediaDir(ctx.dataDir), session.id), parts)
  })
}

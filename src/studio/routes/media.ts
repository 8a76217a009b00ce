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
import { clipDir, getAssetByPlaybackId } from '../clips'
import { mediaDir } from '../recordings'
import { MONITOR_PARAM, MONITOR_VALUE } from '../../shared/viewers'
import { tagMaster, VIEWER_PARAM, viewerInfo } from '../viewers'

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
    // Live playlists change every segment; segments and finished recordings never change.
    'Cache-Control': ext === 'm3u8' ? 'no-cache' : 'max-age=3600'
  })
  if (req.method === 'HEAD') {
    res.end()
    return
  }
  const s = createReadStream(full)
  s.on('error', () => res.destroy())
  s.pipe(res)
}

/** A live master playlist, rewritten for the one player that asked (never cached). */
async function sendMaster(
  res: ServerResponse,
  file: string,
  rewrite: (master: string) => string
): Promise<void> {
  let master: string
  try {
    master = await readFile(file, 'utf8')
  } catch {
    return sendError(res, 404, 'not found')
  }
  const body = Buffer.from(rewrite(master))
  res.writeHead(200, {
    ...corsHeaders(),
    'Content-Type': TYPES.m3u8!,
    'Content-Length': body.length,
    'Cache-Control': 'no-cache'
  })
  res.end(body)
}

export function mediaRoutes(router: Router, ctx: StudioContext): void {
  router.add('GET', /^\/hls\/([^/]*)\/(.*)$/, async (req, res) => {
    const [playbackId, rest] = req.params as [string, string]
    const parts = safeRelative(rest)
    const dir = NAME.test(playbackId) && parts ? ctx.live.liveDir(playbackId) : undefined
    if (!dir || !parts) return sendError(res, 404, 'not found')
    const session = req.url.searchParams.get(VIEWER_PARAM)
    // A media playlist's reload keeps its player session watching.
    if (session && parts.length === 2 && parts[1]!.endsWith('.m3u8'))
      ctx.viewers.touch(session, playbackId)
    if (parts.length === 1 && parts[0] === 'index.m3u8' && req.method === 'GET') {
      const monitor = req.url.searchParams.get(MONITOR_PARAM) === MONITOR_VALUE
      if (!monitor && !(session && ctx.viewers.touch(session, playbackId)))
        return sendMaster(res, join(dir, 'index.m3u8'), (master) =>
          tagMaster(
            master,
            ctx.viewers.start(playbackId, viewerInfo(req.raw.headers['user-agent']))
          )
        )
    }
    await sendFile(req, res, dir, parts)
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

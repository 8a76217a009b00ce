// Routes without auth, as the reference: /api/ingest and /api/playback/{id}.
import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { StudioContext } from '../context'
import type { Router } from '../http'
import { readDownloads, sessionDir } from '../recordings'
import { getSession } from '../session-store'
import { CLIP_MP4, CLIP_PLAYLIST, getAssetByPlaybackId } from '../asset-store'
import { getStreamByPlaybackId } from '../stream-store'
import { HttpError } from '../validate'

const HLS = { hrn: 'HLS (TS)', type: 'html5/application/vnd.apple.mpegurl' }
const MP4 = { hrn: 'MP4', type: 'html5/video/mp4' }
/** WHEP at {base}/webrtc/{playbackId}, listed after HLS as Livepeer lists it. */
const WEBRTC = { hrn: 'WebRTC (H264)', type: 'html5/video/h264' }

export function publicRoutes(router: Router, ctx: StudioContext): void {
  router.add('GET', /^\/api\/ingest\/?$/, async () => {
    const base = ctx.base()
    const rtmp = ctx.rtmpUrl()
    return {
      status: 200,
      body: [{ ingest: rtmp, ingests: { rtmp }, playback: `${base}/hls`, base }]
    }
  })

  router.add('GET', /^\/api\/playback\/([^/]{1,200})$/, async (req) => {
    const id = req.params[0]!
    const base = ctx.base()
    const stream = getStreamByPlaybackId(ctx.db, id)
    if (stream && !stream.doc.suspended) {
      return {
        status: 200,
        body: {
          type: 'live',
          meta: {
            live: stream.isActive ? 1 : 0,
            ...(stream.doc.playbackPolicy ? { playbackPolicy: stream.doc.playbackPolicy } : {}),
            source: [
              { ...HLS, url: `${base}/hls/${stream.playbackId}/index.m3u8` },
              { ...WEBRTC, url: `${base}/webrtc/${stream.playbackId}` }
            ]
          }
        }
      }
    }
    // A session id with a ready recording plays as a recording (the reference's resolution order).
    const session = /^[0-9a-f-]{36}$/.test(id) ? getSession(ctx.db, id) : undefined
    if (session?.record && session.recordingStatus === 'ready') {
      const dir = sessionDir(ctx.dataDir, session.id)
      // Then an MP4 per rendition, the source first, as the reference lists its static MP4s.
      const mp4s = await Promise.all(
        (await readDownloads(dir)).map(async (d) => ({
          ...MP4,
          url: `${base}/recordings/${session.id}/${d.file}`,
          size: (await stat(join(dir, d.file)).catch(() => undefined))?.size ?? 0,
          width: d.width,
          height: d.height,
          bitrate: d.bitrate
        }))
      )
      return {
        status: 200,
        body: {
          type: 'recording',
          meta: {
            source: [{ ...HLS, url: `${base}/recordings/${session.id}/index.m3u8` }, ...mp4s]
          }
        }
      }
    }
    // A ready clip plays as a VOD asset: its HLS, then its MP4.
    const asset = getAssetByPlaybackId(ctx.db, id)
    if (asset?.phase === 'ready') {
      const url = `${base}/asset/${asset.playbackId}`
      return {
        status: 200,
        body: {
          type: 'vod',
          meta: {
            source: [
              { ...HLS, url: `${url}/${CLIP_PLAYLIST}` },
              { ...MP4, url: `${url}/${CLIP_MP4}`, size: asset.size ?? 0 }
            ]
          }
        }
      }
    }
    throw new HttpError(404, `No playback URL found for ${id.slice(0, 100)}`)
  })
}

// The HTTP side: the API under /api, live HLS under /hls, recordings under /recordings.
import { createServer, type Server } from 'node:http'
import type { StudioContext } from './context'
import { answerClientErrors, MAX_HEADER_BYTES, Router, sendError } from './http'
import { clipRoutes } from './routes/clips'
import { mediaRoutes } from './routes/media'
import { multistreamRoutes } from './routes/multistream'
import { publicRoutes } from './routes/public'
import { sessionRoutes } from './routes/sessions'
import { streamRoutes, streamTargetRoutes } from './routes/streams'
import { viewRoutes } from './routes/viewer-counts'
import { webhookRoutes } from './routes/webhooks'
import { webrtcRoutes } from './routes/webrtc'
import { uploadRoutes } from './routes/uploads'
import type { Uploads } from './uploads/uploads'

export function createApiServer(ctx: StudioContext, uploads?: Uploads): Server {
  const router = new Router()
  streamRoutes(router, ctx)
  streamTargetRoutes(router, ctx)
  multistreamRoutes(router, ctx)
  sessionRoutes(router, ctx)
  publicRoutes(router, ctx)
  viewRoutes(router, ctx)
  if (uploads) uploadRoutes(router, ctx, uploads)
  clipRoutes(router, ctx)
  webhookRoutes(router, ctx)
  mediaRoutes(router, ctx)
  if (ctx.webrtc) webrtcRoutes(router, ctx, ctx.webrtc)
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
    router.handle(req, res, ctx.log).catch((err: Error) => {
      ctx.log(`studio: request failed: ${err.message}`)
      sendError(res, 500, 'Internal server error')
    })
  })
  answerClientErrors(server)
  // Slow or idle clients must not hold sockets forever (the app and tests open many).
  server.requestTimeout = 30_000
  server.keepAliveTimeout = 5_000
  return server
}

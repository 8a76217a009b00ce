// WHIP and WHEP at the URLs Livepeer uses: {base}/webrtc/{streamKey} publishes, {base}/webrtc/{playbackId}
// plays. POST an SDP offer (application/sdp), get 201 with the answer and a Location to DELETE. A HEAD
// answers with the Location to POST to (Livepeer's HEAD redirects to a regional node; here it is the
// same URL). No key is needed: the stream key is the publish credential, the playbackId is public.
import type { ServerResponse } from 'node:http'
import { readBody } from '../../node/http'
import type { StudioContext } from '../context'
import { corsHeaders, type Router } from '../http'
import { getStreamByKey, getStreamByPlaybackId } from '../stream-store'
import { HttpError } from '../validate'
import type { WebRtcHub } from '../webrtc/hub'
import { WebRtcError } from '../webrtc/hub'
import { checkOfferText, PLAYBACK_ID_SHAPE, STREAM_KEY_SHAPE } from '../webrtc/sdp'

/** An SDP offer is a few KiB; Chromium's with every codec is under 10. */
export const MAX_SDP_BYTES = 64 * 1024

const WEBRTC_CORS = {
  ...corsHeaders(),
  'Access-Control-Expose-Headers': 'Location, ETag, Link, Content-Length'
}

type Target = { kind: 'whip'; streamKey: string } | { kind: 'whep'; streamKey: string }

/** Which stream an id in /webrtc/{id} means: a stream key publishes, a playbackId plays. */
function targetOf(ctx: StudioContext, id: string): Target | undefined {
  if (STREAM_KEY_SHAPE.test(id)) {
    const s = getStreamByKey(ctx.db, id)
    if (s) return { kind: 'whip', streamKey: s.streamKey }
  }
  if (PLAYBACK_ID_SHAPE.test(id)) {
    const s = getStreamByPlaybackId(ctx.db, id)
    if (s && !s.deleted && !s.doc.suspended) return { kind: 'whep', streamKey: s.streamKey }
  }
  return undefined
}

async function offerOf(raw: import('node:http').IncomingMessage): Promise<string> {
  const type = String(raw.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase()
  if (type !== 'application/sdp')
    throw new HttpError(415, 'the offer must be sent as Content-Type: application/sdp')
  const body = await readBody(raw, MAX_SDP_BYTES).catch(() => {
    throw new HttpError(400, 'request body could not be read')
  })
  if (body === 'too-large') throw new HttpError(413, 'request entity too large')
  const text = body.toString('utf8')
  const bad = checkOfferText(text)
  if (bad) throw new HttpError(400, bad)
  return text
}

function sendAnswer(res: ServerResponse, sdp: string, location: string): void {
  res.writeHead(201, {
    ...WEBRTC_CORS,
    'Content-Type': 'application/sdp',
    Location: location,
    'Content-Length': Buffer.byteLength(sdp)
  })
  res.end(sdp)
}

const hubError = (err: unknown): never => {
  if (err instanceof WebRtcError) throw new HttpError(err.status, err.message)
  throw err
}

export function webrtcRoutes(router: Router, ctx: StudioContext, hub: WebRtcHub): void {
  const ID = /^\/webrtc\/([^/]{1,64})\/?$/
  const RESOURCE = /^\/webrtc\/(whip|whep)\/([0-9a-f]{32})$/

  router.add('HEAD', ID, async (req, res) => {
    if (!targetOf(ctx, req.params[0]!)) throw new HttpError(404, 'not found')
    res.writeHead(204, { ...WEBRTC_CORS, Location: `${ctx.base()}/webrtc/${req.params[0]}` })
    res.end()
  })

  router.add('POST', ID, async (req, res) => {
    const target = targetOf(ctx, req.params[0]!)
    if (!target) throw new HttpError(404, 'not found')
    const offer = await offerOf(req.raw)
    const base = `${ctx.base()}/webrtc/${target.kind}`
    if (target.kind === 'whip') {
      const r = await hub.publish(target.streamKey, offer).catch(hubError)
      sendAnswer(res, r.answer, `${base}/${r.id}`)
    } else {
      const r = await hub.play(target.streamKey, offer).catch(hubError)
      sendAnswer(res, r.answer, `${base}/${r.id}`)
    }
  })

  router.add('DELETE', RESOURCE, async (req, res) => {
    const [kind, id] = req.params as [string, string]
    const ok = kind === 'whip' ? await hub.unpublish(id) : await hub.stopPlaying(id)
    if (!ok) throw new HttpError(404, 'not found')
    res.writeHead(200, { ...WEBRTC_CORS, 'Content-Length': 0 })
    res.end()
  })
}

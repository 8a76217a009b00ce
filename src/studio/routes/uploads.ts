// Uploads (#35), as Livepeer documents them: POST /api/asset/request-upload answers {url,
// tusEndpoint, asset, task}; the file goes to tusEndpoint by tus (POST, then HEAD and PATCH on the
// upload's URL) or to url by one PUT. The asset is then read, listed and deleted with the clips'
// routes (routes/clips.ts), and played by the /asset/<playbackId>/ media route.
import { requireUser, type StudioContext } from '../context'
import type { Router } from '../http'
import { TUS_PATH, DIRECT_PATH, type Uploads } from '../uploads/uploads'
import { checkNewAsset } from '../validate'

const escape = (p: string): string => p.replace(/\//g, '\\/')

export function uploadRoutes(router: Router, ctx: StudioContext, uploads: Uploads): void {
  router.add('POST', /^\/api\/asset\/request-upload\/?$/, async (req) => {
    const user = requireUser(ctx, req.raw)
    const body = checkNewAsset(await req.body())
    return { status: 200, body: uploads.request(user.id, body.name) }
  })

  // The tus endpoint and each upload's URL: the token (creation) or the upload's unguessable id
  // (the rest) is the authority, as Livepeer's, so tus clients need no API key.
  const tus = new RegExp(`^${escape(TUS_PATH)}(?:/[0-9a-f]{32})?/?$`)
  // OPTIONS too: a browser's preflight is @tus/server's to answer (the tus headers, the app's origins).
  for (const method of ['OPTIONS', 'POST', 'HEAD', 'PATCH', 'DELETE'])
    router.add(method, tus, async (req, res) => {
      await uploads.handleTus(req.raw, res)
    })

  router.add('PUT', new RegExp(`^${escape(DIRECT_PATH)}/?$`), async (req) => {
    await uploads.handleDirect(req.url, req.raw)
    return { status: 200, body: {} }
  })
}

// Uploaded assets (#35), as Livepeer documents them: POST /asset/request-upload answers url,
// tusEndpoint, asset and task as its OpenAPI says; the file goes up by tus (@tus/server: the
// protocol's headers, a resumed upload) or one PUT; the asset becomes ready with HLS and an MP4
// as long as the file, or fails with the cause. Bounded (413, 507 in Livepeer's shape), an
// unfinished upload expires, another user's asset is 404. Real ffmpeg, real SQLite, real HTTP.
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Ajv from 'ajv'
import addFormats from 'ajv-formats'
import { load as parseYaml } from 'js-yaml'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApiKey } from '../../../src/studio/index'
import {
  api,
  decodeAll,
  ffprobe,
  makeMediaFile,
  startTestStudio,
  waitFor,
  type TestStudio
} from '../../helpers/studio'
import { startReceiver } from '../../helpers/webhook-receiver'

interface Asset {
  id: string
  playbackId: string
  name: string
  source: { type: string }
  status: { phase: string; errorMessage?: string; updatedAt: number }
  playbackUrl?: string
  downloadUrl?: string
  size?: number
  videoSpec?: { duration: number }
}
interface UploadAnswer {
  url: string
  tusEndpoint: string
  asset: Asset
  task: { id: string }
}
type Errors = { errors: string[] }

const TUS = { 'Tus-Resumable': '1.0.0' }

let studio: TestStudio
let otherKey: string
let tmp: string
let video: string
let videoBytes: Buffer

const requestUpload = (key: string | undefined, body: unknown) =>
  api<UploadAnswer & Errors>(studio, key, 'POST', '/asset/request-upload', body)

async function createTus(
  endpoint: string,
  length: number,
  extra: Record<string, string> = {}
): Promise<Response> {
  return fetch(endpoint, {
    method: 'POST',
    headers: { ...TUS, 'Upload-Length': String(length), ...extra }
  })
}

const patch = (url: string, offset: number, body: Buffer): Promise<Response> =>
  fetch(url, {
    method: 'PATCH',
    headers: {
      ...TUS,
      'Upload-Offset': String(offset),
      'Content-Type': 'application/offset+octet-stream'
    },
    body
  })

async function assetOf(s: TestStudio, id: string): Promise<Asset> {
  return (await api<Asset>(s, s.apiKey, 'GET', `/asset/${id}`)).body
}

async function settled(s: TestStudio, id: string): Promise<Asset> {
  return waitFor(
    async () => {
      const a = await assetOf(s, id)
      return (a.status.phase === 'ready' || a.status.phase === 'failed') && a
    },
    90_000,
    'the asset to be ready or failed'
  )
}

/** The 200 answer of POST /asset/request-upload, as Livepeer's OpenAPI file says it. */
function requestUploadSchema(): (v: unknown) => boolean {
  const doc = parseYaml(
    readFileSync(join(__dirname, '../../../src/shared/api/livepeer-studio-openapi.yaml'), 'utf8')
  ) as Record<string, unknown>
  const ajv = new Ajv({ strict: false, allowUnionTypes: true })
  addFormats(ajv)
  ajv.addSchema(doc, 'openapi')
  const validate = ajv.getSchema(
    'openapi#/paths/~1asset~1request-upload/post/responses/200/content/application~1json/schema'
  )
  if (!validate) throw new Error('no schema for request-upload in the OpenAPI file')
  return (v) => {
    const ok = validate(v) as boolean
    if (!ok) console.error(JSON.stringify(validate.errors))
    return ok
  }
}

beforeAll(async () => {
  studio = await startTestStudio({ uploads: { maxBytes: 50 * 1024 ** 2 } })
  otherKey = await createApiKey(studio.dataDir, 'neighbour')
  tmp = await mkdtemp(join(tmpdir(), 'onair-uploads-'))
  // 10 s of 320x240 H.264 and AAC with a keyframe each second: Onair's local copies are H.264/AAC MP4.
  video = makeMediaFile(join(tmp, 'copy.mp4'), [
    '-f',
    'lavfi',
    '-i',
    'testsrc2=size=320x240:rate=25',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440:sample_rate=48000',
    '-t',
    '10',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-g',
    '25',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-shortest',
    '-movflags',
    '+faststart'
  ])
  videoBytes = readFileSync(video)
}, 60_000)
afterAll(async () => {
  await studio?.cleanup()
  if (tmp) await rm(tmp, { recursive: true, force: true })
})

describe('POST /asset/request-upload', () => {
  it('answers url, tusEndpoint, asset and task as Livepeer’s OpenAPI says', async () => {
    const r = await requestUpload(studio.apiKey, { name: 'full copy.mp4' })
    expect(r.status).toBe(200)
    expect(requestUploadSchema()(r.body)).toBe(true)
    expect(r.body.asset).toMatchObject({
      name: 'full copy.mp4',
      source: { type: 'directUpload' },
      status: { phase: 'waiting' }
    })
    expect(r.body.task.id).toBeTruthy()
    expect(r.body.tusEndpoint).toMatch(/\/api\/asset\/upload\/tus\?token=[A-Za-z0-9_-]+$/)
    expect(r.body.url).toMatch(/\/api\/asset\/upload\/direct\?token=[A-Za-z0-9_-]+$/)
    const got = await assetOf(studio, r.body.asset.id)
    expect(got.status.phase).toBe('waiting')
    expect(got.playbackUrl).toBeUndefined()
  })

  it('answers bad input with a 4xx in Livepeer’s shape', async () => {
    const cases: Array<[unknown, number]> = [
      [undefined, 422],
      [{}, 422],
      [{ name: 5 }, 422],
      [{ name: 'x', unknown: true }, 422],
      [{ name: '   ' }, 400],
      [{ name: 'x', encryption: { encryptedKey: 'abc' } }, 400],
      ['{"name":', 400]
    ]
    for (const [body, status] of cases) {
      const r = await requestUpload(studio.apiKey, body)
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), status])
      expect(r.body.errors.length).toBeGreaterThan(0)
    }
    expect((await requestUpload(undefined, { name: 'x' })).status).toBe(401)
  })
})

describe('the tus endpoint', () => {
  it('resumes: PATCH a part, HEAD the offset, PATCH the rest; the asset plays as long as the file', async () => {
    const receiver = await startReceiver<{ id: string; snapshot: Asset }>()
    const { events } = receiver
    const hook = await api(studio, studio.apiKey, 'POST', '/webhook', {
      name: 'assets',
      url: receiver.url,
      events: ['asset.created', 'asset.updated', 'asset.ready', 'asset.failed']
    })
    expect(hook.status).toBeLessThan(300)
    try {
      const { body: up } = await requestUpload(studio.apiKey, { name: 'resumed' })
      const created = await createTus(up.tusEndpoint, videoBytes.length)
      expect(created.status).toBe(201)
      expect(created.headers.get('tus-resumable')).toBe('1.0.0')
      const location = created.headers.get('location')!
      expect(location).toMatch(/\/api\/asset\/upload\/tus\/[0-9a-f]{32}$/)
      expect((await assetOf(studio, up.asset.id)).status.phase).toBe('uploading')

      const cut = Math.floor(videoBytes.length * 0.4)
      const first = await patch(location, 0, videoBytes.subarray(0, cut))
      expect(first.status).toBe(204)
      expect(first.headers.get('upload-offset')).toBe(String(cut))

      const head = await fetch(location, { method: 'HEAD', headers: TUS })
      expect(head.status).toBe(200)
      expect(head.headers.get('upload-offset')).toBe(String(cut))
      expect(head.headers.get('upload-length')).toBe(String(videoBytes.length))
      expect(head.headers.get('tus-resumable')).toBe('1.0.0')

      // A PATCH at the wrong offset is refused; the upload is untouched.
      expect((await patch(location, 0, videoBytes.subarray(0, 10))).status).toBe(409)

      const rest = await patch(location, cut, videoBytes.subarray(cut))
      expect(rest.status).toBe(204)
      expect(rest.headers.get('upload-offset')).toBe(String(videoBytes.length))

      const asset = await settled(studio, up.asset.id)
      expect(asset.status.errorMessage).toBeUndefined()
      expect(asset.status.phase).toBe('ready')
      expect(asset.playbackId).toBe(up.asset.playbackId)
      expect(asset.playbackUrl).toMatch(new RegExp(`/asset/${asset.playbackId}/index\\.m3u8$`))
      const source = await ffprobe(video)
      const mp4 = await ffprobe(asset.downloadUrl!)
      expect(Math.abs(mp4.duration - source.duration)).toBeLessThan(0.1)
      expect(Math.abs(asset.videoSpec!.duration - source.duration)).toBeLessThan(0.2)
      expect(mp4.streams.map((s) => s.codec_type).sort()).toEqual(['audio', 'video'])
      const served = await fetch(asset.downloadUrl!, { method: 'HEAD' })
      expect(Number(served.headers.get('content-length'))).toBe(asset.size)
      const hls = await ffprobe(asset.playbackUrl!)
      expect(Math.abs(hls.duration - source.duration)).toBeLessThan(0.2)
      expect((await decodeAll(asset.downloadUrl!)).ok).toBe(true)
      // The uploaded file is deleted once the media is made: its tus URL is gone.
      expect((await fetch(location, { method: 'HEAD', headers: TUS })).status).toBe(404)

      await waitFor(
        async () => events.some((e) => e.event === 'asset.ready'),
        10_000,
        'asset.ready'
      )
      const mine = events.filter((e) => e.payload.id === up.asset.id).map((e) => e.event)
      expect(mine[0]).toBe('asset.created')
      expect(mine).toContain('asset.updated')
      expect(mine[mine.length - 1]).toBe('asset.ready')
      const ready = events.find((e) => e.event === 'asset.ready')!
      expect(ready.payload.snapshot.status.phase).toBe('ready')
    } finally {
      receiver.close()
    }
  }, 120_000)

  it('refuses a bad token, a missing Tus-Resumable, and a file over the limit (413)', async () => {
    const { body: up } = await requestUpload(studio.apiKey, { name: 'refused' })
    const bad = await createTus(up.tusEndpoint.replace(/token=.*/, 'token=' + 'x'.repeat(32)), 100)
    expect(bad.status).toBe(401)
    expect(((await bad.json()) as Errors).errors[0]).toMatch(/token/)
    const noTus = await fetch(up.tusEndpoint, { method: 'POST', headers: { 'Upload-Length': '1' } })
    expect(noTus.status).toBe(412)
    const big = await createTus(up.tusEndpoint, 51 * 1024 ** 2)
    expect(big.status).toBe(413)
    expect(((await big.json()) as Errors).errors[0]).toMatch(/larger than .*limit of 50 MB/)
    const direct = await fetch(up.url, { method: 'PUT', body: Buffer.alloc(51 * 1024 ** 2) })
    expect(direct.status).toBe(413)
    expect(((await direct.json()) as Errors).errors[0]).toMatch(/larger than/)
    const unknown = await fetch(up.tusEndpoint.replace(/\?.*/, '/' + '0'.repeat(32)), {
      method: 'HEAD',
      headers: TUS
    })
    expect(unknown.status).toBe(404)
  })

  it('keeps users apart: another user’s asset is 404 and absent from their list', async () => {
    const { body: up } = await requestUpload(studio.apiKey, { name: 'mine' })
    expect((await api(studio, otherKey, 'GET', `/asset/${up.asset.id}`)).status).toBe(404)
    expect((await api(studio, otherKey, 'DELETE', `/asset/${up.asset.id}`)).status).toBe(404)
    const theirs = await api<Asset[]>(studio, otherKey, 'GET', '/asset')
    expect(theirs.body.map((a) => a.id)).not.toContain(up.asset.id)
    const ours = await api<Asset[]>(studio, studio.apiKey, 'GET', '/asset?limit=1&count=1')
    expect(ours.body).toHaveLength(1)
    expect(ours.headers.get('link')).toMatch(/cursor=skip1/)
    expect(Number(ours.headers.get('x-total-count'))).toBeGreaterThan(1)
  })

  it('deletes an asset mid-upload with its part', async () => {
    const { body: up } = await requestUpload(studio.apiKey, { name: 'dropped' })
    const location = (await createTus(up.tusEndpoint, videoBytes.length)).headers.get('location')!
    expect((await patch(location, 0, videoBytes.subarray(0, 1000))).status).toBe(204)
    expect((await api(studio, studio.apiKey, 'DELETE', `/asset/${up.asset.id}`)).status).toBe(204)
    expect((await fetch(location, { method: 'HEAD', headers: TUS })).status).toBe(404)
    expect((await patch(location, 1000, videoBytes.subarray(1000, 2000))).status).toBe(404)
    expect((await api(studio, studio.apiKey, 'GET', `/asset/${up.asset.id}`)).status).toBe(404)
    const left = await readdir(join(studio.dataDir, 'uploads'))
    expect(left.filter((f) => location.endsWith(f.replace(/\.json$/, '')))).toEqual([])
  })

  it('fails an asset whose file is not a video, and says why', async () => {
    const junk = Buffer.from('this is not a video at all\n'.repeat(100))
    const { body: up } = await requestUpload(studio.apiKey, { name: 'junk' })
    const location = (await createTus(up.tusEndpoint, junk.length)).headers.get('location')!
    expect((await patch(location, 0, junk)).status).toBe(204)
    const a = await settled(studio, up.asset.id)
    expect(a.status.phase).toBe('failed')
    expect(a.status.errorMessage).toMatch(/not a video|no video/)
  }, 60_000)
})

describe('PUT to the direct url', () => {
  it('takes the whole file and makes a ready asset; the token is used once', async () => {
    const { body: up } = await requestUpload(studio.apiKey, { name: 'direct' })
    const put = await fetch(up.url, { method: 'PUT', body: videoBytes })
    expect(put.status).toBe(200)
    const a = await settled(studio, up.asset.id)
    expect(a.status.phase).toBe('ready')
    expect(
      Math.abs((await ffprobe(a.downloadUrl!)).duration - (await ffprobe(video)).duration)
    ).toBeLessThan(0.1)
    const again = await fetch(up.url, { method: 'PUT', body: videoBytes })
    expect(again.status).toBe(401)
  }, 90_000)
})

describe('bounds', () => {
  it('answers 507 when the disk cannot hold the upload and its media', async () => {
    const tight = await startTestStudio({ uploads: { minFreeBytes: 2 ** 60 } })
    try {
      const up = (
        await api<UploadAnswer>(tight, tight.apiKey, 'POST', '/asset/request-upload', { name: 'x' })
      ).body
      const r = await createTus(up.tusEndpoint, 1000)
      expect(r.status).toBe(507)
      expect(((await r.json()) as Errors).errors[0]).toMatch(/not enough free space/)
      const put = await fetch(up.url, { method: 'PUT', body: Buffer.alloc(1000) })
      expect(put.status).toBe(507)
      expect(((await put.json()) as Errors).errors[0]).toMatch(/not enough free space/)
    } finally {
      await tight.cleanup()
    }
  })

  it('fails an upload left unfinished past the expiry and deletes its part', async () => {
    const short = await startTestStudio({ uploads: { expiryMs: 1500, sweepMs: 200 } })
    try {
      const up = (
        await api<UploadAnswer>(short, short.apiKey, 'POST', '/asset/request-upload', {
          name: 'left'
        })
      ).body
      const location = (await createTus(up.tusEndpoint, videoBytes.length)).headers.get('location')!
      expect((await patch(location, 0, videoBytes.subarray(0, 5000))).status).toBe(204)
      const part = join(short.dataDir, 'uploads', location.split('/').pop()!)
      expect(existsSync(part)).toBe(true)
      const a = await waitFor(
        async () => {
          const got = await assetOf(short, up.asset.id)
          return got.status.phase === 'failed' && got
        },
        10_000,
        'the unfinished upload to expire'
      )
      expect(a.status.errorMessage).toMatch(/not finished within/)
      expect(existsSync(part)).toBe(false)
      expect((await fetch(location, { method: 'HEAD', headers: TUS })).status).toBe(404)
      expect((await createTus(up.tusEndpoint, 10)).status).toBe(401)
    } finally {
      await short.cleanup()
    }
  })
})

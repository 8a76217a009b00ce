// The app's uploader (#35) against the local studio, through a TCP proxy that can drop the
// connection: a ~200 MB local copy goes up by tus, the network is cut for 5 s mid-way and the
// upload goes on from the service's offset; an uploader stopped at half way (Onair closed or
// killed) and a new one started on the same app data resumes from the service's offset, not from
// zero. The asset's MP4 has the file's duration and frames. Real ffmpeg, real studio, real tus.
import { execFile } from 'node:child_process'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { createServer, connect, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiClient } from '../../../src/main/core/api-client'
import { assetService } from '../../../src/main/core/uploads/publish'
import { Uploader, type AssetService } from '../../../src/main/core/uploads/uploader'
import { resolveFfprobe } from '../../../src/node/ffmpeg/locate'
import type { UploadView } from '../../../src/shared/uploads'
import { makeLongCopy, startTestStudio, waitFor, type TestStudio } from '../../helpers/studio'

/** A TCP proxy to the studio that counts what the app sends and can drop every connection. */
class CuttingProxy {
  readonly server: Server
  port = 0
  /** Bytes from the app to the studio, in all. */
  sent = 0
  cuts = 0
  private readonly sockets = new Set<Socket>()
  private downUntil = 0

  /**
   * backpressure false: the proxy reads what the app sends at once, whatever the studio's pace (kept
   * in memory meanwhile), so what it counted is what the app sent, never held back by a studio that
   * is slow for a moment (a busy machine writing to disk).
   */
  constructor(
    private readonly target: number,
    private readonly backpressure = true
  ) {
    this.server = createServer((client) => {
      if (Date.now() < this.downUntil) return client.destroy()
      const upstream = connect(this.target, '127.0.0.1')
      this.sockets.add(client).add(upstream)
      client.on('data', (d: Buffer) => {
        this.sent += d.length
        if (!upstream.write(d) && this.backpressure) client.pause()
      })
      upstream.on('drain', () => client.resume())
      upstream.pipe(client)
      const close = (): void => {
        client.destroy()
        upstream.destroy()
        this.sockets.delete(client)
        this.sockets.delete(upstream)
      }
      client.on('error', close).on('close', close)
      upstream.on('error', close).on('close', close)
    })
  }

  async listen(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r))
    this.port = (this.server.address() as { port: number }).port
  }

  /** Every connection dropped at once, and new ones refused for `ms`. */
  cut(ms: number): void {
    this.cuts++
    this.downUntil = Date.now() + ms
    for (const s of this.sockets) s.destroy()
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy()
    return new Promise((r) => this.server.close(() => r()))
  }
}

/** The service seen through the proxy: the studio's addresses, with the proxy's port. */
function serviceVia(studio: TestStudio, proxy: CuttingProxy): AssetService {
  const direct = new URL(studio.apiUrl)
  const via = (u: string): string => {
    const url = new URL(u)
    if (url.port === direct.port) url.port = String(proxy.port)
    return url.toString()
  }
  const client = new ApiClient({ baseUrl: via(studio.apiUrl), apiKey: studio.apiKey })
  const service = assetService(async () => client)
  return {
    ...service,
    requestUpload: async (name) => {
      const r = await service.requestUpload(name)
      return { ...r, tusEndpoint: via(r.tusEndpoint) }
    }
  }
}

/** Duration (s) and video frames of a file or URL. */
function framesOf(target: string): Promise<{ duration: number; frames: number }> {
  return new Promise((resolve, reject) => {
    execFile(
      resolveFfprobe(),
      [
        '-v',
        'error',
        '-select_streams',
        'v:0',
        '-count_packets',
        '-show_entries',
        'stream=nb_read_packets:format=duration',
        '-of',
        'json',
        target
      ],
      { timeout: 120_000 },
      (err, out) => {
        if (err) return reject(err)
        const j = JSON.parse(out) as {
          streams: Array<{ nb_read_packets: string }>
          format: { duration: string }
        }
        resolve({
          duration: Number(j.format.duration),
          frames: Number(j.streams[0]!.nb_read_packets)
        })
      }
    )
  })
}

let studio: TestStudio
let tmp: string
let big: string
let size: number
let source: { duration: number; frames: number }

beforeAll(async () => {
  studio = await startTestStudio()
  tmp = await mkdtemp(join(tmpdir(), 'onair-uploader-'))
  // 10 s of 720p at a high bitrate (about 19 MB), looped 11 times without re-encoding: ~200 MB.
  big = makeLongCopy(tmp)
  size = (await stat(big)).size
  source = await framesOf(big)
}, 180_000)
afterAll(async () => {
  await studio?.cleanup()
  if (tmp) await rm(tmp, { recursive: true, force: true })
})

async function until(
  uploader: Uploader,
  id: string,
  ok: (v: UploadView) => boolean,
  what: string,
  ms = 120_000
): Promise<UploadView> {
  return waitFor(
    async () => {
      const v = uploader.get(id)
      if (v?.state === 'failed') throw new Error(`the upload failed: ${JSON.stringify(v.error)}`)
      return v && ok(v) && v
    },
    ms,
    what,
    50
  )
}

async function sameMedia(v: UploadView): Promise<void> {
  const mp4 = v.playbackUrl!.replace(/index\.m3u8$/, 'download.mp4')
  const got = await framesOf(mp4)
  expect(Math.abs(got.duration - source.duration)).toBeLessThan(0.1)
  expect(got.frames).toBe(source.frames)
}

describe('the uploader', () => {
  it('uploads ~200 MB through a 5 s network cut, resuming from the service’s offset', async () => {
    expect(size).toBeGreaterThan(180 * 1024 ** 2)
    const proxy = new CuttingProxy(Number(new URL(studio.apiUrl).port))
    await proxy.listen()
    const app = await mkdtemp(join(tmp, 'app-'))
    const events: UploadView[] = []
    const uploader = new Uploader({
      appDataDir: app,
      service: () => serviceVia(studio, proxy),
      emit: (v) => events.push(v),
      retryDelays: [0, 1000, 2000, 2000, 2000, 2000, 2000, 2000],
      pollMs: 200
    })
    try {
      const up = await uploader.start({ file: big, name: 'local copy', connectionId: 'c1' })
      await until(uploader, up.id, (v) => v.sent > size * 0.3, 'a third sent')
      const before = uploader.get(up.id)!.sent
      proxy.cut(5000)
      const cutAt = Date.now()
      const done = await until(uploader, up.id, (v) => v.state === 'ready', 'the asset ready')
      expect(Date.now() - cutAt).toBeGreaterThanOrEqual(5000)
      expect(proxy.cuts).toBe(1)
      expect(before).toBeLessThan(size)
      // Resumed, not started over: what went through the proxy is the file and a little.
      expect(proxy.sent).toBeLessThan(size * 1.2)
      expect(events.some((e) => e.state === 'uploading' && e.rate! > 0 && e.etaSec! >= 0)).toBe(
        true
      )
      await sameMedia(done)
    } finally {
      await uploader.stop()
      await proxy.close()
    }
  }, 300_000)

  it('resumes after Onair stops at half way: a new uploader on the same app data goes on from the service’s offset', async () => {
    const proxy = new CuttingProxy(Number(new URL(studio.apiUrl).port))
    await proxy.listen()
    const app = await mkdtemp(join(tmp, 'app-'))
    const options = {
      appDataDir: app,
      service: () => serviceVia(studio, proxy),
      pollMs: 200
    }
    const first = new Uploader(options)
    const up = await first.start({ file: big, name: 'half', connectionId: 'c1' })
    await until(first, up.id, (v) => v.sent >= size * 0.5, 'half sent')
    // Onair closes (or is killed): nothing more is sent, nothing is ended on the service.
    await first.stop()
    const sentBefore = proxy.sent
    const second = new Uploader(options)
    try {
      const kept = second.get(up.id)
      expect(kept?.state).toBe('uploading')
      expect(kept!.sent).toBeGreaterThan(0)
      second.resumeAll()
      const done = await until(second, up.id, (v) => v.state === 'ready', 'the asset ready')
      expect(proxy.sent - sentBefore).toBeLessThan(size * 0.6)
      expect(proxy.sent).toBeLessThan(size * 1.2)
      await sameMedia(done)
    } finally {
      await second.stop()
      await proxy.close()
    }
  }, 300_000)

  it('pauses and cancels: a cancelled upload’s asset is deleted on the service', async () => {
    // What the app sends is counted as it leaves the app: a studio slow for a moment must not hold
    // the proxy's count back and let it look settled before the bytes in flight arrive.
    const proxy = new CuttingProxy(Number(new URL(studio.apiUrl).port), false)
    await proxy.listen()
    const app = await mkdtemp(join(tmp, 'app-'))
    const service = serviceVia(studio, proxy)
    const uploader = new Uploader({ appDataDir: app, service: () => service })
    try {
      const up = await uploader.start({ file: big, name: 'paused', connectionId: 'c1' })
      await until(uploader, up.id, (v) => v.sent > 0, 'bytes sent')
      expect(uploader.pause(up.id).state).toBe('paused')
      const at = proxy.sent
      // Paused: what the sockets already held at the pause still arrives (a few MB on loopback, 9.3 MB
      // once on CI's busy machine), then nothing more goes out: a short, bounded look, since the
      // condition is the absence of bytes. The file is far larger than what may still arrive. The app
      // and the proxy share this process, and the proxy reads without waiting for the studio: once a
      // half-second passes with no byte, nothing is left in flight.
      expect(size).toBeGreaterThan(128 * 1024 * 1024)
      let last = -1
      await waitFor(
        async () => {
          const now = proxy.sent
          const still = now === last
          last = now
          return still
        },
        20_000,
        'the bytes in flight at the pause to arrive',
        500
      )
      const settled = proxy.sent
      await new Promise((r) => setTimeout(r, 1500))
      expect(proxy.sent).toBe(settled)
      expect(settled - at).toBeLessThan(32 * 1024 * 1024)
      await uploader.cancel(up.id)
      expect(uploader.get(up.id)).toBeUndefined()
      await expect(service.getAsset(up.assetId!)).rejects.toThrow()
    } finally {
      await uploader.stop()
      await proxy.close()
    }
  }, 120_000)
})

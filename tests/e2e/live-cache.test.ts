// Viewers never see an earlier broadcast (#32): one browser page watches two sessions of one stream
// with hls.js, the first painted red and the second blue. The browser's HTTP cache keeps what the first
// session served; every frame shown of the second must still be blue. Real Chromium, real hls.js, the
// local studio's live HLS fed by a real ffmpeg over RTMP.
import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../helpers/browser'
import {
  pushTestPattern,
  startTestStudio,
  studioCalls,
  waitFor,
  type Pusher,
  type TestStudio
} from '../helpers/studio'

const HLS_JS = readFileSync(join(__dirname, '../../node_modules/hls.js/dist/hls.min.js'))
// The page is served over HTTP, as a viewer's would be: an opaque origin (about:blank) gets no cache.
const PAGE = `<!doctype html><video id="v" muted playsinline width="320"></video>
<canvas id="c" width="32" height="24"></canvas><script src="/hls.js"></script>`

let studio: TestStudio
let browser: Browser
let site: Server
let page: Page
const pushes: Pusher[] = []

beforeAll(async () => {
  studio = await startTestStudio()
  site = createServer((req, res) => {
    if (req.url === '/hls.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(HLS_JS)
    else res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE)
  })
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r))
  browser = await launchChromium()
  page = await browser.newPage()
  await page.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`)
}, 60_000)
afterAll(async () => {
  await Promise.all(pushes.map((p) => p.kill()))
  await browser?.close()
  site?.close()
  await studio?.cleanup()
})

interface Watched {
  frames: number
  red: number
  blue: number
  other: number
  httpCached: number
}

/**
 * Plays `url` in the page's one video with a new hls.js until `seconds` of media have played, sampling
 * the colour of every frame shown; counts the media requests the browser served from its cache.
 */
async function watch(url: string, seconds: number): Promise<Watched> {
  return page.evaluate(
    async ([src, secs]) => {
      type HlsCtor = new (c: object) => {
        loadSource(u: string): void
        attachMedia(v: HTMLVideoElement): void
        destroy(): void
      }
      const Hls = (globalThis as unknown as { Hls: HlsCtor }).Hls
      const video = document.getElementById('v') as HTMLVideoElement
      const ctx = (document.getElementById('c') as HTMLCanvasElement).getContext('2d', {
        willReadFrequently: true
      })!
      const seen = { frames: 0, red: 0, blue: 0, other: 0, httpCached: 0 }
      const cachedBefore = performance
        .getEntriesByType('resource')
        .filter((e) => (e as PerformanceResourceTiming).transferSize === 0).length
      const hls = new Hls({ lowLatencyMode: false })
      hls.loadSource(src)
      hls.attachMedia(video)
      void video.play().catch(() => undefined)
      await new Promise<void>((done, fail) => {
        const limit = setTimeout(() => fail(new Error(`played ${video.currentTime} s`)), 90_000)
        const sample = (): void => {
          ctx.drawImage(video, 0, 0, 32, 24)
          const [r, g, b] = ctx.getImageData(16, 12, 1, 1).data as unknown as number[]
          seen.frames++
          if (r! > 150 && g! < 80 && b! < 80) seen.red++
          else if (b! > 150 && r! < 80 && g! < 80) seen.blue++
          else seen.other++
          if (video.currentTime >= secs) {
            clearTimeout(limit)
            done()
          } else video.requestVideoFrameCallback(sample)
        }
        video.requestVideoFrameCallback(sample)
      })
      hls.destroy()
      seen.httpCached =
        performance
          .getEntriesByType('resource')
          .filter((e) => (e as PerformanceResourceTiming).transferSize === 0).length - cachedBefore
      return seen
    },
    [url, seconds] as const
  )
}

describe('two sessions of one stream in one page', () => {
  it('every frame of the second session is the second session', async () => {
    const calls = studioCalls(studio)
    const stream = await calls.createStream({ name: 'cached' })
    const url = `${studio.apiUrl.replace(/\/api$/, '')}/hls/${stream.playbackId}/index.m3u8`
    const live = async (): Promise<void> => {
      await waitFor(
        async () => (await fetch(`${url}?onair=monitor`)).status === 200,
        30_000,
        'the live master'
      )
    }
    const red = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, {
      seconds: 16,
      width: 320,
      height: 240,
      video: 'color=c=red'
    })
    pushes.push(red)
    await live()
    // From the first segment on: the browser keeps seg00000.ts, seg00001.ts, ... of this session.
    const first = await watch(url, 10)
    expect(first.red).toBeGreaterThan(first.frames * 0.9)
    expect(await red.done).toBe(0)
    await calls.finished(stream.id, 60_000)

    const blue = pushTestPattern(`${studio.rtmpUrl}/${stream.streamKey}`, {
      seconds: 30,
      width: 320,
      height: 240,
      video: 'color=c=blue'
    })
    pushes.push(blue)
    await live()
    const second = await watch(url, 6)
    expect(second.frames).toBeGreaterThan(30)
    expect(second.red).toBe(0)
    expect(second.blue).toBeGreaterThan(second.frames * 0.9)
    await blue.kill()
  })
})

// Where a live playlist begins in the publisher's media (#32 §5): the studio's segmenters pull the
// stream from its ingest, which hands a new player the stream from its latest keyframe. A publisher
// that sends a catch-up faster than real time as it starts (as the app does with what piled up while
// its ffmpeg started) has sent its second keyframe before the segmenters join, so their first segment
// begins seconds into its media, and the live monitor, counting from 0, said that much too much. The
// live playlists say where they begin (EXT-X-DATERANGE onair-media-start): checked here against the
// picture itself, each frame's luma being its number.
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MEDIA_START_ATTR, MEDIA_START_DATERANGE } from '../../../src/shared/live-state'
import {
  makeMediaFile,
  startTestStudio,
  studioCalls,
  testFfmpeg,
  waitFor,
  type TestStudio
} from '../../helpers/studio'

const FPS = 10

let studio: TestStudio
let dir: string
const base = (): string => studio.apiUrl.replace(/\/api$/, '')

beforeAll(async () => {
  studio = await startTestStudio()
  dir = mkdtempSync(join(tmpdir(), 'onair-media-start-'))
}, 60_000)
afterAll(async () => {
  await studio?.cleanup()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/**
 * The luma of a segment's first picture (the mean of a 16×16 crop's Y plane). Fetched first: the studio
 * answers from this process, which a synchronous ffmpeg reading the URL would block.
 */
async function firstLuma(url: string): Promise<number> {
  const file = join(dir, 'first.ts')
  writeFileSync(file, Buffer.from(await (await fetch(url)).arrayBuffer()))
  const raw = execFileSync(testFfmpeg(), [
    ...['-v', 'error', '-i', file, '-frames:v', '1'],
    ...['-vf', 'crop=16:16', '-f', 'rawvideo', '-pix_fmt', 'yuv420p', 'pipe:1']
  ]).subarray(0, 256)
  return raw.reduce((n, b) => n + b, 0) / raw.length
}

describe('live playlist media start', () => {
  it("says the publisher's media time its first segment begins at, when the studio joined late", async () => {
    const calls = studioCalls(studio)
    const stream = await calls.createStream({
      name: 'media start',
      profiles: [{ name: '144p', width: 256, height: 144, bitrate: 200_000, fps: FPS }]
    })
    // 48 s of frames numbered by their luma (0-239, then again), a keyframe every second.
    const file = makeMediaFile(join(dir, 'numbered.flv'), [
      ...['-f', 'lavfi', '-i', `color=c=black:s=320x180:r=${FPS},format=yuv420p`],
      ...['-vf', "geq=lum='mod(N,240)':cb=128:cr=128", '-t', '48'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-g', String(FPS), '-keyint_min', String(FPS)],
      ...['-sc_threshold', '0', '-bf', '0', '-f', 'flv']
    ])
    // Sent at 10× real time, a keyframe every 100 ms: the first keyframes are out before the studio's
    // pullers join (they start on the publish, then connect and play). At 3× (a keyframe every 333 ms)
    // a puller once joined at the first one, on a busy machine (CI, 28 Nov).
    const push = spawn(
      testFfmpeg(),
      [
        ...['-hide_banner', '-loglevel', 'error', '-nostdin', '-readrate', '10', '-i', file],
        ...['-c', 'copy', '-f', 'flv', `${studio.rtmpUrl}/${stream.streamKey}`]
      ],
      { stdio: 'ignore' }
    )
    const pushed = new Promise((r) => push.on('exit', r))
    try {
      const master = `${base()}/hls/${stream.playbackId}/index.m3u8?onair=monitor`
      for (const rendition of ['source', 'v0']) {
        const { text, url } = await waitFor(
          async () => {
            const m = await fetch(master)
            if (m.status !== 200) return undefined
            const uri = (await m.text()).split('\n').find((l) => l.includes(`/${rendition}/`))
            if (!uri) return undefined
            const url = new URL(uri, master).href
            const text = await (await fetch(url)).text()
            return text.includes('#EXTINF') ? { text, url } : undefined
          },
          20_000,
          `the ${rendition} playlist's first segment`
        )
        const range = new RegExp(
          `#EXT-X-DATERANGE:ID="${MEDIA_START_DATERANGE}",START-DATE="([^"]+)",${MEDIA_START_ATTR}=(\\d+)`
        ).exec(text)
        expect(range, `${rendition}: ${text}`).not.toBeNull()
        // The range is dated at the first segment.
        expect(text).toContain(`#EXT-X-PROGRAM-DATE-TIME:${range![1]}`)
        const startMs = Number(range![2])
        // The first segment's first picture is the frame the playlist says it begins at.
        const seg = new URL(
          text.split('\n').find((l) => l.endsWith('.ts'))!,
          url
        ).href
        // Its luma names the frame modulo 240 (the file numbers 0-239 twice).
        const frame = Math.round(await firstLuma(seg))
        const off = Math.abs(frame - (Math.round(startMs / (1000 / FPS)) % 240))
        expect(
          Math.min(off, 240 - off),
          `${rendition} frame ${frame}, ${startMs} ms`
        ).toBeLessThanOrEqual(2)
        // It joined late: the playlist does not begin at the publisher's media time 0.
        expect(startMs).toBeGreaterThanOrEqual(1000)
      }
    } finally {
      push.kill('SIGKILL')
      await pushed
    }
  })
})

// Glass-to-playlist latency of the local studio: how long after a frame is made does the live playlist
// list the segment that holds it. A real ffmpeg publishes a real-time test pattern (-re: frame t is made
// at start + t); we poll the first rendition's live playlist every 50 ms and, for each new segment, take
// (moment it appears) - (start + media time of the segment's first frame). The start is taken when the
// publisher is spawned, so its own start-up counts as latency: the figure errs high, never low.
import { runAsScript } from './results'
import { median, type BenchRow } from './types'
import { pushTestPattern, startTestStudio, type TestStudio } from '../../tests/helpers/studio'

const SECONDS = 20
const RUNS = 2

interface StreamBody {
  id: string
  streamKey: string
  playbackId: string
}

async function createStream(studio: TestStudio, profiles: unknown[]): Promise<StreamBody> {
  const res = await fetch(`${studio.apiUrl}/stream`, {
    method: 'POST',
    headers: { authorization: `Bearer ${studio.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'latency bench', profiles })
  })
  if (res.status !== 201) throw new Error(`create stream: HTTP ${res.status} ${await res.text()}`)
  return (await res.json()) as StreamBody
}

async function text(url: string): Promise<string | null> {
  const res = await fetch(url).catch(() => null)
  return res && res.ok ? res.text() : null
}

/** Latencies (s) of every segment that appeared during one push. */
async function measure(studio: TestStudio, profiles: unknown[]): Promise<number[]> {
  const s = await createStream(studio, profiles)
  const base = studio.apiUrl.replace(/\/api$/, '')
  const master = `${base}/hls/${s.playbackId}/index.m3u8`
  const t0 = Date.now()
  const pusher = pushTestPattern(`${studio.rtmpUrl}/${s.streamKey}`, {
    seconds: SECONDS,
    width: 1280,
    height: 720,
    fps: 30
  })
  const seen = new Set<string>()
  const latencies: number[] = []
  let media: string | null = null
  try {
    while (Date.now() - t0 < (SECONDS + 8) * 1000 && pusher.child.exitCode === null) {
      if (!media) {
        const m = await text(master)
        const first = m?.split('\n').find((l) => l.trim() && !l.startsWith('#'))
        if (first) media = new URL(first.trim(), master).href
      } else {
        const list = await text(media)
        if (list) {
          const now = Date.now()
          let start = 0
          let duration = 0
          for (const line of list.split('\n')) {
            const inf = /^#EXTINF:([\d.]+)/.exec(line)
            if (inf) duration = Number(inf[1])
            else if (line.trim() && !line.startsWith('#')) {
              // Polling starts before the stream exists, so every segment is seen as it appears.
              if (!seen.has(line)) {
                seen.add(line)
                latencies.push((now - t0) / 1000 - start)
              }
              start += duration
            }
          }
        }
      }
      await new Promise((r) => setTimeout(r, 50))
    }
  } finally {
    await pusher.kill()
  }
  return latencies
}

export async function runLatencyBench(): Promise<BenchRow[]> {
  const studio = await startTestStudio()
  const ladder = [
    { name: '720p', width: 1280, height: 720, bitrate: 3_000_000, fps: 0 },
    { name: '480p', width: 854, height: 480, bitrate: 1_600_000, fps: 0 },
    { name: '360p', width: 640, height: 360, bitrate: 800_000, fps: 0 }
  ]
  const source: number[] = []
  const abr: number[] = []
  try {
    for (let i = 0; i < RUNS; i++) {
      source.push(...(await measure(studio, [])))
      abr.push(...(await measure(studio, ladder)))
    }
  } finally {
    await studio.cleanup()
  }
  const doc = { name: 'Livepeer Studio documented live latency (10-20 s)', value: 15, unit: 's' }
  return [
    {
      name: 'studio: glass-to-playlist, source only (first frame of each segment)',
      value: Number(median(source).toFixed(2)),
      unit: 's',
      reference: doc,
      note: `720p30 push, 2 s segments, median of ${source.length} segments over ${RUNS} runs; a player adds its buffer on top`
    },
    {
      name: 'studio: glass-to-playlist, 720p/480p/360p ladder',
      value: Number(median(abr).toFixed(2)),
      unit: 's',
      reference: doc,
      note: `same, first rendition of the ladder, median of ${abr.length} segments`
    }
  ]
}

if (require.main === module)
  runAsScript('bench:latency', runLatencyBench, {
    section: 'Live latency',
    command: 'npm run bench:latency'
  })

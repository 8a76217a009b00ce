// The page's muxer (live-mux.ts, read back here with mediabunny) read by main's MediaBuffer: real H.264 + Opus packets taken
// from a file ffmpeg wrote, muxed as the page muxes them, then scanned the way main scans the pushes.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BufferSource, EncodedPacketSink, Input, MATROSKA, type EncodedPacket } from 'mediabunny'
import { describe, expect, it } from 'vitest'
import { MediaBuffer } from '../../../src/main/core/broadcast/media-buffer'
import { MatroskaScanner, type ScanEvent } from '../../../src/main/core/broadcast/matroska-scanner'
import { startLiveMux } from '../../../src/renderer/src/features/live/engine/live-mux'
import { resolveFfprobe } from '../../../src/node/ffmpeg/locate'

// 4 s of 160x120 H.264 (a keyframe every second) + Opus.
const fixture = readFileSync(join(__dirname, '../../fixtures/core/h264-opus-4s.mkv'))

async function packetsOf(kind: 'video' | 'audio') {
  const input = new Input({ source: new BufferSource(fixture), formats: [MATROSKA] })
  const track =
    kind === 'video' ? await input.getPrimaryVideoTrack() : await input.getPrimaryAudioTrack()
  if (!track) throw new Error(`no ${kind} track in the fixture`)
  const config = await track.getDecoderConfig()
  const out: EncodedPacket[] = []
  for await (const p of new EncodedPacketSink(track).packets()) out.push(p)
  return { config, packets: out }
}

/** Muxes the fixture's packets in timestamp order, as the encoders hand them over live. */
async function muxFixture(withAudio: boolean): Promise<Buffer[]> {
  const v = await packetsOf('video')
  const a = await packetsOf('audio')
  const pushes: Buffer[] = []
  const mux = await startLiveMux({ audio: withAudio }, (b) => pushes.push(Buffer.from(b)))
  const all = [
    ...v.packets.map((p) => ({ p, kind: 'video' as const })),
    ...(withAudio ? a.packets.map((p) => ({ p, kind: 'audio' as const })) : [])
  ].sort((x, y) => x.p.timestamp - y.p.timestamp)
  let firstV = true
  let firstA = true
  for (const { p, kind } of all) {
    if (kind === 'video') {
      await mux.video(p, firstV ? { decoderConfig: v.config as VideoDecoderConfig } : undefined)
      firstV = false
    } else {
      // As an encoder does: the config with the first chunk only (which the muxer drops here).
      await mux.audio(p, firstA ? { decoderConfig: a.config as AudioDecoderConfig } : undefined)
      firstA = false
    }
  }
  await mux.finish()
  return pushes
}

describe('the page muxer read by main', () => {
  it('every cluster opens on a video keyframe; MediaBuffer finds them and a start point', async () => {
    const keyframes = (await packetsOf('video')).packets.filter((p) => p.type === 'key').length
    expect(keyframes).toBeGreaterThanOrEqual(4)
    const pushes = await muxFixture(true)
    const scanner = new MatroskaScanner()
    const events: ScanEvent[] = []
    const buffer = new MediaBuffer()
    let startedAt = -1
    pushes.forEach((chunk, i) => {
      events.push(...scanner.push(chunk))
      buffer.push(chunk)
      if (startedAt < 0 && buffer.startPoint()) startedAt = i
    })
    const clusters = events.filter((e) => e.type === 'cluster').length
    const keys = events.filter((e): e is { type: 'key'; key: boolean } => e.type === 'key')
    // One cluster per keyframe, each opening on it; at the stop the sound after the last picture may
    // close the stream in one more cluster, without video (nothing can start there, and none needs to).
    expect(keys.map((k) => k.key)).toEqual(Array(keyframes).fill(true))
    expect(clusters - keyframes).toBeGreaterThanOrEqual(0)
    expect(clusters - keyframes).toBeLessThanOrEqual(1)
    expect(events.findIndex((e) => e.type === 'cluster')).toBe(0)
    // (The scanner's time and block events sit between them; clusters and keys are what matter here.)
    const marks = events.filter((e) => e.type === 'cluster' || e.type === 'key')
    marks.forEach((e, i) => {
      if (e.type === 'cluster' && i < marks.length - 1) expect(marks[i + 1]?.type).toBe('key')
    })
    // A fresh ffmpeg could start from the first cluster on: the header plus a keyframe cluster.
    expect(startedAt).toBeGreaterThanOrEqual(0)
    expect(buffer.bufferedBytes).toBeGreaterThan(0)
  })

  it('ffmpeg reads the stream: H.264 and Opus, every video packet there', async () => {
    const total = (await packetsOf('video')).packets.length
    const dir = mkdtempSync(join(tmpdir(), 'onair-mux-'))
    try {
      const file = join(dir, 'live.mkv')
      writeFileSync(file, Buffer.concat(await muxFixture(true)))
      const probe = execFileSync(
        resolveFfprobe(),
        [
          '-v',
          'error',
          '-count_packets',
          '-show_entries',
          'stream=codec_name,nb_read_packets',
          '-of',
          'csv=p=0',
          file
        ],
        { encoding: 'utf8' }
      )
      const rows = probe.trim().split('\n')
      expect(rows[0]).toBe(`h264,${total}`)
      expect(rows[1]).toMatch(/^opus,\d+$/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('video only (no microphone): clusters still open on keyframes', async () => {
    const events: ScanEvent[] = []
    const scanner = new MatroskaScanner()
    for (const chunk of await muxFixture(false)) events.push(...scanner.push(chunk))
    const keys = events.filter((e): e is { type: 'key'; key: boolean } => e.type === 'key')
    expect(keys.length).toBeGreaterThanOrEqual(4)
    expect(keys.every((k) => k.key)).toBe(true)
  })
})

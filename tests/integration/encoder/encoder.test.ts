// Onair's encoder process (#33) through main's host, with real node-av (libx264, AAC) and a real
// ffprobe/ffmpeg reading what it made: a moving 720p30 picture with a band of fresh noise and a tone,
// pushed in real time as the page pushes them.
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MatroskaScanner, type ScanEvent } from '../../../src/main/core/broadcast/matroska-scanner'
import { EncoderHost, probeEncoders } from '../../../src/main/core/encoder/host'
import type { EncoderConfig } from '../../../src/shared/encoder-channel'
import { decodeAll, ffprobe } from '../../helpers/studio'
import { playRealTime, synth } from './synthetic'

const W = 1280
const H = 720
const FPS = 30
const FFPROBE = '/usr/bin/ffprobe'
const dir = mkdtempSync(join(tmpdir(), 'onair-encoder-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const config = (o: Partial<EncoderConfig> = {}): EncoderConfig => ({
  width: W,
  height: H,
  fps: FPS,
  videoKbps: 2500,
  keyframeSec: 2,
  encoder: 'x264',
  preset: 'veryfast',
  bframes: 2,
  audio: { sampleRate: 48_000, channels: 2, kbps: 128 },
  ...o
})

interface VideoPacket {
  pts: number
  size: number
  key: boolean
}

function videoPackets(file: string): Promise<VideoPacket[]> {
  return new Promise((resolve, reject) =>
    execFile(
      FFPROBE,
      ['-v', 'error', '-select_streams', 'v', '-show_entries', 'packet=pts_time,size,flags'].concat(
        ['-of', 'csv=p=0', file]
      ),
      { maxBuffer: 64 * 1024 * 1024 },
      (err, stdout) => {
        if (err) return reject(err)
        resolve(
          stdout
            .trim()
            .split('\n')
            .map((l) => l.split(','))
            .map(([pts, size, flags]) => ({
              pts: Number(pts),
              size: Number(size),
              key: (flags ?? '').includes('K')
            }))
        )
      }
    )
  )
}

function countFrames(file: string): Promise<{ video: number; audio: number; profile: string }> {
  return new Promise((resolve, reject) =>
    execFile(
      FFPROBE,
      [
        '-v',
        'error',
        '-count_frames',
        '-show_entries',
        'stream=codec_type,nb_read_frames,profile'
      ].concat(['-of', 'json', file]),
      (err, stdout) => {
        if (err) return reject(err)
        const s = (
          JSON.parse(stdout) as {
            streams: Array<{ codec_type: string; nb_read_frames: string; profile?: string }>
          }
        ).streams
        const v = s.find((x) => x.codec_type === 'video')
        const a = s.find((x) => x.codec_type === 'audio')
        resolve({
          video: Number(v?.nb_read_frames ?? 0),
          audio: Number(a?.nb_read_frames ?? 0),
          profile: v?.profile ?? ''
        })
      }
    )
  )
}

/** kbit per media second of the video track, second by second. */
const ratePerSecond = (packets: VideoPacket[]): number[] => {
  const out: number[] = []
  for (const p of packets) {
    const s = Math.floor(p.pts)
    out[s] = (out[s] ?? 0) + (p.size * 8) / 1000
  }
  return Array.from(out, (x) => Math.round(x ?? 0))
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length

interface Run {
  file: string
  stats: ReturnType<EncoderHost['stats']>
  pushed: number
  events: ScanEvent[]
  /** The newest video block's time the scanner had seen when the last frame was pushed (ms). */
  seenAtLastPush: number
  /** The last frame's time on the same clock (ms). */
  lastPushMs: number
}

async function run(
  name: string,
  n: number,
  o: { config?: EncoderConfig; before?: (i: number, host: EncoderHost) => void } = {}
): Promise<Run> {
  const host = new EncoderHost()
  const chunks: Buffer[] = []
  const scanner = new MatroskaScanner()
  const events: ScanEvent[] = []
  let newestVideo = -1
  host.onMedia((c) => {
    chunks.push(c)
    for (const e of scanner.push(c)) {
      events.push(e)
      if (e.type === 'block' && e.video) newestVideo = Math.max(newestVideo, e.ms)
    }
  })
  const started = await host.start(o.config ?? config())
  expect(started).toMatchObject({ ok: true })
  let seenAtLastPush = -1
  await playRealTime(synth(W, H, FPS), {
    n,
    fps: FPS,
    push: (b) => {
      const r = host.pushRaw(b)
      expect(r.ok).toBe(true)
    },
    before: (i) => {
      o.before?.(i, host)
      if (i === n - 1) seenAtLastPush = newestVideo
    }
  })
  await host.stop()
  const file = join(dir, `${name}.mkv`)
  writeFileSync(file, Buffer.concat(chunks))
  return {
    file,
    stats: host.stats(),
    pushed: n,
    events,
    seenAtLastPush,
    lastPushMs: ((n - 1) * 1000) / FPS
  }
}

describe('the encoder process at 720p30', () => {
  const KEY_AT = 45
  const SWITCH_AT = 120
  let r: Run
  let packets: VideoPacket[]

  beforeAll(async () => {
    r = await run('main', 210, {
      before: (i, host) => {
        if (i === KEY_AT) host.requestKeyframe()
        if (i === SWITCH_AT) host.setBitrate(800)
      }
    })
    packets = await videoPackets(r.file)
  })

  it('makes H.264 High and AAC at the right size, every frame it took, and ffmpeg decodes it', async () => {
    const probe = await ffprobe(r.file)
    const v = probe.streams.find((s) => s.codec_type === 'video')
    const a = probe.streams.find((s) => s.codec_type === 'audio')
    expect(v).toMatchObject({ codec_name: 'h264', width: W, height: H })
    expect(a).toMatchObject({ codec_name: 'aac' })
    const frames = await countFrames(r.file)
    expect(frames.profile).toBe('High')
    // Every pushed frame was either encoded or skipped (and counted), and every encoded one is there.
    expect(r.stats.encoded + r.stats.skipped).toBe(r.pushed)
    expect(frames.video).toBe(r.stats.encoded)
    expect(r.stats.encoded).toBeGreaterThan(r.pushed * 0.5)
    // 7 s of sound in 1024-sample AAC frames (48 kHz): about 328, less the encoder's priming.
    expect(frames.audio).toBeGreaterThan(300)
    expect((await decodeAll(r.file)).ok).toBe(true)
  })

  it("streams what the broadcaster's scanner takes: a cluster at each keyframe, blocks as made", () => {
    const clusters = r.events.filter((e) => e.type === 'cluster').length
    const keyClusters = r.events.filter((e) => e.type === 'key' && e.key).length
    const keyPackets = packets.filter((p) => p.key).length
    // Each video keyframe opens a cluster the scanner can start from (an audio-only first one aside).
    expect(keyPackets).toBeGreaterThanOrEqual(4)
    expect(keyClusters).toBeGreaterThanOrEqual(keyPackets)
    expect(clusters - keyClusters).toBeLessThanOrEqual(1)
    // Written as made: when the last frame went in, main had already seen video from less than a
    // second before it (x264's lookahead and threads hold some frames; a muxer that held a whole
    // cluster would be up to its 2 s behind).
    expect(r.lastPushMs - r.seenAtLastPush).toBeLessThan(1000)
  })

  it('takes a new bitrate while running: 2500 then 800 kbps', () => {
    const rates = ratePerSecond(packets)
    const before = mean(rates.slice(1, 4))
    const after = mean(rates.slice(5, 7))
    expect(before).toBeGreaterThan(1500)
    expect(after).toBeLessThan(before * 0.6)
  })

  it('makes a keyframe when asked, within a few frames', () => {
    const asked = KEY_AT / FPS
    // The request and the frames travel on different channels: the next frame encoded may be one
    // that waited in the pipe and the encoder's queue (up to ~6), or one or two after.
    const near = packets.filter(
      (p) => p.key && p.pts >= asked - 10 / FPS && p.pts <= asked + 6 / FPS
    )
    const keys = packets.filter((p) => p.key).map((p) => Math.round(p.pts * FPS))
    expect(near.length, `keyframes at frames ${keys.join(', ')}`).toBe(1)
  })
})

describe('the encoder process when it cannot keep up', () => {
  it.skipIf(process.platform === 'win32')(
    'skips frames before the encoder and counts them, and the stream still decodes',
    async () => {
      let pid: number | undefined
      let stopped = false
      const pulses = setInterval(() => {
        if (!pid) return
        process.kill(pid, 'SIGSTOP')
        stopped = true
        setTimeout(() => {
          if (pid) process.kill(pid, 'SIGCONT')
          stopped = false
        }, 300)
      }, 500)
      try {
        const r = await run('pulsed', 120, {
          before: (i, host) => {
            if (i === 0) pid = host.pid
          }
        })
        pid = undefined
        expect(r.stats.skipped).toBeGreaterThan(0)
        expect(r.stats.encoded + r.stats.skipped).toBe(r.pushed)
        expect((await countFrames(r.file)).video).toBe(r.stats.encoded)
        expect((await decodeAll(r.file)).ok).toBe(true)
      } finally {
        clearInterval(pulses)
        if (pid && stopped) process.kill(pid, 'SIGCONT')
      }
    }
  )
})

describe('encoder choice', () => {
  it('probes: x264 opens here, NVENC does not and says why', async () => {
    const list = await probeEncoders()
    const x264 = list.find((e) => e.id === 'x264')
    const nvenc = list.find((e) => e.id === 'nvenc')
    expect(x264).toMatchObject({ available: true, hardware: false })
    expect(nvenc).toMatchObject({ available: false, hardware: true })
    expect(nvenc?.reason ?? '').toMatch(/\w{4,}/)
    // Every candidate is listed, each with a reason when it cannot run.
    expect(list.map((e) => e.id).sort()).toEqual(
      ['amf', 'mediafoundation', 'nvenc', 'qsv', 'vaapi', 'videotoolbox', 'x264'].sort()
    )
    for (const e of list) if (!e.available) expect(e.reason).toBeTruthy()
  })

  it('a hardware encoder that cannot start falls back to x264 and names why', async () => {
    const host = new EncoderHost()
    const chunks: Buffer[] = []
    host.onMedia((c) => chunks.push(c))
    const started = await host.start(config({ encoder: 'nvenc', width: 640, height: 360 }))
    const probe = (await probeEncoders()).find((e) => e.id === 'nvenc')
    expect(started).toMatchObject({ ok: true, encoder: 'x264', label: 'x264 (software)' })
    // Which encoder did not open and its own words, as a state (the live bar words it).
    const fallback = started.ok ? started.fallback : undefined
    expect(fallback).toMatchObject({ tried: 'nvenc', label: 'NVIDIA NVENC H.264' })
    expect(fallback?.detail).toContain(probe?.reason ?? 'no probe reason')
    const s = synth(640, 360, FPS)
    for (let i = 0; i < 10; i++) {
      expect(host.pushRaw(s.video(i)).ok).toBe(true)
      host.pushRaw(s.audio(i))
    }
    await host.stop()
    const file = join(dir, 'fallback.mkv')
    writeFileSync(file, Buffer.concat(chunks))
    const probed = await ffprobe(file)
    expect(probed.streams.find((x) => x.codec_type === 'video')).toMatchObject({
      codec_name: 'h264',
      width: 640
    })
  })
})

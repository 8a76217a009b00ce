import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MediaBuffer } from '../../../src/main/core/broadcast/media-buffer'
import { MatroskaScanner, type ScanEvent } from '../../../src/main/core/broadcast/matroska-scanner'
import { block, el, groupBlock, open, uint } from '../../helpers/matroska-writer'

// 4 s of 160x120 H.264 (keyframe every second) + Opus, written by ffmpeg's Matroska muxer (live mode).
const file = readFileSync(join(__dirname, '../../fixtures/core/h264-opus-4s.mkv'))

function liveStream(): { bytes: Buffer; clusters: number[] } {
  const header = Buffer.concat([
    el(0x1a45dfa3, el(0x4282, Buffer.from('webm'))),
    open(0x18538067),
    el(0x1549a966, uint(0x2ad7b1, 1)),
    el(0x1654ae6b, el(0xae, uint(0xd7, 1), uint(0x83, 2)), el(0xae, uint(0xd7, 2), uint(0x83, 1)))
  ])
  const clusters = [
    [uint(0xe7, 0), block(1, true), block(2, true), block(2, false)], // audio first, then video key
    [uint(0xe7, 10), block(2, false), block(1, true)], // video starts with a delta frame
    [uint(0xe7, 20), groupBlock(2, false), block(2, false)], // BlockGroup keyframe
    [uint(0xe7, 30), groupBlock(2, true)] // BlockGroup with a reference: not a start point
  ]
  const parts = [header]
  const starts: number[] = []
  let at = header.length
  for (const c of clusters) {
    const b = Buffer.concat([open(0x1f43b675), ...c])
    starts.push(at)
    parts.push(b)
    at += b.length
  }
  return { bytes: Buffer.concat(parts), clusters: starts }
}

function scanInChunks(bytes: Buffer, sizes: number[]): ScanEvent[] {
  const s = new MatroskaScanner()
  const events: ScanEvent[] = []
  let i = 0
  let k = 0
  while (i < bytes.length) {
    const n = Math.max(1, sizes[k++ % sizes.length] ?? 1)
    events.push(...s.push(bytes.subarray(i, i + n)))
    i += n
  }
  return events
}

describe('Matroska scanner', () => {
  it('finds unknown-size clusters and whether each starts on a video keyframe', () => {
    const { bytes, clusters } = liveStream()
    const events = scanInChunks(bytes, [bytes.length])
    expect(events.filter((e) => e.type === 'cluster').map((e) => (e as { at: number }).at)).toEqual(
      clusters
    )
    expect(events.filter((e) => e.type === 'key').map((e) => (e as { key: boolean }).key)).toEqual([
      true,
      false,
      true,
      false
    ])
  })

  it('gives the same answer however the bytes are chunked (1 byte to whole)', () => {
    const { bytes } = liveStream()
    const whole = scanInChunks(bytes, [bytes.length])
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 20 }),
        (sizes) => {
          expect(scanInChunks(bytes, sizes)).toEqual(whole)
        }
      ),
      { numRuns: 200 }
    )
  })

  it('reads a real ffmpeg-written file: clusters at Cluster ids, keyframe clusters found', () => {
    const events = scanInChunks(file, [4096, 333, 17000])
    const starts = events.filter((e) => e.type === 'cluster').map((e) => (e as { at: number }).at)
    expect(starts).toHaveLength(7)
    for (const at of starts) expect(file.readUInt32BE(at)).toBe(0x1f43b675)
    // ffprobe -show_packets puts the keyframes at byte 807, 36038, 71244 and 109818: only the clusters
    // at 667, 71113 and 109679 open with one (the 1 s keyframe lands mid-cluster at 36038).
    const keyed = starts.filter(
      (_, i) => (events.filter((e) => e.type === 'key')[i] as { key: boolean }).key
    )
    expect(keyed).toEqual([667, 71113, 109679])
  })

  it('rejects data that is not EBML with an error', () => {
    const s = new MatroskaScanner()
    expect(() => s.push(Buffer.from([0, 0, 0, 0, 0x66, 0x74, 0x79, 0x70]))).toThrow(
      /not an EBML stream/
    )
  })
})

describe('media buffer', () => {
  it('hands out exactly the bytes it took, and a start point = header + newest keyframe cluster on', () => {
    const { bytes, clusters } = liveStream()
    const buf = new MediaBuffer()
    const out: Buffer[] = []
    for (let i = 0; i < bytes.length; i += 9)
      out.push(...buf.push(bytes.subarray(i, i + 9)).map((p) => p.bytes))
    expect(Buffer.concat(out)).toEqual(bytes)
    // Newest keyframe cluster is the third (BlockGroup without reference).
    const start = Buffer.concat(buf.startPoint()!.map((p) => p.bytes))
    expect(start).toEqual(
      Buffer.concat([bytes.subarray(0, clusters[0]), bytes.subarray(clusters[2])])
    )
  })

  it('has no start point before a keyframe cluster, and one for the real file', () => {
    const buf = new MediaBuffer()
    const { bytes, clusters } = liveStream()
    buf.push(bytes.subarray(0, clusters[0]! + 8))
    expect(buf.startPoint()).toBeUndefined()
    const real = new MediaBuffer()
    for (let i = 0; i < file.length; i += 5000) real.push(file.subarray(i, i + 5000))
    const start = Buffer.concat(real.startPoint()!.map((p) => p.bytes))
    expect(start.readUInt32BE(0)).toBe(0x1a45dfa3)
    expect(start.length).toBeLessThan(file.length)
  })

  it('stays bounded: drops oldest whole clusters beyond the budget', () => {
    const buf = new MediaBuffer(40_000)
    for (let i = 0; i < file.length; i += 1000) buf.push(file.subarray(i, i + 1000))
    expect(buf.bufferedBytes).toBeLessThanOrEqual(40_000 + 1000)
    expect(buf.droppedUnits).toBeGreaterThan(0)
  })
})

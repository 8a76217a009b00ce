// The clip cutter's choice of segments (#20): whole segments, each end on the boundary nearest to the
// time asked, so the clip's length is off by at most one segment; runs keep their order.
import { describe, expect, it } from 'vitest'
import { segmentsFor, timedSegments, type TimedSegment } from '../../../src/studio/clips'
import { parseMediaPlaylist } from '../../../src/studio/recordings'

const T0 = Date.parse('2026-11-25T20:00:00.000Z')
const iso = (ms: number): string => new Date(ms).toISOString().replace('Z', '+0000')

/** A run's playlist as ffmpeg writes it: 2 s segments (the last shorter) with their wall-clock time. */
function run(startMs: number, durations: number[], first = 0): string {
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-TARGETDURATION:2']
  let t = startMs
  durations.forEach((d, i) => {
    lines.push(
      `#EXT-X-PROGRAM-DATE-TIME:${iso(t)}`,
      `#EXTINF:${d.toFixed(6)},`,
      `seg${String(first + i).padStart(5, '0')}.ts`
    )
    t += d * 1000
  })
  return lines.join('\n') + '\n'
}

const span = (segs: TimedSegment[]): [number, number] => [
  segs[0]!.start - T0,
  segs.at(-1)!.end - T0
]

describe('segmentsFor', () => {
  const all = timedSegments([parseMediaPlaylist(run(T0, [2, 2, 2, 2, 2, 2, 1.5]))])

  it('reads each segment’s wall-clock span from EXT-X-PROGRAM-DATE-TIME', () => {
    expect(all.map((s) => [s.start - T0, s.end - T0])).toEqual([
      [0, 2000],
      [2000, 4000],
      [4000, 6000],
      [6000, 8000],
      [8000, 10000],
      [10000, 12000],
      [12000, 13500]
    ])
  })

  it('takes the boundaries nearest to the times asked: within half a segment at each end', () => {
    // 2.9 s .. 9.1 s: 2-4 and 8-10 are each 1.1 s inside, more than half: taken; 3.1 .. 8.9: not
    expect(span(segmentsFor(all, T0 + 2900, T0 + 9100))).toEqual([2000, 10000])
    expect(span(segmentsFor(all, T0 + 3100, T0 + 8900))).toEqual([4000, 8000])
    for (const [a, b] of [
      [100, 5300],
      [2500, 11900],
      [7000, 13400],
      [1, 2]
    ] as const) {
      const [s, e] = span(segmentsFor(all, T0 + a, T0 + b))
      expect(Math.abs(e - s - (b - a))).toBeLessThanOrEqual(2000)
    }
  })

  it('a stretch shorter than half a segment takes the segment holding most of it', () => {
    expect(span(segmentsFor(all, T0 + 4700, T0 + 5200))).toEqual([4000, 6000])
  })

  it('takes nothing outside the media, and keeps runs apart and in order', () => {
    expect(segmentsFor(all, T0 + 20_000, T0 + 30_000)).toEqual([])
    const two = timedSegments([
      parseMediaPlaylist(run(T0, [2, 2])),
      parseMediaPlaylist(run(T0 + 10_000, [2, 2]))
    ])
    const cut = segmentsFor(two, T0 + 1000, T0 + 13_000)
    expect(cut.map((s) => [s.part, s.uri])).toEqual([
      [0, 'seg00000.ts'],
      [0, 'seg00001.ts'],
      [1, 'seg00000.ts'],
      [1, 'seg00001.ts']
    ])
  })

  it('skips a segment without a wall-clock time instead of guessing one', () => {
    const segs = parseMediaPlaylist('#EXTM3U\n#EXTINF:2.0,\nseg00000.ts\n')
    expect(timedSegments([segs])).toEqual([])
  })
})

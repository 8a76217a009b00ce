// RawAssembler: a stream of raw-media bytes, in pieces of any size, cut into whole messages whose
// payloads are views of the pieces (never copied), and a broken header stopping it with the format's words.
import { describe, expect, it } from 'vitest'
import {
  RawAssembler,
  i420Bytes,
  packRaw,
  type RawPieces
} from '../../../src/shared/raw-media'

const frame = (ts: number, fill: number): Uint8Array =>
  packRaw(
    { kind: 'video', width: 16, height: 8, timestampUs: ts },
    new Uint8Array(i420Bytes(16, 8)).fill(fill)
  )
const sound = (ts: number): Uint8Array =>
  packRaw(
    { kind: 'audio', sampleRate: 48_000, channels: 2, frames: 10, timestampUs: ts },
    new Uint8Array(80).fill(9)
  )
const joined = (parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

describe('RawAssembler', () => {
  it('cuts pieces of every size into the messages sent, headers split across pieces included', () => {
    const stream = joined([frame(0, 1), sound(0), frame(33_333, 2), frame(66_666, 3)])
    for (const size of [1, 5, 23, 24, 25, 100, 215, stream.length]) {
      const a = new RawAssembler()
      const got: RawPieces[] = []
      for (let at = 0; at < stream.length; at += size)
        expect(a.push(stream.subarray(at, at + size), (m) => got.push(m))).toEqual({ ok: true })
      expect(got.map((m) => m.header.kind)).toEqual(['video', 'audio', 'video', 'video'])
      expect(got.map((m) => m.header.timestampUs)).toEqual([0, 0, 33_333, 66_666])
      // Header and pieces, put back together, are the bytes sent.
      expect(joined(got.flatMap((m) => [m.headerBytes, ...m.parts]))).toEqual(stream)
      expect(a.pending).toBe(0)
    }
  })

  it("hands the pieces' own memory on (views, no copies)", () => {
    const f = frame(0, 7)
    const piece = new Uint8Array(f)
    const got: RawPieces[] = []
    new RawAssembler().push(piece, (m) => got.push(m))
    expect(got[0]!.parts[0]!.buffer).toBe(piece.buffer)
  })

  it('says how much of a message it holds, and stops for good at a broken header', () => {
    const a = new RawAssembler()
    const f = frame(0, 1)
    a.push(f.subarray(0, 30), () => undefined)
    expect(a.pending).toBe(30)
    a.push(f.subarray(30), () => undefined)
    const bad = frame(0, 1)
    bad[4] = 9
    const r = a.push(bad, () => undefined)
    expect(r).toEqual({ ok: false, error: 'raw media: unknown kind 9' })
    expect(a.push(frame(0, 1), () => undefined)).toEqual(r)
    const huge = frame(0, 1)
    new DataView(huge.buffer).setUint32(8, 1 << 20, true)
    expect(new RawAssembler().push(huge, () => undefined)).toMatchObject({
      ok: false,
      error: expect.stringContaining('is not an even size') as unknown
    })
  })
})

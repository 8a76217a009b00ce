import { describe, expect, it } from 'vitest'
import {
  RAW_HEADER_BYTES,
  i420Bytes,
  packRaw,
  readAllRaw,
  readRaw,
  writeRawHeader,
  type RawHeader
} from '../../../src/shared/raw-media'

const video: RawHeader = { kind: 'video', width: 4, height: 2, timestampUs: 33_366.5 }
const audio: RawHeader = {
  kind: 'audio',
  sampleRate: 48_000,
  channels: 2,
  frames: 3,
  timestampUs: 1e6
}

describe('raw media messages', () => {
  it('round-trips a picture and a sound, several in one buffer', () => {
    const pic = Uint8Array.from({ length: i420Bytes(4, 2) }, (_, i) => i)
    const snd = new Uint8Array(new Float32Array([0.5, -0.5, 0.25, 1, 0, -1]).buffer)
    const both = new Uint8Array([...packRaw(video, pic), ...packRaw(audio, snd)])
    const r = readAllRaw(both)
    if (!r.ok) throw new Error(r.error)
    expect(r.messages.map((m) => m.header)).toEqual([video, audio])
    expect([...r.messages[0]!.payload]).toEqual([...pic])
    expect([...new Float32Array(r.messages[1]!.payload.slice().buffer)]).toEqual([
      0.5, -0.5, 0.25, 1, 0, -1
    ])
  })

  it('sizes I420 with chroma rounded up', () => {
    expect(i420Bytes(1280, 720)).toBe(1_382_400)
    expect(i420Bytes(6, 4)).toBe(24 + 2 * 3 * 2)
  })

  it('says partial until the whole message has come', () => {
    const m = packRaw(video, new Uint8Array(i420Bytes(4, 2)))
    expect(readRaw(m.subarray(0, 10))).toEqual({ ok: 'partial', need: RAW_HEADER_BYTES - 10 })
    expect(readRaw(m.subarray(0, RAW_HEADER_BYTES + 1))).toEqual({
      ok: 'partial',
      need: m.byteLength - RAW_HEADER_BYTES - 1
    })
    expect(readRaw(m).ok).toBe(true)
  })

  it('refuses headers that break the format', () => {
    const bad = (edit: (v: DataView) => void): string => {
      const m = packRaw(video, new Uint8Array(i420Bytes(4, 2)))
      edit(new DataView(m.buffer))
      const r = readRaw(m)
      return r.ok === false ? r.error : 'accepted'
    }
    expect(bad((v) => v.setUint8(4, 9))).toMatch(/unknown kind 9/)
    expect(bad((v) => v.setUint32(8, 5, true))).toMatch(/even size/)
    expect(bad((v) => v.setUint32(8, 10_000, true))).toMatch(/even size/)
    expect(bad((v) => v.setUint32(0, 7, true))).toMatch(/payload bytes/)
    expect(bad((v) => v.setFloat64(16, NaN, true))).toMatch(/not a number/)
    const snd = new Uint8Array(RAW_HEADER_BYTES + 24)
    writeRawHeader(snd, 0, { ...audio, channels: 9 } as RawHeader)
    expect(readRaw(snd)).toMatchObject({ ok: false, error: expect.stringMatching(/9 channels/) })
    expect(
      readAllRaw(packRaw(video, new Uint8Array(i420Bytes(4, 2))).subarray(0, 30))
    ).toMatchObject({ ok: false })
  })
})

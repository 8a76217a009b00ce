// The frame socket's WebSocket pieces (main's web/frame-socket.ts): the handshake's accept key (RFC
// 6455's own example), unmasking in place at any alignment and mask phase, and server frames.
import { describe, expect, it } from 'vitest'
import { acceptKey, serverFrame, unmask } from '../../../src/main/web/frame-socket'

describe('frame socket: WebSocket pieces', () => {
  it("answers RFC 6455's example key with its accept value", () => {
    expect(acceptKey('dGhlIHNhbXBsZSBub25jZQ==')).toBe('s3pPLMBiTxaQ9kYGzzhZRbK+xOo=')
  })

  it('unmasks in place, in pieces of any offset and length, as one pass would', () => {
    const mask = Uint8Array.from([0x12, 0x34, 0x56, 0x78])
    const plain = Uint8Array.from({ length: 1000 }, (_, i) => (i * 31) & 255)
    const masked = plain.map((b, i) => b ^ mask[i & 3]!)
    for (const start of [0, 1, 2, 3, 5]) {
      for (const size of [1, 3, 4, 7, 64, 999]) {
        const buf = new Uint8Array(start + masked.length)
        buf.set(masked, start)
        const data = buf.subarray(start)
        let phase = 0
        for (let at = 0; at < data.length; at += size)
          phase = unmask(data.subarray(at, at + size), mask, phase)
        expect(data).toEqual(plain)
        expect(phase).toBe(data.length & 3)
      }
    }
  })

  it('writes server frames with the short, 16-bit and 64-bit lengths', () => {
    expect([...serverFrame(1, Buffer.from('ok'))]).toEqual([0x81, 2, 0x6f, 0x6b])
    const mid = serverFrame(2, new Uint8Array(300))
    expect([mid[0], mid[1], mid.readUInt16BE(2), mid.length]).toEqual([0x82, 126, 300, 304])
    const big = serverFrame(2, new Uint8Array(70_000))
    expect([big[1], Number(big.readBigUInt64BE(2)), big.length]).toEqual([127, 70_000, 70_010])
  })
})

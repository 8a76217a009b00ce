// The frame socket's close reason (main/web/frame-socket.ts): RFC 6455 allows 123 bytes of UTF-8, and a
// refusal's words may be longer or not ASCII; ws throws on a longer reason, so it is cut on a
// character boundary instead.
import { describe, expect, it } from 'vitest'
import { closeReason } from '../../../src/main/web/frame-socket'

describe('frame socket close reason', () => {
  it('keeps a short reason as it is', () => {
    expect(closeReason('raw media: unknown kind 9')).toBe('raw media: unknown kind 9')
  })

  it('cuts a long reason to at most 123 bytes, whole characters only', () => {
    const long = 'é'.repeat(100) // 200 bytes
    const cut = closeReason(long)
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(123)
    expect(cut).toBe('é'.repeat(61))
    expect(Buffer.from(cut).toString('utf8')).toBe(cut)
  })
})

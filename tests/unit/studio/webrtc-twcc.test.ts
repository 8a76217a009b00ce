// The studio's transport-wide congestion control feedback (#21): read back with werift's own RTCP
// parser (an independent reader of the same draft; its run-length results are counted here, see
// readBack), it says which packets came, in order, and when.
import { describe, expect, it } from 'vitest'
import { RtcpPacketConverter, RtcpTransportLayerFeedback, TransportWideCC } from 'werift'
import { transportFeedback, TwccResponder, type Arrival } from '../../../src/studio/webrtc/twcc'

/** Parses one feedback packet: base, statuses as received or not, and arrival times (µs). */
function readBack(packet: Buffer): { base: number; received: boolean[]; atUs: number[] } {
  const [rtcp] = RtcpPacketConverter.deSerialize(packet)
  expect(rtcp).toBeInstanceOf(RtcpTransportLayerFeedback)
  const fb = (rtcp as RtcpTransportLayerFeedback).feedback as TransportWideCC
  expect(fb).toBeInstanceOf(TransportWideCC)
  // The run-length chunks as werift reads them (its packetResults counts one too many a run).
  const received: boolean[] = []
  for (const c of fb.packetChunks as { packetStatus: number; runLength: number }[])
    for (let i = 0; i < c.runLength; i++)
      received.push(c.packetStatus === 1 || c.packetStatus === 2)
  let at = fb.referenceTime * 64_000
  const atUs: number[] = []
  fb.recvDeltas.forEach((d) => {
    at += d.delta
    atUs.push(at)
  })
  return {
    base: fb.baseSequenceNumber,
    received: received.slice(0, fb.packetStatusCount),
    atUs
  }
}

describe('transport-wide congestion control feedback', () => {
  it('says which packets came and when, losses included, small and large deltas', () => {
    const t0 = 5_000_000_123
    const arrivals: Arrival[] = [t0, t0 + 1_000, undefined, undefined, t0 + 70_000, t0 + 69_000]
    const { packet, covered } = transportFeedback({
      senderSsrc: 1,
      mediaSsrc: 2,
      baseSeq: 65_534,
      arrivals,
      count: 7
    })
    expect(covered).toBe(6)
    expect(packet.length % 4).toBe(0)
    const back = readBack(packet)
    expect(back.base).toBe(65_534)
    expect(back.received).toEqual([true, true, false, false, true, true])
    // Each arrival within a quarter of a millisecond (the field's unit), a late one (reordered) too.
    const got = arrivals.filter((a): a is number => a !== undefined)
    back.atUs.forEach((at, i) => expect(Math.abs(at - got[i]!)).toBeLessThanOrEqual(250))
  })

  it('the responder unwraps the 16-bit numbers and reports each packet once, in order', () => {
    const sent: Buffer[] = []
    let now = 1_000_000
    const r = new TwccResponder(
      (p) => sent.push(p),
      9,
      () => now
    )
    for (const seq of [65_533, 65_534, 65_535, 0, 2]) {
      r.onPacket(seq)
      now += 2_000
    }
    r.flush()
    expect(sent).toHaveLength(1)
    const a = readBack(sent[0]!)
    expect(a.base).toBe(65_533)
    expect(a.received).toEqual([true, true, true, true, false, true])
    // Sequence 1 comes late, after it was reported lost: it is not reported again.
    r.onPacket(1)
    r.onPacket(3)
    r.flush()
    const b = readBack(sent[1]!)
    expect(b.base).toBe(3)
    expect(b.received).toEqual([true])
    r.flush()
    expect(sent).toHaveLength(2)
  })
})

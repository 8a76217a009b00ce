// Lost video packets of a WHIP publisher (#21): asked again by NACK while a repair can still come,
// else a keyframe at once; a keyframe makes what was lost before it moot. The NACK is read back with
// werift's own RTCP parser.
import { describe, expect, it } from 'vitest'
import { GenericNack, RtcpPacketConverter, RtcpTransportLayerFeedback } from 'werift'
import { GIVE_UP_MS, LossRepair, RENACK_MS, repairLosses } from '../../../src/studio/webrtc/loss'

function rig(opts: { maxMissing?: number } = {}): {
  loss: LossRepair
  nacks: number[][]
  keyframes: () => number
  at: (ms: number) => void
} {
  let now = 1_000
  const nacks: number[][] = []
  let keyframes = 0
  const loss = new LossRepair({
    now: () => now,
    nack: (s) => nacks.push(s),
    keyframe: () => keyframes++,
    ...opts
  })
  return { loss, nacks, keyframes: () => keyframes, at: (ms) => (now = 1_000 + ms) }
}

describe('lost packets of a WHIP publisher', () => {
  it('asks for a gap at once, again while it is missing, and counts the repair', () => {
    const r = rig()
    r.loss.received(10)
    r.loss.received(11)
    r.loss.received(14)
    expect(r.nacks).toEqual([[12, 13]])
    expect(r.loss.pending).toBe(2)
    r.at(RENACK_MS - 1)
    r.loss.tick()
    expect(r.nacks).toHaveLength(1)
    r.at(RENACK_MS)
    r.loss.tick()
    expect(r.nacks).toEqual([
      [12, 13],
      [12, 13]
    ])
    r.loss.received(12) // a retransmission
    r.at(2 * RENACK_MS)
    r.loss.tick()
    expect(r.nacks[2]).toEqual([13])
    r.loss.received(13)
    expect(r.loss.pending).toBe(0)
    expect(r.loss.stats).toMatchObject({ lost: 2, repaired: 2, givenUp: 0, keyframesAsked: 0 })
    expect(r.keyframes()).toBe(0)
  })

  it('gives up a packet missing too long and asks for one keyframe, not one per packet', () => {
    const r = rig()
    r.loss.received(100)
    r.loss.received(103)
    r.at(50)
    r.loss.received(106)
    r.at(GIVE_UP_MS)
    r.loss.tick()
    expect(r.keyframes()).toBe(1)
    // Everything missing then is covered by that keyframe.
    expect(r.loss.pending).toBe(0)
    expect(r.loss.stats).toMatchObject({ lost: 4, givenUp: 4, keyframesAsked: 1 })
    r.at(GIVE_UP_MS + 1_000)
    r.loss.tick()
    expect(r.keyframes()).toBe(1)
  })

  it('a keyframe that arrives makes the losses before it moot: no keyframe is asked for', () => {
    const r = rig()
    r.loss.received(1)
    r.loss.received(4)
    r.loss.received(5, true)
    expect(r.loss.pending).toBe(0)
    expect(r.loss.stats).toMatchObject({ lost: 2, superseded: 2 })
    r.at(GIVE_UP_MS * 2)
    r.loss.tick()
    expect(r.keyframes()).toBe(0)
  })

  it('a loss after the keyframe was asked for asks again once it is given up in turn', () => {
    const r = rig()
    r.loss.received(1)
    r.loss.received(3)
    r.at(GIVE_UP_MS)
    r.loss.tick()
    expect(r.keyframes()).toBe(1)
    r.at(GIVE_UP_MS + 10)
    r.loss.received(6)
    r.at(2 * GIVE_UP_MS + 10)
    r.loss.tick()
    expect(r.keyframes()).toBe(2)
  })

  it('asks for a keyframe at once when too many packets are missing to repair', () => {
    const r = rig({ maxMissing: 50 })
    r.loss.received(65_500)
    r.loss.received(65_500 + 60 - 65_536) // across the 16-bit wrap: 59 missing
    expect(r.keyframes()).toBe(1)
    expect(r.nacks).toHaveLength(0)
    expect(r.loss.stats.lost).toBe(59)
  })

  it('reads sequence numbers across the 16-bit wrap, and an old duplicate is no loss', () => {
    const r = rig()
    r.loss.received(65_534)
    r.loss.received(1)
    expect(r.nacks).toEqual([[65_535, 0]])
    r.loss.received(65_530)
    expect(r.loss.stats.lost).toBe(2)
    r.loss.received(0)
    r.loss.received(65_535)
    expect(r.loss.stats.repaired).toBe(2)
  })

  it("sends the NACK as RTCP on the receiver's transport, for the media's SSRC", async () => {
    const sent: Buffer[] = []
    const receiver = {
      rtcpSsrc: 77,
      nack: { addPacket: () => undefined, close: () => undefined },
      dtlsTransport: {
        sendRtcp: (ps: { serialize(): Buffer }[]) => {
          sent.push(...ps.map((p) => p.serialize()))
          return Promise.resolve()
        }
      }
    }
    const loss = repairLosses(
      receiver as never,
      () => 0xabcdef,
      () => undefined
    )
    loss.received(500)
    loss.received(503)
    await Promise.resolve()
    expect(sent).toHaveLength(1)
    const [rtcp] = RtcpPacketConverter.deSerialize(sent[0]!)
    expect(rtcp).toBeInstanceOf(RtcpTransportLayerFeedback)
    const nack = (rtcp as RtcpTransportLayerFeedback).feedback as GenericNack
    expect(nack).toBeInstanceOf(GenericNack)
    expect(nack.mediaSourceSsrc).toBe(0xabcdef)
    expect(nack.senderSsrc).toBe(77)
    expect([...nack.lost].sort((a, b) => a - b)).toEqual([501, 502])
  })
})

// Transport-wide congestion control feedback for a WHIP publisher: which packets (by the transport-wide
// sequence number every RTP packet carries, audio and video alike) arrived, and when. The sender's
// congestion controller (Chromium's, OBS's) reads from it how the queue on the path grows and sets its
// bitrate by it; without usable feedback it stays at its start value (measured: Chromium sent 130
// kbit/s at 180p for ever).
//
// werift 0.24 negotiates transport-cc and sends feedback of its own, but Chromium cannot use it: each
// receiver (audio, video) reports only its own packets, so the other kind's numbers read as lost, and
// a gap is never written as "not received". So the studio writes the feedback itself, the RTCP packet
// of draft-holmer-rmcat-transport-wide-cc-extensions-01 (section 3.1), for every packet of the peer.
import type { RTCPeerConnection } from 'werift'

/** One packet's fate: its arrival (µs on the feedback's clock), or undefined if it never came. */
export type Arrival = number | undefined

const NOT_RECEIVED = 0
const SMALL_DELTA = 1
const LARGE_DELTA = 2
/** Receive deltas count in 250 µs; the reference time in 64 ms. */
const DELTA_US = 250
const REFERENCE_US = 64_000
const MAX_RUN = 0x1fff

/**
 * The RTCP transport feedback packet (PT 205, FMT 15) for packets baseSeq, baseSeq + 1, ... whose
 * fates are `arrivals` (one at least must have arrived: its time is the reference). Deltas are
 * written from the reference time, each
 * from the previous arrival as written (so rounding never drifts); a delta that fits no field ends the
 * packet early: the return says how many packets it covers.
 */
export function transportFeedback(o: {
  senderSsrc: number
  mediaSsrc: number
  baseSeq: number
  arrivals: readonly Arrival[]
  count: number
}): { packet: Buffer; covered: number } {
  const first = o.arrivals.find((a) => a !== undefined)
  if (first === undefined) throw new Error('a feedback needs a packet that arrived')
  const refUnits = Math.floor(first / REFERENCE_US)
  let prev = refUnits * REFERENCE_US
  const statuses: number[] = []
  const deltas: Buffer[] = []
  for (const at of o.arrivals) {
    if (at === undefined) {
      statuses.push(NOT_RECEIVED)
      continue
    }
    const units = Math.round((at - prev) / DELTA_US)
    if (units >= 0 && units <= 0xff) {
      statuses.push(SMALL_DELTA)
      deltas.push(Buffer.from([units]))
    } else if (units >= -0x8000 && units <= 0x7fff) {
      statuses.push(LARGE_DELTA)
      const b = Buffer.alloc(2)
      b.writeInt16BE(units)
      deltas.push(b)
    } else break
    prev += units * DELTA_US
  }
  // Packets not received at the end say nothing: leave them for the next feedback.
  while (statuses[statuses.length - 1] === NOT_RECEIVED) statuses.pop()
  const chunks: Buffer[] = []
  for (let i = 0; i < statuses.length;) {
    let run = 1
    while (i + run < statuses.length && statuses[i + run] === statuses[i] && run < MAX_RUN) run++
    const c = Buffer.alloc(2)
    // T = 0 (run length), S (2 bits), run length (13 bits).
    c.writeUInt16BE(((statuses[i]! & 0x3) << 13) | run)
    chunks.push(c)
    i += run
  }
  const fixed = Buffer.alloc(16)
  fixed.writeUInt32BE(o.senderSsrc >>> 0, 0)
  fixed.writeUInt32BE(o.mediaSsrc >>> 0, 4)
  fixed.writeUInt16BE(o.baseSeq & 0xffff, 8)
  fixed.writeUInt16BE(statuses.length, 10)
  fixed.writeUIntBE(refUnits & 0xffffff, 12, 3)
  fixed.writeUInt8(o.count & 0xff, 15)
  const body = Buffer.concat([fixed, ...chunks, ...deltas])
  const pad = (4 - (body.length % 4)) % 4
  const header = Buffer.alloc(4)
  // V = 2, P when padded (the last byte says how many), FMT = 15; PT 205; length in words - 1.
  header[0] = 0x80 | (pad ? 0x20 : 0) | 15
  header[1] = 205
  header.writeUInt16BE((4 + body.length + pad) / 4 - 1, 2)
  const padding = Buffer.alloc(pad)
  if (pad) padding[pad - 1] = pad
  return { packet: Buffer.concat([header, body, padding]), covered: statuses.length }
}

/**
 * Collects arrivals by transport-wide sequence number (16 bits, unwrapped here) and sends feedback
 * for what came since the last one. `now` is in µs.
 */
export class TwccResponder {
  private arrivals = new Map<number, number>()
  private base: number | undefined
  private max: number | undefined
  private last: number | undefined
  private count = 0

  constructor(
    private readonly send: (packet: Buffer) => void,
    private readonly senderSsrc: number,
    private readonly now: () => number,
    private readonly mediaSsrc: () => number = () => 0
  ) {}

  onPacket(seq: number | undefined): void {
    if (seq === undefined) return
    const n = this.unwrap(seq)
    if (this.base !== undefined && n < this.base) return // reported already (a late duplicate)
    if (!this.arrivals.has(n)) this.arrivals.set(n, this.now())
    this.base ??= n
    this.max = Math.max(this.max ?? n, n)
  }

  /** Sends feedback for every packet up to the newest that came; the rest waits for the next. */
  flush(): void {
    while (this.base !== undefined && this.max !== undefined && this.base <= this.max) {
      const arrivals: Arrival[] = []
      for (let n = this.base; n <= this.max; n++) arrivals.push(this.arrivals.get(n))
      const { packet, covered } = transportFeedback({
        senderSsrc: this.senderSsrc,
        mediaSsrc: this.mediaSsrc(),
        baseSeq: this.base & 0xffff,
        arrivals,
        count: this.count++
      })
      this.send(packet)
      if (covered === 0) return
      const next = this.base + covered
      for (let n = this.base; n < next; n++) this.arrivals.delete(n)
      this.base = next
    }
  }

  private unwrap(seq: number): number {
    this.last = this.last === undefined ? seq : unwrap16(this.last, seq)
    return this.last
  }
}

/**
 * A 16-bit RTP or transport-wide sequence number as a count that keeps rising past 65535: the one
 * nearest `reference` (an unwrapped number seen before), forward or back.
 */
export function unwrap16(reference: number, seq: number): number {
  let d = (seq - (reference & 0xffff)) & 0xffff
  if (d >= 0x8000) d -= 0x10000
  return reference + d
}

/** A receiver's hook where werift hands each packet's transport-wide sequence number. */
interface TwccHook {
  receiverTWCC?: { handleTWCC(seq: number | undefined): void; twccRunning: boolean }
  rtcpSsrc?: number
  dtlsTransport?: { sendRtcp(packets: { serialize(): Buffer }[]): Promise<unknown> }
}

/**
 * Makes the studio, not werift, answer this peer's packets with transport feedback: every receiver
 * (audio and video) hands its packets' numbers to one responder, flushed every `everyMs`. Call after
 * the remote description is set, before media flows. Returns the flushing timer (clear it at the end).
 */
export function answerWithTwcc(
  pc: RTCPeerConnection,
  everyMs = 50
): ReturnType<typeof setInterval> | undefined {
  const receivers = pc.getTransceivers().map((t) => t.receiver as unknown as TwccHook)
  const first = receivers[0]
  if (!first?.dtlsTransport) return undefined
  const transport = first.dtlsTransport
  const video = pc.getTransceivers().find((t) => t.kind === 'video')
  const responder = new TwccResponder(
    (packet) => void transport.sendRtcp([{ serialize: () => packet }]).catch(() => {}),
    first.rtcpSsrc ?? 1,
    () => Number(process.hrtime.bigint() / 1000n),
    () => video?.receiver.tracks[0]?.ssrc ?? 0
  )
  // werift creates its own ReceiverTWCC only where none is set: this one takes its place.
  for (const r of receivers)
    r.receiverTWCC = { handleTWCC: (seq) => responder.onPacket(seq), twccRunning: false }
  const timer = setInterval(() => responder.flush(), everyMs)
  timer.unref?.()
  return timer
}

// Lost video packets of a WHIP publisher: asked again (NACK) for as long as a repair can still come,
// and when one cannot, a keyframe asked for at once (PLI), so the picture is frozen for one round trip
// and a keyframe, not until a viewer's decoder gives up and asks for one itself.
//
// werift 0.24's own NACK handler asks ten times 5 ms apart and then forgets the packet: on a congested
// uplink (a router queue of a few hundred ms) the repair cannot come back within those 50 ms, and a
// retransmission that is itself dropped is never asked for again. Measured before this: a 40 %
// throttle dropped 71 packets and the WHEP monitor froze for 3.7 s, until a keyframe.
//
// Every viewer gets the repairs too: the retransmission arrives as the original packet (werift
// unwraps RTX) and is forwarded like any other.
import { GenericNack, RtcpTransportLayerFeedback, type RTCRtpReceiver } from 'werift'
import { unwrap16 } from './twcc'

export interface LossOptions {
  /** Sends a NACK for these 16-bit sequence numbers. */
  nack(seqs: number[]): void
  /** Asks the sender for a keyframe. */
  keyframe(): void
  now?: () => number
  /** A missing packet is asked for again this often (the sender ignores repeats within its RTT). */
  renackMs?: number
  /** A packet still missing after this long is given up: a keyframe is asked for instead. */
  giveUpMs?: number
  /** More packets missing at once than this: a keyframe at once (a repair would take longer). */
  maxMissing?: number
}

export const RENACK_MS = 100
export const GIVE_UP_MS = 350
export const MAX_MISSING = 300

interface Missing {
  since: number
  asked: number
}

export interface LossStats {
  /** Packets found missing. */
  lost: number
  /** Of those, repaired by a retransmission. */
  repaired: number
  /** Of those, made moot by a keyframe that came after them. */
  superseded: number
  /** Of those, given up (a keyframe was asked for). */
  givenUp: number
  nacksSent: number
  keyframesAsked: number
}

/** Tracks one video stream's sequence numbers (16 bits, unwrapped here). */
export class LossRepair {
  private readonly missing = new Map<number, Missing>()
  private highest: number | undefined
  /** When the last keyframe was asked for; losses before it are covered by it. */
  private askedAt = -Infinity
  readonly stats: LossStats = {
    lost: 0,
    repaired: 0,
    superseded: 0,
    givenUp: 0,
    nacksSent: 0,
    keyframesAsked: 0
  }
  private readonly now: () => number
  private readonly renackMs: number
  private readonly giveUpMs: number
  private readonly maxMissing: number

  constructor(private readonly o: LossOptions) {
    this.now = o.now ?? Date.now
    this.renackMs = o.renackMs ?? RENACK_MS
    this.giveUpMs = o.giveUpMs ?? GIVE_UP_MS
    this.maxMissing = o.maxMissing ?? MAX_MISSING
  }

  /** Packets missing now (tests, logs). */
  get pending(): number {
    return this.missing.size
  }

  /** A packet came (a retransmission included); `keyframe` when it starts one. */
  received(seq: number, keyframe = false): void {
    const at = this.now()
    const n = this.unwrap(seq)
    if (this.missing.delete(n)) {
      this.stats.repaired++
    } else if (this.highest === undefined || n > this.highest) {
      const from = this.highest === undefined ? n : this.highest + 1
      const fresh: number[] = []
      for (let m = from; m < n; m++) {
        this.missing.set(m, { since: at, asked: at })
        fresh.push(m & 0xffff)
      }
      this.stats.lost += fresh.length
      this.highest = n
      if (this.missing.size > this.maxMissing) {
        this.giveUp()
      } else if (fresh.length) {
        this.sendNack(fresh)
      }
    }
    if (keyframe) {
      // What came before a keyframe is not needed to decode what follows it.
      for (const m of [...this.missing.keys()]) {
        if (m < n) {
          this.missing.delete(m)
          this.stats.superseded++
        }
      }
    }
  }

  /** Called every few tens of ms: asks again, or gives up and asks for a keyframe. */
  tick(): void {
    if (!this.missing.size) return
    const at = this.now()
    const again: number[] = []
    let expired = 0
    for (const [m, x] of this.missing) {
      if (at - x.since >= this.giveUpMs) expired++
      else if (at - x.asked >= this.renackMs) {
        x.asked = at
        again.push(m & 0xffff)
      }
    }
    if (expired) this.giveUp()
    else if (again.length) this.sendNack(again)
  }

  private giveUp(): void {
    const at = this.now()
    // Everything missing now is covered by the keyframe asked for (or already on its way).
    const oldest = Math.min(...[...this.missing.values()].map((x) => x.since))
    this.stats.givenUp += this.missing.size
    this.missing.clear()
    if (this.askedAt >= oldest) return
    this.askedAt = at
    this.stats.keyframesAsked++
    this.o.keyframe()
  }

  private sendNack(seqs: number[]): void {
    this.stats.nacksSent++
    this.o.nack(seqs)
  }

  private unwrap(seq: number): number {
    return this.highest === undefined ? seq : unwrap16(this.highest, seq)
  }
}

/** The receiver's hooks used here (werift 0.24 internals, as twcc.ts uses). */
interface NackHook {
  nack?: { addPacket(packet: unknown): void; close(): void }
  rtcpSsrc?: number
  dtlsTransport?: { sendRtcp(packets: unknown[]): Promise<unknown> }
}

/**
 * Takes NACKs over from werift for this video receiver: werift's handler is silenced, and the
 * returned repairer sends NACKs for `mediaSsrc()` on the receiver's transport.
 */
export function repairLosses(
  receiver: RTCRtpReceiver,
  mediaSsrc: () => number | undefined,
  keyframe: () => void,
  opts: Omit<LossOptions, 'nack' | 'keyframe'> = {}
): LossRepair {
  const hook = receiver as unknown as NackHook
  if (hook.nack) {
    hook.nack.close()
    hook.nack.addPacket = () => undefined
  }
  return new LossRepair({
    ...opts,
    keyframe,
    nack: (lost) => {
      const ssrc = mediaSsrc()
      if (ssrc === undefined || !hook.dtlsTransport) return
      const rtcp = new RtcpTransportLayerFeedback({
        feedback: new GenericNack({
          senderSsrc: hook.rtcpSsrc ?? 1,
          mediaSourceSsrc: ssrc,
          lost
        })
      })
      void hook.dtlsTransport.sendRtcp([rtcp]).catch(() => undefined)
    }
  })
}

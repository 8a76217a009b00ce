// Where each of the page's Opus packets goes on the picture's clock (webcodecs-pusher.ts). Pure, so
// tested in Node.
//
// The sound keeps its own count: after the first packet, each follows the last by its duration
// (measured here, Chromium's Opus encoder stamped its output ~8% slow, a 44.1 kHz microphone counted
// at 48 kHz by the look of it, so stamps taken from it fell further behind the picture each second).

/** Chromium's Opus packets: 20 ms, when a chunk does not say. */
export const OPUS_FRAME_US = 20_000
/** Sound further behind the newest picture than this is too late to go out. */
export const MAX_AUDIO_BEHIND_US = 1_000_000
/** Where sound that rejoins the picture goes: this far behind the newest picture. */
export const AUDIO_CATCH_UP_US = 100_000
/**
 * Sound whose first stamp is further than this from its arrival, on the picture's clock, has a clock
 * of its own (measured here: Chromium's fake camera and microphone apart by seconds): it lines up on
 * arrival instead.
 */
export const SAME_CLOCK_US = 300_000

/**
 * How far the sound's clock runs ahead of the picture's (µs): 0 when its first stamp agrees with its
 * arrival on the picture's clock within SAME_CLOCK_US, else the difference (it lines up on arrival).
 * `zero` is the first picture's stamp (µs) and when it came (ms, the page's clock).
 */
export function soundClockOffset(
  firstUs: number,
  arrivedAtMs: number,
  zero: { us: number; at: number }
): number {
  const onArrival = firstUs - (zero.us + (arrivedAtMs - zero.at) * 1000)
  return Math.abs(onArrival) < SAME_CLOCK_US ? 0 : onArrival
}

export interface SoundPacket {
  /** The encoder's stamp (µs) and length (µs, when it says). */
  timestampUs: number
  durationUs?: number | null
}

/**
 * Sound late for this long on the wall clock, every packet, is not a page that read its microphone
 * late but a sound clock apart from the picture's (it never catches up): it jumps to the picture.
 */
export const LATE_FOR_RESYNC_MS = 3_000

export class SoundStamps {
  private offset: number | undefined
  private nextUs: number | undefined
  /** Since when (the page's clock, ms) every packet has come too late. */
  private lateSince: number | undefined
  /** Packets dropped because they came too late to go out. */
  late = 0
  /** Times the sound jumped forward to the picture, its clock apart (a gap in the sound each). */
  jumps = 0

  /**
   * The packet's time on the picture's clock (µs from its zero), or undefined if it comes too late
   * to go out. `zero` is the first picture's stamp and when it came (ms, the page's clock), `nowMs`
   * the page's clock now, `newestVideoUs` the newest picture's time.
   */
  stamp(
    p: SoundPacket,
    zero: { us: number; at: number },
    nowMs: number,
    newestVideoUs: number
  ): number | undefined {
    // Capture clocks are usually shared; where they are not, the first sound lines up on arrival.
    // (Compared with the first picture's stamp within 5 s instead, as before, a microphone whose
    // clock ran 2.5 s ahead went out 2.5 s ahead of its picture for the whole broadcast.)
    this.offset ??= soundClockOffset(p.timestampUs, nowMs, zero)
    let at = this.nextUs ?? p.timestampUs - zero.us - this.offset
    this.nextUs = at + (p.durationUs ?? OPUS_FRAME_US)
    if (newestVideoUs - at <= MAX_AUDIO_BEHIND_US) {
      this.lateSince = undefined
      return at
    }
    // Sound that comes too late (a page starved of CPU reads its microphone late) would hold every
    // picture back in the muxer. It is dropped and its time kept: the sound after it goes out at its
    // own time, beside its picture. (Moved forward instead, as before, it put all the sound after it
    // ahead of its picture by as much, for the rest of the broadcast: 1.4 s after one 1.5 s stall.)
    this.lateSince ??= nowMs
    if (nowMs - this.lateSince < LATE_FOR_RESYNC_MS) {
      this.late++
      return undefined
    }
    at = newestVideoUs - AUDIO_CATCH_UP_US
    this.nextUs = at + (p.durationUs ?? OPUS_FRAME_US)
    this.lateSince = undefined
    this.jumps++
    return at
  }
}

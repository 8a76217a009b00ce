// Dynamic bitrate (#19): the page's encoder follows what the upload carries. Fed with each ffmpeg
// progress report (ten a second) with the media queued between the encoder and the socket
// (media-feed.ts), the rate the socket takes (ffmpeg's output over the last seconds) and the rate the
// encoder makes (what main is handed), it says which video bitrate to encode at now. Pure: time comes
// in with each sample.
//
// The shape is OBS's dynamic bitrate (obs-outputs, rtmp-stream): lower at once to what the link
// carries when a queue builds, raise again in steps while the queue stays empty, never above the
// creator's own bitrate, and below a floor leave the rest to dropping (the feed drops past 700 ms).
// Past what the link carried when it was last found short, the raises probe in small steps that grow
// while they hold, as TCP does past its last loss.

import type { Shortfall } from '../../../../shared/shortfall'
import { median } from './congestion'
import {
  CALM_BEFORE_RAISE_MS,
  CALM_MS,
  CONGESTED_MS,
  EASY_RAISE_MS,
  FLOOR_VIDEO_KBPS,
  HEADROOM,
  KEPT_UP_SHARE,
  NO_LOWER_SHARE,
  PROBE_PROVEN_SHARE,
  PROBE_SHARE,
  PROBE_TESTED_SHARE,
  PROVEN_SHARE,
  RAISE_EVERY_MS,
  RAISE_FACTOR,
  RAISE_MIN_SHARE,
  SETTLE_MS,
  SKEW_AFTER_DROP_MS,
  SKEW_MIN_SAMPLES,
  SKEW_SAMPLES,
  SKIP_NEWS_MS,
  STEP_DOWN,
  UNPROVEN_RAISE_MS
} from './tuning'

export interface UplinkSample {
  /** ms since epoch */
  at: number
  /** Media waiting between the encoder and the socket (ms). */
  queuedMs: number
  /** What the socket took over the last second, audio included (kbit/s); undefined too early. */
  sentKbps: number | undefined
  /**
   * The same over a longer span (2 s), which raises are judged on: over one second, the socket's own
   * send buffer filling (49 KB at the default output) passed for 0.4 Mbit/s more than the link took.
   */
  steadyKbps?: number
  /** What the page's encoder made over the same span (kbit/s, audio included), when known. */
  madeKbps?: number
  /** ms since main last dropped media (undefined: never): what the page made then never reached ffmpeg. */
  sinceDropMs?: number
}

export interface UplinkOptions {
  /** The creator's video bitrate: the most we ever ask for. */
  maxVideoKbps: number
  audioKbps: number
  /** The least we ask for; below it the feed drops frames instead. */
  floorVideoKbps?: number
}

export type UplinkState = 'full' | 'limited' | 'recovering'

export class UplinkController {
  private target: number
  private lastChange = -Infinity
  private calmSince: number | undefined
  /** What the link carried (video kbit/s) when the bitrate was last lowered. */
  private carried: number | undefined
  /** Raises stop here, then probe past it in growing steps (PROBE_SHARE); undefined: no ceiling. */
  private ceiling: number | undefined
  private probeShare = PROBE_SHARE
  private readonly floor: number
  /** Recent calm samples of made − written (kbit/s): the sound's re-encode (SKEW_SAMPLES). */
  private skews: number[] = []

  constructor(private readonly o: UplinkOptions) {
    this.target = o.maxVideoKbps
    this.floor = Math.min(o.maxVideoKbps, o.floorVideoKbps ?? FLOOR_VIDEO_KBPS)
  }

  /** The video bitrate to encode at now (kbit/s). */
  get videoKbps(): number {
    return this.target
  }

  /** What the link carried when last found short (video + audio, kbit/s). */
  get carriedKbps(): number | undefined {
    return this.carried === undefined ? undefined : this.carried + this.audioOutKbps
  }

  /** The sound's rate as ffmpeg writes it (kbit/s): the creator's, less what its re-encode saves. */
  get audioOutKbps(): number {
    if (this.skews.length < SKEW_MIN_SAMPLES) return this.o.audioKbps
    return Math.max(0, this.o.audioKbps - median(this.skews))
  }

  state(): UplinkState {
    if (this.target >= this.o.maxVideoKbps) return 'full'
    return this.calmSince === undefined ? 'limited' : 'recovering'
  }

  /** Takes a sample; returns the new video bitrate when it changes. */
  update(s: UplinkSample): number | undefined {
    if (s.queuedMs <= CALM_MS) this.calmSince ??= s.at
    else this.calmSince = undefined
    if (
      this.calmSince !== undefined &&
      s.at - this.calmSince >= CALM_BEFORE_RAISE_MS &&
      s.madeKbps !== undefined &&
      s.steadyKbps !== undefined &&
      (s.sinceDropMs ?? Infinity) >= SKEW_AFTER_DROP_MS
    ) {
      // A page's catch-up or a drop's skipped media moves one sample far: each counts at most the
      // whole sound, and the median keeps them out.
      const a = this.o.audioKbps
      this.skews.push(Math.min(a, Math.max(-a, s.madeKbps - s.steadyKbps)))
      if (this.skews.length > SKEW_SAMPLES) this.skews.shift()
    }
    // What the encoder made, as ffmpeg writes it (the sound re-encoded).
    const audioOut = this.audioOutKbps
    const madeOut =
      s.madeKbps === undefined ? undefined : s.madeKbps - (this.o.audioKbps - audioOut)
    // A queue while the link took (over 2 s) all the encoder made is no short link: a page or an
    // ffmpeg that stalled for a moment (a busy machine) makes one on an open link. Lowered for it,
    // the bitrate fell to half on an open link in the uplink bench; what waits may still be dropped.
    const keptUp =
      madeOut !== undefined && s.steadyKbps !== undefined && s.steadyKbps >= KEPT_UP_SHARE * madeOut
    if (s.queuedMs >= CONGESTED_MS && !keptUp && s.at - this.lastChange >= SETTLE_MS) {
      const carried = s.sentKbps === undefined ? undefined : Math.max(0, s.sentKbps - audioOut)
      // What the link carried, with headroom; if that is no lower (the window still held faster
      // seconds), step down by a fifth: the queue says the link carries less than we send.
      let next = carried === undefined ? this.target * STEP_DOWN : carried * HEADROOM
      if (next >= this.target * NO_LOWER_SHARE) next = this.target * STEP_DOWN
      next = Math.round(Math.max(this.floor, next))
      this.carried = carried
      // The ceiling: what the link carried, or where this target was when it proved too much.
      this.ceiling = Math.round(Math.max(next, Math.min(carried ?? this.target, this.target)))
      this.probeShare = PROBE_SHARE
      return this.set(next, s.at)
    }
    const calmFor = this.calmSince === undefined ? 0 : s.at - this.calmSince
    const taken = s.steadyKbps ?? s.sentKbps
    const share = taken === undefined ? 0 : taken / (this.target + audioOut)
    const proven = share >= PROVEN_SHARE
    // At or past the ceiling, what the link took of what the encoder made says which step is safe:
    // - the encoder fills the target and the link takes 95% of it (or takes all the encoder makes,
    //   80% of the target at least): the next step may be twice the last;
    // - the link takes less than the encoder makes: it may be what holds it back (its queue shows
    //   first in the socket, where main cannot see it): the steps start small again, every 6 s;
    // - the encoder does not fill the target (easy content, a starved page, a small rung) and the
    //   link takes what it makes: the wire says nothing of the link: a quarter up every 3 s.
    const ceiling = this.ceiling
    const past = ceiling !== undefined && ceiling - this.target < 1
    const made = s.madeKbps
    const linkTakesAll =
      taken !== undefined && (madeOut === undefined || taken >= KEPT_UP_SHARE * madeOut)
    const fills =
      made === undefined ? proven : made >= PROVEN_SHARE * (this.target + this.o.audioKbps)
    const carries =
      linkTakesAll && share >= (made === undefined ? PROBE_PROVEN_SHARE : PROBE_TESTED_SHARE)
    // An encoder under its target whose every byte the link takes: the link is not the limit, but
    // a raise may let the picture step up into more than the link carries, so not too fast.
    const easy = linkTakesAll && made !== undefined && !fills
    const wait = (past ? carries : proven)
      ? RAISE_EVERY_MS
      : easy
        ? EASY_RAISE_MS
        : UNPROVEN_RAISE_MS
    if (
      this.target < this.o.maxVideoKbps &&
      calmFor >= CALM_BEFORE_RAISE_MS &&
      s.at - this.lastChange >= wait
    ) {
      let step = Math.max(
        this.target * RAISE_FACTOR,
        this.target + this.o.maxVideoKbps * RAISE_MIN_SHARE
      )
      if (ceiling !== undefined && !past) step = Math.min(step, ceiling)
      else if (past && (fills || !linkTakesAll)) {
        if (!carries) this.probeShare = PROBE_SHARE
        step = Math.min(step, this.target + this.o.maxVideoKbps * this.probeShare)
        if (carries) this.probeShare *= 2
      }
      step = Math.round(Math.min(this.o.maxVideoKbps, step))
      if (past) this.ceiling = step
      return this.set(step, s.at)
    }
    return undefined
  }

  private set(kbps: number, at: number): number | undefined {
    if (kbps === this.target) return undefined
    this.target = kbps
    this.lastChange = at
    return kbps
  }
}

/**
 * Why the uplink holds the stream back now, or undefined when it carries it (the renderer words it).
 * `needKbps` is the output's own video + audio. A busy computer (`cause: 'computer'`) is named as
 * such: its queue is no measure of the upload.
 */
export function uplinkShortfall(o: {
  state: UplinkState
  carriedKbps: number | undefined
  needKbps: number
  droppingNow: boolean
  cause?: 'network' | 'encoder' | 'computer'
  /** The computer's load (0..1), named with a busy computer. */
  cpuShare?: number
  /** cause 'encoder': the frames Onair's encoder skipped lately (SKIP_NEWS_MS). */
  skippedFrames?: number
}): Shortfall | undefined {
  const cpuPercent = o.cpuShare === undefined ? undefined : Math.round(o.cpuShare * 100)
  const load = cpuPercent === undefined ? {} : { cpuPercent }
  // Onair's encoder cannot keep up (OBS's "encoding overloaded"): said whatever the upload does.
  if (o.cause === 'encoder')
    return {
      cause: 'encoder-skips',
      skippedFrames: o.skippedFrames ?? 0,
      windowS: SKIP_NEWS_MS / 1000,
      ...load
    }
  if (o.state === 'full' && !o.droppingNow) return undefined
  if (o.state === 'recovering' && !o.droppingNow) return undefined
  if (o.cause === 'computer') return { cause: 'busy-computer', dropping: o.droppingNow, ...load }
  return {
    cause: 'upload',
    dropping: o.droppingNow,
    needKbps: o.needKbps,
    ...(o.carriedKbps === undefined ? {} : { carriedKbps: o.carriedKbps })
  }
}

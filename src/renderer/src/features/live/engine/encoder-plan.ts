// The pure decisions of the page's own encoder (webcodecs-pusher.ts): which H.264 codec string fits a
// size, whether the creator's "Hardware" choice can be had, and the ladder of encoded sizes and frame
// rates the encoder steps along when it cannot hold its bitrate or the target drops. Nothing here
// touches WebCodecs, so all of it is unit-tested in Node.
import type { EncoderChoice } from '../../../../../shared/contract'
import { h264Level } from '../../../../../shared/h264'

export interface Rung {
  width: number
  height: number
  fps: number
}

const hex = (n: number): string => n.toString(16).padStart(2, '0')

/**
 * Codec strings to try, best first: Constrained Baseline up to level 3.1 (720p30, what every decoder
 * and the ingest's copy path take), Main then High above it (1080p needs level 4+, which Baseline
 * encoders rarely offer), and Baseline at that level last for encoders that only do Baseline.
 */
export function h264Candidates(width: number, height: number, fps: number): string[] {
  const level = hex(h264Level(width, height, fps))
  const baseline = `avc1.42e0${level}`
  if (h264Level(width, height, fps) <= 31) return [baseline]
  return [`avc1.4d00${level}`, `avc1.6400${level}`, baseline]
}

/** What the browser answers to isConfigSupported (injected: Windows/macOS answer differently). */
export type IsConfigSupported = (config: VideoEncoderConfig) => Promise<{ supported?: boolean }>

export interface EncoderSupport {
  /** A codec string the software encoder takes at this size, or undefined: use MediaRecorder. */
  software?: string
  /** The same with hardwareAcceleration 'prefer-hardware', when the system offers it. */
  hardware?: string
}

/** A config for one question: only what the answer depends on. */
export function probeConfig(
  codec: string,
  r: Rung,
  kbps: number,
  hw: HardwareAcceleration
): VideoEncoderConfig {
  return {
    codec,
    width: r.width,
    height: r.height,
    framerate: r.fps,
    bitrate: kbps * 1000,
    bitrateMode: 'constant',
    latencyMode: 'realtime',
    hardwareAcceleration: hw,
    avc: { format: 'avc' }
  }
}

/** Asks the browser which codec strings it can encode at this size, in hardware and in software. */
export async function probeEncoders(
  isSupported: IsConfigSupported,
  r: Rung,
  kbps: number
): Promise<EncoderSupport> {
  const first = async (hw: HardwareAcceleration): Promise<string | undefined> => {
    for (const codec of h264Candidates(r.width, r.height, r.fps)) {
      const ok = await isSupported(probeConfig(codec, r, kbps, hw)).then(
        (a) => a.supported === true,
        () => false
      )
      if (ok) return codec
    }
    return undefined
  }
  return { hardware: await first('prefer-hardware'), software: await first('prefer-software') }
}

/**
 * The encoder a run uses: the creator's choice when the system has it, else the other one; undefined
 * when neither encodes H.264 (the MediaRecorder path takes over).
 */
export function chooseEncoder(
  support: EncoderSupport,
  want: EncoderChoice | undefined
): { kind: EncoderChoice; codec: string } | undefined {
  const order: EncoderChoice[] =
    want === 'software' ? ['software', 'hardware'] : ['hardware', 'software']
  for (const kind of order) {
    const codec = support[kind]
    if (codec) return { kind, codec }
  }
  return undefined
}

/** The default the Output form shows: Hardware where the system has it, else Software. */
export const defaultEncoderChoice = (support: EncoderSupport): EncoderChoice =>
  support.hardware ? 'hardware' : 'software'

const STEP_HEIGHTS = [540, 360]
const STEP_FPS = [20, 15]
const even = (n: number): number => Math.max(2, Math.round(n / 2) * 2)

/**
 * The ladder for an output, best first: the output's own size, then 540p and 360p (the same shape),
 * then at the smallest size 20 and 15 fps. Sizes and rates above the output's are left out.
 */
export function buildLadder(out: Rung): Rung[] {
  const rungs: Rung[] = [{ ...out }]
  for (const h of STEP_HEIGHTS)
    if (h < out.height)
      rungs.push({ width: even((out.width * h) / out.height), height: h, fps: out.fps })
  const smallest = rungs[rungs.length - 1]!
  for (const f of STEP_FPS) if (f < out.fps) rungs.push({ ...smallest, fps: f })
  return rungs
}

/** Bits a target gives each pixel of each frame at a rung. */
export const bitsPerPixel = (kbps: number, r: Rung): number =>
  (kbps * 1000) / (r.width * r.height * r.fps)

export interface LadderTuning {
  /** Measured over target above this (1.15 = 15% over) counts as an overshoot. */
  overshoot: number
  /** Overshooting windows in a row that step down. */
  overWindows: number
  /** Below this many bits per pixel per frame, the rung is too big for the target. */
  minBpp: number
  /** A step up needs at least this at the rung above (above minBpp, so up and down do not flap). */
  upBpp: number
  /** Windows within the cap in a row before a step up. */
  calmWindows: number
  /**
   * Calm windows in a row after which the rung above is tried again even at the target it overshot
   * at: content changes (a room's light comes on, a scene gets simpler), and without a retry a picture
   * stepped down at the creator's own bitrate stayed small for the rest of the stream. Each retry that
   * steps straight back down (within `retryFailWindows`) doubles the wait, up to `maxRetryWindows`.
   */
  retryWindows: number
  retryFailWindows: number
  maxRetryWindows: number
}

export const LADDER_TUNING: LadderTuning = {
  overshoot: 1.15,
  overWindows: 2,
  minBpp: 0.05,
  upBpp: 0.07,
  calmWindows: 2,
  // Windows are 2 s: a first retry after a minute, then 2, 4 and at most 8 minutes apart.
  retryWindows: 30,
  retryFailWindows: 5,
  maxRetryWindows: 240
}

/**
 * Where on the ladder the encoder stands. `measured` is called once per window with the output's own
 * bitrate over it; `retarget` when main asks for a new bitrate. Both answer the rung index to use.
 * A step down for overshoot remembers the target it happened at: the encoder climbs back only once
 * the target has risen past it, so content that cannot fit a rung does not make it flap.
 */
export class RateLadder {
  private index = 0
  private over = 0
  private calm = 0
  /** The target at the last step down; climbing needs more than this (or a retry). */
  private downAt = Infinity
  /** Windows measured so far; the one at which a retry last stepped up. */
  private windows = 0
  private retriedAt = -Infinity
  private retryWindows: number

  constructor(
    readonly rungs: Rung[],
    private target: number,
    private readonly tuning: LadderTuning = LADDER_TUNING
  ) {
    this.retryWindows = tuning.retryWindows
    this.fitTarget()
  }

  get rung(): Rung {
    return this.rungs[this.index]!
  }

  get at(): number {
    return this.index
  }

  get targetKbps(): number {
    return this.target
  }

  retarget(kbps: number): number {
    if (kbps !== this.target) {
      // A lower target starts the judging again; a higher one keeps the calm windows counted: main
      // raises every 1.5-3 s while the link keeps up, and starting over at each raise kept the
      // picture at its smallest rung until the raises were done (measured: 360p for 24 s after the
      // link came back).
      if (kbps < this.target) this.calm = 0
      this.target = kbps
      this.over = 0
      this.fitTarget()
    }
    return this.index
  }

  measured(kbps: number): number {
    const t = this.tuning
    this.windows++
    if (kbps > this.target * t.overshoot) {
      this.calm = 0
      if (++this.over >= t.overWindows && this.index < this.rungs.length - 1) this.down()
      return this.index
    }
    this.over = 0
    this.calm++
    const above = this.rungs[this.index - 1]
    const retry = this.target <= this.downAt && this.calm >= this.retryWindows
    if (
      above &&
      this.calm >= t.calmWindows &&
      (this.target > this.downAt || retry) &&
      bitsPerPixel(this.target, above) >= t.upBpp
    ) {
      // One rung per calm pair of windows: a rung that overshoots again steps straight back down.
      this.index--
      this.calm = 0
      if (retry) this.retriedAt = this.windows
    }
    return this.index
  }

  private down(): void {
    // A retry that overshot at once: the content still does not fit; wait twice as long next time.
    if (this.windows - this.retriedAt <= this.tuning.retryFailWindows)
      this.retryWindows = Math.min(this.tuning.maxRetryWindows, this.retryWindows * 2)
    this.index++
    this.over = 0
    this.calm = 0
    this.downAt = this.target
  }

  /** Too few bits per pixel at this rung: go down until it fits (or the ladder ends). */
  private fitTarget(): void {
    while (
      this.index < this.rungs.length - 1 &&
      bitsPerPixel(this.target, this.rung) < this.tuning.minBpp
    )
      this.down()
  }
}

/**
 * Whether a new target from main starts the output's measuring window over. A lower target or a new
 * rung does: bytes made for more say nothing of the new target, and judged against it they read as an
 * overshoot. A higher target does not: main raises every 1.5-3 s while the link keeps up, and starting
 * the 2 s window over at each raise kept the ladder from hearing any window, so the picture stayed at
 * its smallest rung until the raises stopped (measured in the uplink bench: 360p making 0.75 Mbit/s
 * for targets of 1.2-1.5 after a 40% throttle ended).
 */
export function retargetRestartsWindow(
  fromKbps: number,
  toKbps: number,
  stepped: boolean
): boolean {
  return stepped || toKbps < fromKbps
}

/**
 * The frame rate to tell the encoder: the frames it really gets, when the source (a busy machine, a
 * slow camera) gives clearly fewer than the rung's. Its rate control spends the bitrate per frame at
 * the rate it was told: told 30 and given 20, it makes two thirds of the target. Undefined: keep
 * `current` (changes under 15% are not worth a reconfigure and its keyframe).
 */
export function encoderFramerate(
  rungFps: number,
  measuredFps: number,
  current: number
): number | undefined {
  const want = Math.max(5, Math.min(rungFps, Math.round(measuredFps)))
  // Back to the rung's own rate whenever the source gives it: small steps below it are not worth
  // a reconfigure, the last one up is (else it stays told a few frames short, overshooting).
  if (want === rungFps && current < rungFps) return rungFps
  return Math.abs(want - current) / current > 0.15 ? want : undefined
}

/** How far above the told frame rate the frames let in may go (see admittedFps). */
export const FPS_HEADROOM = 1.25

/**
 * The most frames a second let into the encoder: the rung's, and no more than a quarter above what
 * the encoder is told. Its rate control spends bitrate / told fps on each frame, so a source that
 * picks up (a starved page whose CPU comes back: measured here, 7 fps told and 20 given, 2.4 Mbit/s
 * for a 0.74 target in the middle of a throttle) would overshoot by the whole ratio until the next
 * window; let in at most a quarter more, it overshoots by at most that, and the told rate climbs a
 * quarter a window (7 to 30 fps in about 7 windows of 2 s).
 */
export function admittedFps(rungFps: number, toldFps: number): number {
  return Math.min(rungFps, toldFps * FPS_HEADROOM)
}

/** Sound missing from the capture for longer than this is filled in (a 10 ms buffer's jitter is not). */
export const AUDIO_GAP_US = 15_000
/** A gap longer than this is not filled: the clock jumped (a device change), the sound starts again. */
export const AUDIO_GAP_MAX_US = 5_000_000

/**
 * Frames of silence that make up for sound the page did not read: a page whose thread is busy loses
 * microphone buffers (measured in the uplink bench: a fifth of the sound at 720p30 on strong noise).
 * The Opus encoder counts its output time from the samples it is given, so each lost buffer made the
 * sound run behind the picture, and the muxer, which interleaves by time, held the picture back with
 * it (up to a second). Filled with silence, the sound's time stays the capture's. 0 for no gap.
 */
export function audioGapFrames(
  expectedUs: number | undefined,
  timestampUs: number,
  sampleRate: number
): number {
  if (expectedUs === undefined) return 0
  const gap = timestampUs - expectedUs
  if (gap <= AUDIO_GAP_US || gap > AUDIO_GAP_MAX_US) return 0
  return Math.round((gap / 1e6) * sampleRate)
}

/**
 * How much of the target the output may spend ahead (s): a keyframe on noisy content (~150 KB at
 * 720p, half a second of 2.5 Mbit/s) and the frames after it. A keyframe larger than that is still
 * sent (it leaves the budget in debt, and the frames after it wait). Half a second left the output
 * under its target after every keyframe at 720p; one second lets a 2 s window after a quiet spell
 * carry up to 1.5 times the target.
 */
export const BUDGET_DEPTH_S = 1

/**
 * A hard cap on what the encoder sends, whatever its rate control does: a budget that fills at the
 * target's rate (on the frames' own clock, up to BUDGET_DEPTH_S of it) and that each encoded chunk
 * spends. A frame that comes while the budget is spent is not encoded. Measured in the uplink bench:
 * OpenH264 made 2.5 Mbit/s at 360p for a 1.6 target and 2.9 at 720p for 1.6, over whole windows, and
 * what a link that carries the target cannot take waits in a queue that only dropping empties. Held
 * to its budget, the encoder's excess costs frames (a lower frame rate) the moment it happens; the
 * ladder still hears how much it would have made (demandKbps), and steps the picture down for it.
 */
export class OutputBudget {
  private bits: number | undefined
  private lastUs: number | undefined

  /** Whether a frame at `timestampUs` may be encoded at `targetKbps`. */
  admit(timestampUs: number, targetKbps: number): boolean {
    const rate = targetKbps * 1000
    const depth = rate * BUDGET_DEPTH_S
    const dt = this.lastUs === undefined ? 0 : Math.max(0, timestampUs - this.lastUs) / 1e6
    this.lastUs = timestampUs
    this.bits = Math.min(depth, (this.bits ?? depth) + dt * rate)
    return this.bits > 0
  }

  /** An encoded chunk of `bytes` went out. */
  spend(bytes: number): void {
    if (this.bits !== undefined) this.bits -= bytes * 8
  }
}

/**
 * A window of the encoder's output: bytes and frames out, keyframes among them, frames offered (past
 * the frame-rate gate), and frames the source gave.
 */
export interface OutputWindow {
  startUs: number
  given: number
  bytes: number
  frames: number
  keyBytes: number
  keys: number
  offered: number
}

/**
 * What the encoder would have made (kbit/s) had every offered frame been encoded: its keyframes as
 * they were, and each frame the budget held back at the size of its other frames (they would have
 * been those). Scaling the whole output instead counted a keyframe for every frame skipped in the debt
 * it leaves, and stepped the picture down for keyframes alone.
 */
export function demandKbps(w: OutputWindow, seconds: number): number {
  if (seconds <= 0) return 0
  const others = w.frames - w.keys
  const perFrame = others > 0 ? (w.bytes - w.keyBytes) / others : 0
  const skipped = Math.max(0, w.offered - w.frames)
  return ((w.bytes + skipped * perFrame) * 8) / seconds / 1000
}

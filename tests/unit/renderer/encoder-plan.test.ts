// The page encoder's pure choices: H.264 level for a size, hardware or software, the ladder of sizes
// and rates, and when it steps down and back up.
import { describe, expect, it } from 'vitest'
import {
  BUDGET_DEPTH_S,
  LADDER_TUNING,
  OutputBudget,
  RateLadder,
  bitsPerPixel,
  admittedFps,
  audioGapFrames,
  buildLadder,
  chooseEncoder,
  defaultEncoderChoice,
  demandKbps,
  encoderFramerate,
  h264Candidates,
  probeEncoders,
  retargetRestartsWindow,
  type IsConfigSupported
} from '../../../src/renderer/src/features/live/engine/encoder-plan'
import { avcDecodingParams, avcParamsCarry } from '../../../src/renderer/src/features/live/engine/webcodecs-pusher'

const P720 = { width: 1280, height: 720, fps: 30 }

describe('H.264 level and codec string', () => {
  // The level itself: tests/unit/foundation/h264-level.test.ts (src/shared/h264.ts).
  it("names the level by the shared rule: a rate of 0 (the source's) counts as 60 fps", () => {
    expect(h264Candidates(1280, 720, 60)[0]).toBe('avc1.4d0020')
    expect(h264Candidates(1280, 720, 0)[0]).toBe('avc1.4d0020')
  })

  it('Baseline up to 720p30; Main, High, then Baseline at the needed level above', () => {
    expect(h264Candidates(1280, 720, 30)).toEqual(['avc1.42e01f'])
    expect(h264Candidates(1920, 1080, 30)).toEqual(['avc1.4d0028', 'avc1.640028', 'avc1.42e028'])
  })
})

/** A browser that supports what `has` says: which accelerations, which codec strings. */
const browser =
  (has: { hardware: boolean; codecs?: string[] }): IsConfigSupported =>
  async (c) => ({
    supported:
      (c.hardwareAcceleration !== 'prefer-hardware' || has.hardware) &&
      (!has.codecs || has.codecs.includes(c.codec))
  })

describe('hardware or software', () => {
  it('a system with a hardware encoder: Hardware by default, and the creator may pick Software', async () => {
    const support = await probeEncoders(browser({ hardware: true }), P720, 2500)
    expect(support).toEqual({ hardware: 'avc1.42e01f', software: 'avc1.42e01f' })
    expect(defaultEncoderChoice(support)).toBe('hardware')
    expect(chooseEncoder(support, undefined)).toEqual({ kind: 'hardware', codec: 'avc1.42e01f' })
    expect(chooseEncoder(support, 'software')?.kind).toBe('software')
  })

  it('without one (this machine): Software, even when Hardware was saved', async () => {
    const support = await probeEncoders(browser({ hardware: false }), P720, 2500)
    expect(support.hardware).toBeUndefined()
    expect(defaultEncoderChoice(support)).toBe('software')
    expect(chooseEncoder(support, 'hardware')?.kind).toBe('software')
  })

  it('no H.264 at all (or the question throws): no WebCodecs encoder, MediaRecorder takes over', async () => {
    const none = await probeEncoders(browser({ hardware: true, codecs: [] }), P720, 2500)
    expect(chooseEncoder(none, undefined)).toBeUndefined()
    const throws = await probeEncoders(() => Promise.reject(new Error('no')), P720, 2500)
    expect(chooseEncoder(throws, 'software')).toBeUndefined()
  })

  it('1080p on a Baseline-only encoder: the Baseline string at level 4', async () => {
    const s = await probeEncoders(
      browser({ hardware: false, codecs: ['avc1.42e028'] }),
      { width: 1920, height: 1080, fps: 30 },
      6000
    )
    expect(s.software).toBe('avc1.42e028')
  })
})

describe('the ladder', () => {
  it('720p30: 540p, 360p, then 20 and 15 fps at 360p', () => {
    expect(buildLadder(P720)).toEqual([
      P720,
      { width: 960, height: 540, fps: 30 },
      { width: 640, height: 360, fps: 30 },
      { width: 640, height: 360, fps: 20 },
      { width: 640, height: 360, fps: 15 }
    ])
  })

  it('360p24 has no smaller size; only 20 and 15 fps', () => {
    expect(buildLadder({ width: 640, height: 360, fps: 24 })).toEqual([
      { width: 640, height: 360, fps: 24 },
      { width: 640, height: 360, fps: 20 },
      { width: 640, height: 360, fps: 15 }
    ])
  })

  it('bits per pixel per frame', () => {
    expect(bitsPerPixel(2500, P720)).toBeCloseTo(0.0904, 3)
  })
})

describe('stepping down and up', () => {
  const over = (target: number): number => target * (LADDER_TUNING.overshoot + 0.05)

  it('two windows over the cap step down one rung; one is not enough', () => {
    const l = new RateLadder(buildLadder(P720), 2500)
    expect(l.measured(over(2500))).toBe(0)
    expect(l.measured(2400)).toBe(0)
    expect(l.measured(over(2500))).toBe(0)
    expect(l.measured(over(2500))).toBe(1)
    expect(l.rung).toEqual({ width: 960, height: 540, fps: 30 })
  })

  it('keeps stepping while it overshoots, through the sizes then the frame rates, and stops at the end', () => {
    const l = new RateLadder(buildLadder(P720), 2500)
    for (let i = 0; i < 20; i++) l.measured(over(2500))
    expect(l.rung).toEqual({ width: 640, height: 360, fps: 15 })
  })

  it('content that overshot does not climb back at the same target (no flapping)', () => {
    const l = new RateLadder(buildLadder(P720), 2500)
    l.measured(over(2500))
    l.measured(over(2500))
    for (let i = 0; i < 10; i++) l.measured(2500)
    expect(l.at).toBe(1)
  })

  it('at the same target, tries the rung above again after a minute of calm; each retry that overshoots at once doubles the wait', () => {
    const t = LADDER_TUNING
    const l = new RateLadder(buildLadder(P720), 2500)
    l.measured(over(2500))
    l.measured(over(2500))
    expect(l.at).toBe(1)
    // Calm at 540p at the creator's own bitrate: the first retry comes after retryWindows (a minute).
    const calmUntilUp = (): number => {
      let n = 0
      while (l.at === 1 && n < 1000) {
        l.measured(2400)
        n++
      }
      return n
    }
    expect(calmUntilUp()).toBe(t.retryWindows)
    expect(l.at).toBe(0)
    // The content still does not fit 720p: two windows over, back down, and the next retry waits twice
    // as long, then four times, up to the most.
    const waits: number[] = []
    for (let k = 0; k < 5; k++) {
      l.measured(over(2500))
      l.measured(over(2500))
      expect(l.at).toBe(1)
      waits.push(calmUntilUp())
    }
    expect(waits).toEqual([
      2 * t.retryWindows,
      4 * t.retryWindows,
      t.maxRetryWindows,
      t.maxRetryWindows,
      t.maxRetryWindows
    ])
  })

  it('a retry that holds stays up (the content got simpler)', () => {
    const l = new RateLadder(buildLadder(P720), 2500)
    l.measured(over(2500))
    l.measured(over(2500))
    for (let i = 0; i < LADDER_TUNING.retryWindows; i++) l.measured(2400)
    expect(l.at).toBe(0)
    for (let i = 0; i < 50; i++) l.measured(2400)
    expect(l.at).toBe(0)
  })

  it('a retry never steps into a rung whose bits per pixel the target is too low for', () => {
    const l = new RateLadder(buildLadder(P720), 2500)
    // 1000 kbps: 540p by bits per pixel (720p would be 0.036).
    expect(l.retarget(1000)).toBe(1)
    for (let i = 0; i < 4 * LADDER_TUNING.maxRetryWindows; i++) l.measured(950)
    expect(l.at).toBe(1)
  })

  it('climbs back once the target rises and the output stays within its cap', () => {
    const l = new RateLadder(buildLadder(P720), 2500)
    l.measured(over(2500))
    l.measured(over(2500))
    l.retarget(3000)
    l.measured(2900)
    expect(l.at).toBe(1)
    expect(l.measured(2900)).toBe(0)
  })

  it('a target that keeps rising (main raising every 1.5 s) does not hold the picture at its rung', () => {
    const l = new RateLadder(buildLadder(P720), 2500)
    l.retarget(700)
    // 700 at 720p30 is 0.025 bpp: 360p. Then the link comes back and main raises each window.
    expect(l.rung.height).toBe(360)
    let target = 700
    const heights: number[] = []
    for (let w = 0; w < 10; w++) {
      target = Math.min(2500, Math.round(target * 1.25))
      l.retarget(target)
      heights.push(l.rungs[l.measured(target * 0.8)]!.height)
    }
    expect(heights[heights.length - 1]).toBe(720)
    expect(heights.indexOf(540)).toBeLessThanOrEqual(4)
  })

  it('a rising target keeps the measuring window; a lower one or a new rung starts it over', () => {
    // Raises come every 1.5-3 s, windows are 2 s: restarted at each raise, no window would end and
    // the ladder above would never hear one.
    expect(retargetRestartsWindow(1000, 1250, false)).toBe(false)
    expect(retargetRestartsWindow(1250, 1000, false)).toBe(true)
    expect(retargetRestartsWindow(2500, 2600, true)).toBe(true)
  })

  it('a low target goes down by bits per pixel at once, and back up when it rises', () => {
    const l = new RateLadder(buildLadder(P720), 2500)
    // 1000 kbps at 720p30 is 0.036 bits per pixel: under 0.05, so 540p (0.064).
    expect(l.retarget(1000)).toBe(1)
    // 300 kbps: 360p30 gives 0.043, 360p20 0.065.
    expect(l.retarget(300)).toBe(3)
    l.retarget(2500)
    // Up one rung per calm pair of windows, to the top.
    for (let i = 0; i < 8; i++) l.measured(2400)
    expect(l.at).toBe(0)
  })

  it('starts low when the output target is already too low for its size', () => {
    expect(new RateLadder(buildLadder(P720), 600).rung).toEqual({
      width: 640,
      height: 360,
      fps: 30
    })
  })
})

describe('the H.264 parameters the stream keeps', () => {
  // What Chromium's software encoder gave for camera frames (BT.709 tags) and then for canvas frames
  // (sRGB tags) in one run: only the SPS's colour tags differ.
  const camera = '0142c01fffe100126742c01f8c8d402802dd350101010784423501000468ce3c80'
  const canvas = '0142c01fffe100126742c01f8c8d402802dd37010d010784423501000468ce3c80'
  const bytes = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex, 'hex'))
  const size = { codedWidth: 1280, codedHeight: 720 }

  const carries = (a: string, b: string, sizeB = size): boolean =>
    avcParamsCarry(avcDecodingParams(bytes(a), size), avcDecodingParams(bytes(b), sizeB))

  it('colour tags alone do not count as a change', () => {
    expect(carries(camera, canvas)).toBe(true)
  })

  it('a higher level, another size or PPS does', () => {
    expect(carries(camera, camera.replace(/^0142c01f/, '0142c028'))).toBe(false)
    expect(carries(camera, camera, { codedWidth: 960, codedHeight: 544 })).toBe(false)
    expect(carries(camera, camera.replace(/3c80$/, '3c81'))).toBe(false)
    expect(carries(camera, camera.replace(/^0142c0/, '014d40'))).toBe(false)
  })

  // What it gave at 640x360 when told a lower frame rate (a recording ran beside the broadcast):
  // level 2.2 under a second SPS (id 1), and a PPS that differs only in pointing at it.
  const first = '0142c01effe100136742c01e8c8d405017fcb3506060607844235001000468ce3c80'
  const lower =
    '0142c016ffe200136742c01e8c8d405017fcb3506060607844235000136742c0164323501405ef2cd41818181e1108d401000468a38f20'

  it('a lower level under new SPS and PPS ids does not', () => {
    expect(carries(first, lower)).toBe(true)
    // Back from it to the level the stream declared, still carried; above it, not.
    expect(carries(first, first)).toBe(true)
    expect(carries(lower, first)).toBe(false)
  })
})

describe('the frame rate the encoder is told', () => {
  it('follows a source that gives clearly fewer frames, never above the rung', () => {
    expect(encoderFramerate(30, 20.4, 30)).toBe(20)
    expect(encoderFramerate(30, 29, 30)).toBeUndefined()
    expect(encoderFramerate(30, 29.6, 20)).toBe(30)
    expect(encoderFramerate(20, 40, 30)).toBe(20)
    expect(encoderFramerate(30, 1, 30)).toBe(5)
  })

  it('lets in at most a quarter more frames than told, so a source picking up cannot overshoot by more', () => {
    expect(admittedFps(30, 30)).toBe(30)
    expect(admittedFps(30, 8)).toBe(10)
    expect(admittedFps(20, 30)).toBe(20)
    // Told what it gets each window, the rate climbs back: from 7 fps to the rung's 30 in 7 windows.
    let told = 7
    let windows = 0
    while (told < 30 && windows < 20) {
      const given = admittedFps(30, told) // a source that could give 30
      told = encoderFramerate(30, given, told) ?? told
      windows++
    }
    expect(told).toBe(30)
    expect(windows).toBeLessThanOrEqual(8)
  })
})

describe('sound the capture lost', () => {
  it('is made up with as many frames of silence as the gap lasted', () => {
    // 48 kHz, 10 ms buffers: the next was due at 1.000 s and came at 1.250 s.
    expect(audioGapFrames(1_000_000, 1_250_000, 48_000)).toBe(12_000)
    expect(audioGapFrames(1_000_000, 1_100_000, 44_100)).toBe(4410)
  })

  it('leaves the first buffer, jitter within a buffer, and overlaps alone', () => {
    expect(audioGapFrames(undefined, 1_250_000, 48_000)).toBe(0)
    expect(audioGapFrames(1_000_000, 1_010_000, 48_000)).toBe(0)
    expect(audioGapFrames(1_000_000, 990_000, 48_000)).toBe(0)
  })

  it('does not fill a jump of the clock (a new device): the sound starts again', () => {
    expect(audioGapFrames(1_000_000, 7_000_000, 48_000)).toBe(0)
  })
})

describe('the output held to its bitrate', () => {
  /** 30 fps for `seconds` from `fromUs`; each frame admitted is encoded at `bytes`. */
  const run = (
    budget: OutputBudget,
    o: { fromUs: number; seconds: number; kbps: number; bytes: number }
  ): { encoded: number; bits: number } => {
    let encoded = 0
    for (let i = 0; i < o.seconds * 30; i++) {
      if (!budget.admit(o.fromUs + (i * 1e6) / 30, o.kbps)) continue
      budget.spend(o.bytes)
      encoded++
    }
    return { encoded, bits: encoded * o.bytes * 8 }
  }

  it('an encoder within its target loses no frame', () => {
    // 1,000 kbit/s at 30 fps is 4,166 bytes a frame: 4,000 stays under.
    expect(
      run(new OutputBudget(), { fromUs: 0, seconds: 10, kbps: 1000, bytes: 4000 }).encoded
    ).toBe(300)
  })

  it('one that makes 2.5 times its target is held to it over seconds, by frames not encoded', () => {
    const r = run(new OutputBudget(), { fromUs: 0, seconds: 10, kbps: 1000, bytes: 10_416 })
    // At most the target plus the budget's depth, and not far under it.
    expect(r.bits).toBeLessThanOrEqual((10 + BUDGET_DEPTH_S) * 1_000_000 + 10_416 * 8)
    expect(r.bits).toBeGreaterThan(9.5 * 1_000_000)
    expect(r.encoded).toBeLessThan(150)
  })

  it('a lowered target takes hold at once; a keyframe-sized chunk may spend ahead', () => {
    const b = new OutputBudget()
    run(b, { fromUs: 0, seconds: 2, kbps: 2500, bytes: 10_000 })
    const r = run(b, { fromUs: 2e6, seconds: 4, kbps: 600, bytes: 10_000 })
    expect(r.bits).toBeLessThanOrEqual((4 + BUDGET_DEPTH_S) * 600_000 + 80_000)
    // A 200 KB keyframe (1.6 s of 1 Mbit/s): admitted with a full budget, then frames wait until
    // what it spent beyond the budget has come back.
    const k = new OutputBudget()
    expect(k.admit(0, 1000)).toBe(true)
    k.spend(200_000)
    const back = (1.6 - BUDGET_DEPTH_S) * 1e6
    expect(k.admit(33_333, 1000)).toBe(false)
    expect(k.admit(back - 100_000, 1000)).toBe(false)
    expect(k.admit(back + 100_000, 1000)).toBe(true)
  })

  it('the ladder hears what the encoder would have made with every frame, skipped ones at the size of its others', () => {
    const w = { startUs: 0, given: 60, keys: 1, keyBytes: 60_000 }
    // 2 s: one 60 KB keyframe and 39 frames of 5 KB encoded, 60 offered: 21 more of 5 KB.
    expect(demandKbps({ ...w, bytes: 60_000 + 39 * 5000, frames: 40, offered: 60 }, 2)).toBe(
      ((60_000 + 59 * 5000) * 8) / 2 / 1000
    )
    // Nothing held back: the output itself.
    expect(demandKbps({ ...w, bytes: 60_000 + 59 * 5000, frames: 60, offered: 60 }, 2)).toBe(
      ((60_000 + 59 * 5000) * 8) / 2 / 1000
    )
    expect(demandKbps({ ...w, bytes: 0, frames: 0, keys: 0, keyBytes: 0, offered: 0 }, 0)).toBe(0)
  })
})

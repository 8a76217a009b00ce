// The page's sound on the picture's clock (features/live/engine/sound-stamps.ts): late sound never pushes
// the rest of the broadcast's sound ahead of its picture.
import { describe, expect, it } from 'vitest'
import {
  LATE_FOR_RESYNC_MS,
  MAX_AUDIO_BEHIND_US,
  OPUS_FRAME_US,
  SoundStamps,
  soundClockOffset
} from '../../../src/renderer/src/features/live/engine/sound-stamps'

const ZERO = { us: 50_000_000, at: 1_000 }

/**
 * A broadcast of `seconds`: the picture on time, a packet of sound every 20 ms captured on time, but
 * the sound captured in [stallFrom, stallTo) s reaches the pusher only at stallTo (a page starved
 * of CPU read its microphone late), all at once. Returns each packet's capture time and its stamp.
 */
function run(seconds: number, stallFrom: number, stallTo: number) {
  const s = new SoundStamps()
  const out: { capturedUs: number; stampUs: number | undefined }[] = []
  const waiting: number[] = []
  const deliver = (capturedUs: number, nowUs: number): void => {
    const stampUs = s.stamp(
      { timestampUs: ZERO.us + capturedUs, durationUs: OPUS_FRAME_US },
      ZERO,
      ZERO.at + nowUs / 1000,
      // The newest picture: captured now, on the same clock.
      nowUs
    )
    out.push({ capturedUs, stampUs })
  }
  for (let t = 0; t < seconds * 1e6; t += OPUS_FRAME_US) {
    if (t >= stallFrom * 1e6 && t < stallTo * 1e6) {
      waiting.push(t)
      continue
    }
    for (const w of waiting.splice(0)) deliver(w, t)
    deliver(t, t)
  }
  return { s, out }
}

describe('the sound on the picture clock', () => {
  it('keeps each packet at its capture time when it comes on time', () => {
    const { out } = run(5, 99, 99)
    for (const p of out) expect(p.stampUs).toBe(p.capturedUs)
  })

  it('drops sound that comes too late, and what follows stays in step with its picture', () => {
    const { out } = run(10, 2, 3.5)
    const sent = out.filter((p) => p.stampUs !== undefined)
    // Nothing goes out more than the muxer's patience behind the picture it came with...
    const late = out.filter((p) => p.stampUs === undefined)
    expect(late.length).toBeGreaterThan(0)
    // ...and every packet that goes out is at its own capture time: after the stall the sound is
    // neither ahead of nor behind its picture.
    for (const p of sent) expect(p.stampUs).toBe(p.capturedUs)
    // Stamps only go forward.
    for (let i = 1; i < sent.length; i++)
      expect(sent[i]!.stampUs!).toBeGreaterThan(sent[i - 1]!.stampUs!)
    // What was dropped is the part of the stall the muxer could not wait for.
    expect(Math.max(...late.map((p) => p.capturedUs))).toBeLessThan(3.5e6 - MAX_AUDIO_BEHIND_US)
  })

  it('sound late for good (a backlog that never drains) joins the picture once, not silent', () => {
    const s = new SoundStamps()
    const stamps: (number | undefined)[] = []
    // In step for 1 s; from then on every packet arrives 1.5 s after its capture, for good.
    for (let t = 0; t < 9e6; t += OPUS_FRAME_US) {
      const lag = t < 1e6 ? 0 : 1.5e6
      const now = t + lag
      stamps.push(
        s.stamp(
          { timestampUs: ZERO.us + t, durationUs: OPUS_FRAME_US },
          ZERO,
          ZERO.at + now / 1000,
          now
        )
      )
    }
    expect(s.jumps).toBe(1)
    // Dropped for LATE_FOR_RESYNC_MS at most, then every packet goes out.
    const dropped = stamps.filter((x) => x === undefined).length
    expect(dropped).toBeGreaterThan(0)
    expect(dropped * OPUS_FRAME_US).toBeLessThanOrEqual(LATE_FOR_RESYNC_MS * 1000 + OPUS_FRAME_US)
    const firstDropped = stamps.indexOf(undefined)
    expect(stamps.slice(firstDropped + dropped).every((x) => x !== undefined)).toBe(true)
  })

  it('a microphone on a clock of its own, 2.5 s ahead, lines up with the picture on arrival', () => {
    const s = new SoundStamps()
    for (let t = 0; t < 5e6; t += OPUS_FRAME_US) {
      // Captured at t on the picture's clock, stamped 2.5 s later by its own; it arrives 40 ms on.
      const at = s.stamp(
        { timestampUs: ZERO.us + t + 2.5e6, durationUs: OPUS_FRAME_US },
        ZERO,
        ZERO.at + (t + 40_000) / 1000,
        t
      )
      expect(at).toBe(t + 40_000)
    }
  })

  it('a shared clock keeps the stamps, whatever the arrival within SAME_CLOCK_US', () => {
    expect(soundClockOffset(ZERO.us + 1e6, ZERO.at + 1000 + 250, ZERO)).toBe(0)
    expect(soundClockOffset(ZERO.us + 1e6 + 2.5e6, ZERO.at + 1000, ZERO)).toBe(2.5e6)
    expect(soundClockOffset(ZERO.us - 3e6, ZERO.at + 1000, ZERO)).toBe(-4e6)
  })
})

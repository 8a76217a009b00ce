// A Low latency (WebRTC) run's size: held through the start, until the congestion controller's
// estimate has reached the Output's bitrate (or the peer has been up START_HOLD_MS); from then on let
// go only while the link is short (sizeRule), and held again once it carries the Output.
import { describe, expect, it } from 'vitest'
import {
  LINK_BACK,
  READINGS_TO_CHANGE,
  SHORT_LINK,
  START_HOLD_MS,
  sizeRule,
  startOver,
  type SizeRule,
  type WebRtcStats
} from '../../../src/renderer/src/features/live/engine/whip-publisher'

const stats = (availableKbps?: number): WebRtcStats => ({
  outKbps: 300,
  availableKbps,
  limitation: 'bandwidth',
  fps: 30
})

describe('the start of a WebRTC run', () => {
  it('holds the size while the estimate is below the Output and the peer is new', () => {
    expect(startOver(stats(), 2500, 0)).toBe(false)
    expect(startOver(stats(301), 2500, 3000)).toBe(false)
  })
  it('is over once the estimate reaches the Output, or the peer has been up long enough', () => {
    expect(startOver(stats(2500), 2500, 2000)).toBe(true)
    expect(startOver(stats(900), 2500, START_HOLD_MS)).toBe(true)
  })
})

/** The rule after each estimate in turn (kbit/s, of a 2500 kbit/s Output), from holding the size. */
function policies(estimates: (number | undefined)[], from: SizeRule['policy'] = 'hold'): string[] {
  let rule: SizeRule = { policy: from, streak: 0 }
  return estimates.map((kbps) => (rule = sizeRule(rule, kbps, 2500)).policy)
}

describe('the size after the start', () => {
  it('is held while the link carries most of the Output, however long', () => {
    // 64 % of the Output: a busy computer's loopback, where letting go cost 320x180.
    expect(policies(Array(20).fill(1600))).toEqual(Array(20).fill('hold'))
  })
  it('is let go once the link is short for READINGS_TO_CHANGE readings in a row, not for one', () => {
    expect(READINGS_TO_CHANGE).toBe(2)
    const short = 2500 * SHORT_LINK - 1
    expect(policies([short, 2000, short, 2000])).toEqual(['hold', 'hold', 'hold', 'hold'])
    expect(policies([short, short, short])).toEqual(['hold', 'free', 'free'])
    // No estimate in between: the streak starts again.
    expect(policies([short, undefined, short, short])).toEqual(['hold', 'hold', 'hold', 'free'])
  })
  it('is held again only once the link carries LINK_BACK of the Output (no flapping between)', () => {
    const between = 2500 * ((SHORT_LINK + LINK_BACK) / 2)
    expect(policies([between, between, between], 'free')).toEqual(['free', 'free', 'free'])
    const back = 2500 * LINK_BACK
    expect(policies([back, back, between], 'free')).toEqual(['free', 'hold', 'hold'])
  })
})

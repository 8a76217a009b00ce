// A Low latency (WebRTC) run's start: the Output's size is held until the congestion controller's
// estimate has reached the Output's bitrate (or the peer has been up START_HOLD_MS); from then on the
// sender may lower the size under pressure.
import { describe, expect, it } from 'vitest'
import {
  START_HOLD_MS,
  startOver,
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

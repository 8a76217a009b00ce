// Rates are written one way everywhere: Mbps, exact to the kbps.
import { describe, expect, it } from 'vitest'
import { formatBitrate } from '../../../src/shared/rates'

describe('formatBitrate', () => {
  it('writes every rate in Mbps, never rounded into a different number', () => {
    expect(formatBitrate(2_400_000)).toBe('2.4 Mbps')
    expect(formatBitrate(3_000_000)).toBe('3 Mbps')
    expect(formatBitrate(800_000)).toBe('0.8 Mbps')
    expect(formatBitrate(1_008_000)).toBe('1.008 Mbps')
    expect(formatBitrate(2_628_400)).toBe('2.628 Mbps')
    expect(formatBitrate(128_000)).toBe('0.128 Mbps')
    expect(formatBitrate(0)).toBe('0 Mbps')
    expect(formatBitrate(-5)).toBe('0 Mbps')
  })
})

// What the upload carried: the slope of ffmpeg's bytes written over the test's last seconds, so the
// first seconds (the socket and the router's queue filling at loopback speed) do not count.
import { describe, expect, it } from 'vitest'
import { carriedKbps, uploadTestArgs } from '../../../src/main/core/setup-test/upload'

describe('the upload test', () => {
  it('reads the rate of the last seconds, not the burst that filled the queues', () => {
    const samples: { t: number; bytes: number }[] = []
    // 2 MB in the first 2 s (the queues filling at loopback speed), then 250 000 bytes a second
    // (2 Mbit/s) for 8 s, a sample every 250 ms.
    for (let t = 0; t <= 10_000; t += 250)
      samples.push({ t, bytes: t <= 2000 ? t * 1000 : 2_000_000 + (t - 2000) * 250 })
    expect(carriedKbps(samples)).toBeCloseTo(2000, 0)
    expect(carriedKbps(samples.slice(0, 2))).toBeNull()
  })

  it('pushes faster than a creator uploads, with the key only in the output URL', () => {
    const args = uploadTestArgs('rtmp://127.0.0.1:1935/live/secret-key', 10)
    expect(args).toContain('10000k')
    expect(args.filter((a) => a.includes('secret-key'))).toEqual([
      'rtmp://127.0.0.1:1935/live/secret-key'
    ])
    expect(args[args.indexOf('-send_buffer_size') + 1]).toBe(String(32 * 1024))
  })
})

// The live bar's encoder line (encoder-text.ts): what it says of the page's encoder.
import { describe, expect, it } from 'vitest'
import { encoderText } from '../../../src/renderer/src/features/live/encoder-text'
import type { EncoderStats } from '../../../src/renderer/src/features/live/media-pusher'

const stats = (o: Partial<EncoderStats>): EncoderStats => ({
  path: 'webcodecs',
  encoder: 'software',
  codec: 'avc1.42e01f',
  width: 960,
  height: 540,
  fps: 30,
  targetKbps: 2500,
  measuredKbps: null,
  ...o
})

describe('encoder line', () => {
  it('names the encoder and the picture, then what it made of its target once a window has passed', () => {
    expect(encoderText(stats({}))).toBe('software H.264 (WebCodecs), 960×540 30 fps')
    expect(encoderText(stats({ measuredKbps: 2270, measuredForKbps: 2500 }))).toBe(
      'software H.264 (WebCodecs), 960×540 30 fps, 2.27 Mbps of 2.5 Mbps'
    )
    // Rising: the window made for less is still set beside the new target (it makes less, no alarm).
    expect(
      encoderText(stats({ measuredKbps: 1149, measuredForKbps: 1419, targetKbps: 1774 }))
    ).toBe('software H.264 (WebCodecs), 960×540 30 fps, 1.149 Mbps of 1.774 Mbps')
  })

  it('just after a lowering, the window made for the old target is no overshoot of the new one', () => {
    // Before: "1.076 Mbps of 0.626 Mbps" until the next 2 s window ended.
    const text = encoderText(stats({ measuredKbps: 1076, measuredForKbps: 1100, targetKbps: 626 }))
    expect(text).toBe(
      'software H.264 (WebCodecs), 960×540 30 fps, lowered to 0.626 Mbps (was 1.1 Mbps; measuring)'
    )
    expect(text).not.toContain('1.076')
  })

  it("MediaRecorder's line says the browser's codec; with no target change it reads as before", () => {
    expect(
      encoderText(
        stats({
          path: 'mediarecorder',
          encoder: undefined,
          codec: 'avc1.42E01F',
          measuredKbps: 900
        })
      )
    ).toBe("the browser's (MediaRecorder, avc1.42E01F), 960×540 30 fps, 0.9 Mbps of 2.5 Mbps")
  })
})

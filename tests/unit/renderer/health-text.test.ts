// The health strip's sentences (health-text.ts): main sends why a stream falls short as states and
// numbers (src/shared/shortfall.ts), and the renderer alone words them.
import { describe, expect, it } from 'vitest'
import {
  recoveringText,
  shortfallText,
  skippedText,
  sustainedText
} from '../../../src/renderer/src/features/live/health-text'

describe('shortfall in words', () => {
  it('names a camera that delivers fewer frames than the target', () => {
    expect(shortfallText({ cause: 'source-fps', deliveredFps: 22, targetFps: 30 })).toBe(
      'the camera delivers 22 fps (of 30)'
    )
    expect(shortfallText({ cause: 'source-fps', deliveredFps: 21.6, targetFps: 30 })).toBe(
      'the camera delivers 22 fps (of 30)'
    )
  })

  it('names an encoder that cannot keep up, and a slow network on the copy path', () => {
    expect(shortfallText({ cause: 'encoder-slow' })).toBe(
      'the encoder cannot keep up: lower the resolution or the frame rate, or close other apps'
    )
    expect(shortfallText({ cause: 'network-slow' })).toBe(
      'the network cannot keep up: the ingest takes the stream slower than real time'
    )
  })

  it('says what the upload carries, its rates written as every rate in the app (rates.ts)', () => {
    expect(
      shortfallText({ cause: 'upload', carriedKbps: 1051, needKbps: 2628, dropping: false })
    ).toBe(
      'your upload carries about 1.051 Mbps of the 2.628 Mbps needed: quality lowered to stay live'
    )
    expect(
      shortfallText({ cause: 'upload', carriedKbps: 500, needKbps: 2628, dropping: true })
    ).toBe(
      'your upload carries about 0.5 Mbps of the 2.628 Mbps needed: frames dropped to stay live'
    )
    // Never more than is needed; unknown: less.
    expect(
      shortfallText({ cause: 'upload', carriedKbps: 9000, needKbps: 2628, dropping: true })
    ).toBe(
      'your upload carries about 2.628 Mbps of the 2.628 Mbps needed: frames dropped to stay live'
    )
    expect(shortfallText({ cause: 'upload', needKbps: 2628, dropping: false })).toBe(
      'your upload carries less than the 2.628 Mbps needed: quality lowered to stay live'
    )
  })

  it('names a busy computer with its load and a way out', () => {
    expect(shortfallText({ cause: 'busy-computer', dropping: true, cpuPercent: 98 })).toBe(
      'this computer is too busy to encode and send in real time (CPU 98 %): frames dropped to stay live; close other apps or choose a smaller output size'
    )
    expect(shortfallText({ cause: 'busy-computer', dropping: false })).toBe(
      'this computer is too busy to encode and send in real time: quality lowered to stay live; close other apps or choose a smaller output size'
    )
    // Frames short with nothing dropped or lowered: the frame rate is what suffers, and it says so.
    expect(
      shortfallText({
        cause: 'busy-computer',
        dropping: false,
        cpuPercent: 100,
        deliveredFps: 7.4,
        targetFps: 30
      })
    ).toBe(
      'this computer is too busy to encode and send in real time (CPU 100 %): 7 of 30 frames a second go out; close other apps or choose a smaller output size'
    )
  })

  it('names the encoder, the frames skipped and a way out', () => {
    expect(
      shortfallText({ cause: 'encoder-skips', skippedFrames: 12, windowS: 3, cpuPercent: 99 })
    ).toBe(
      'this computer cannot encode fast enough (CPU 99 %): 12 frames skipped in the last 3 s; choose a faster preset or a smaller output size'
    )
    expect(shortfallText({ cause: 'encoder-skips', skippedFrames: 1, windowS: 3 })).toBe(
      'this computer cannot encode fast enough: 1 frame skipped in the last 3 s; choose a faster preset or a smaller output size'
    )
  })
})

describe("the strip's notes", () => {
  it('says how long the stream has fallen short, and why when main knows', () => {
    expect(sustainedText(7, { cause: 'source-fps', deliveredFps: 20, targetFps: 30 })).toBe(
      'For 7 s the stream has fallen short: the camera delivers 20 fps (of 30).'
    )
    expect(sustainedText(6, undefined)).toBe(
      'For 6 s the stream has fallen short: the encoder or the network cannot keep up: lower the bitrate or the resolution, or close other apps.'
    )
  })

  it('says the quality comes back, and where skipped frames were lost', () => {
    expect(recoveringText(1500, 2500)).toBe(
      'Quality coming back in steps while the stream keeps up (1.5 Mbps of 2.5 Mbps video).'
    )
    expect(skippedText(2, 5)).toBe(
      'Frames skipped: 2 by this computer (the way to the encoder was full), 5 by the encoder (it could not keep up)'
    )
  })
})

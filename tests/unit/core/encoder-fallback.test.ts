// A hardware encoder that would not open: the encoder process says which one and the encoder's own
// words (HardwareFallback), never a sentence; main reads that from its 'ready' message, and the live
// bar words it (tests/unit/renderer/encoder-text.test.ts). The real process falling back is
// tests/integration/encoder/encoder.test.ts.
import { describe, expect, it } from 'vitest'
import { parseEncoderMessage } from '../../../src/shared/encoder-channel'

const fallback = { tried: 'nvenc', label: 'NVIDIA NVENC H.264', detail: 'Cannot load libcuda.so.1' }

describe("the encoder's fallback from a hardware encoder, as a state", () => {
  it('main reads which encoder did not open and its words from the ready message', () => {
    expect(
      parseEncoderMessage({ type: 'ready', encoder: 'x264', label: 'x264 (software)', fallback })
    ).toEqual({ type: 'ready', encoder: 'x264', label: 'x264 (software)', fallback })
  })

  it('drops a fallback that is not one (an unknown encoder, no words)', () => {
    for (const bad of [
      { ...fallback, tried: 'voodoo' },
      { ...fallback, detail: '' },
      { tried: 'nvenc' },
      'NVIDIA NVENC H.264 could not start'
    ])
      expect(
        parseEncoderMessage({ type: 'ready', encoder: 'x264', label: 'x264', fallback: bad })
      ).toEqual({ type: 'ready', encoder: 'x264', label: 'x264' })
  })
})

// Onair's own encoder (#33), the parts that need no process: pushFrames' bytes checked by the raw-media
// reader before the core sees them, the Output's encoder fields, the encoder's settings for a run, the
// broadcaster's ffmpeg copying the encoder's H.264 and AAC, and the cause main names for an encoder
// that cannot keep up (the renderer's health-text.ts words it).
import { describe, expect, it, vi } from 'vitest'
import { dispatch } from '../../../src/main/core/dispatch'
import { buildBroadcastArgs } from '../../../src/main/core/broadcast/args'
import { uplinkShortfall } from '../../../src/main/core/broadcast/uplink/controller'
import {
  APP_ENCODER_MIME,
  encoderConfigOf,
  wantsAppEncoder,
  autoDeclines
} from '../../../src/main/core/broadcaster'
import type { OnairCalls, OutputSettings } from '../../../src/shared/contract'
import { i420Bytes, packRaw } from '../../../src/shared/raw-media'

const OUTPUT: OutputSettings = {
  width: 640,
  height: 360,
  fps: 30,
  videoBitrateKbps: 2500,
  audioBitrateKbps: 128,
  keyframeIntervalSec: 2
}
const frame = (w = 64, h = 36) =>
  packRaw({ kind: 'video', width: w, height: h, timestampUs: 0 }, new Uint8Array(i420Bytes(w, h)))

describe('pushFrames through the dispatcher', () => {
  it('takes whole raw-media messages, one or several, and hands the bytes to the core', async () => {
    const pushFrames = vi.fn(async () => undefined)
    const core = { pushFrames } as unknown as OnairCalls
    const two = new Uint8Array([...frame(), ...frame()])
    expect(await dispatch(core, 'pushFrames', ['run-1', two])).toEqual({ ok: true })
    expect(pushFrames).toHaveBeenCalledWith('run-1', two)
  })

  it('refuses a malformed message in the format’s own words, without calling the core', async () => {
    const pushFrames = vi.fn()
    const core = { pushFrames } as unknown as OnairCalls
    const cut = frame().subarray(0, 100)
    const odd = frame()
    new DataView(odd.buffer).setUint32(8, 63, true) // an odd width
    for (const [bytes, words] of [
      [cut, 'the last message is cut short'],
      [odd, 'raw video: 63x36 is not an even size'],
      [new Uint8Array(0), 'raw media of 1 to']
    ] as const) {
      const r = await dispatch(core, 'pushFrames', ['run-1', bytes])
      expect(r).toMatchObject({ ok: false, error: { code: 'bad-request' } })
      expect((r as { error: { message: string } }).error.message).toContain(words)
    }
    expect(pushFrames).not.toHaveBeenCalled()
  })

  it('goLive takes the Output’s encoder and x264 preset, and refuses an encoder it does not know', async () => {
    const goLive = vi.fn(async () => ({ runId: 'r', encoder: { kind: 'browser' } }))
    const core = { goLive } as unknown as OnairCalls
    const args = (output: object) => [
      { streamId: 's', source: { kind: 'media', mimeType: 'video/webm' }, output }
    ]
    const ok = await dispatch(
      core,
      'goLive',
      args({ ...OUTPUT, videoEncoder: 'nvenc', x264Preset: 'faster' })
    )
    expect(ok.ok).toBe(true)
    for (const bad of [{ videoEncoder: 'h265' }, { x264Preset: 'placebo' }])
      expect(await dispatch(core, 'goLive', args({ ...OUTPUT, ...bad }))).toMatchObject({
        ok: false,
        error: { code: 'bad-request' }
      })
    expect(goLive).toHaveBeenCalledOnce()
  })
})

describe("a run's encoder", () => {
  it('is Onair’s for the page’s capture unless the Output says browser; never for the test pattern', () => {
    const media = { kind: 'media', mimeType: 'video/webm' } as const
    // Automatic (no choice): x264 from 4 cores, the browser's below (autoDeclines says why, as
    // numbers: the live bar words it, tests/unit/renderer/encoder-text.test.ts).
    expect(wantsAppEncoder({ streamId: 's', source: media, output: OUTPUT }, 4)).toBe(true)
    expect(wantsAppEncoder({ streamId: 's', source: media, output: OUTPUT }, 2)).toBe(false)
    expect(autoDeclines(2)).toEqual({ cores: 2, minCores: 4 })
    expect(autoDeclines(8)).toBeUndefined()
    // A choice is kept whatever the machine.
    expect(
      wantsAppEncoder(
        { streamId: 's', source: media, output: { ...OUTPUT, videoEncoder: 'x264' } },
        2
      )
    ).toBe(true)
    expect(
      wantsAppEncoder({
        streamId: 's',
        source: media,
        output: { ...OUTPUT, videoEncoder: 'browser' }
      })
    ).toBe(false)
    expect(
      wantsAppEncoder({ streamId: 's', source: { kind: 'test-pattern' }, output: OUTPUT })
    ).toBe(false)
  })

  it('is set as OBS sets x264 for a stream: veryfast, 2 B-frames, AAC 48 kHz stereo at the Output’s rate', () => {
    expect(encoderConfigOf(OUTPUT)).toEqual({
      width: 640,
      height: 360,
      fps: 30,
      videoKbps: 2500,
      keyframeSec: 2,
      encoder: 'x264',
      preset: 'veryfast',
      bframes: 2,
      audio: { sampleRate: 48_000, channels: 2, kbps: 128 }
    })
    expect(encoderConfigOf({ ...OUTPUT, videoEncoder: 'qsv', x264Preset: 'faster' })).toMatchObject(
      { encoder: 'qsv', preset: 'faster' }
    )
  })

  it('is not encoded again by the broadcaster’s ffmpeg: H.264 and AAC are copied', () => {
    const args = buildBroadcastArgs({
      source: { kind: 'media', mimeType: APP_ENCODER_MIME },
      output: OUTPUT,
      url: 'rtmp://127.0.0.1/live/key'
    })
    expect(args.join(' ')).toContain('-c:v copy')
    expect(args.join(' ')).toContain('-c:a copy')
    expect(args).not.toContain('aac')
    // The page's own Opus still becomes AAC.
    const page = buildBroadcastArgs({
      source: { kind: 'media', mimeType: 'video/webm;codecs=avc1,opus' },
      output: OUTPUT,
      url: 'rtmp://127.0.0.1/live/key'
    })
    expect(page.join(' ')).toContain('-c:a aac -b:a 128k')
  })
})

describe("the health strip's cause for an encoder that cannot keep up (words: health-text.test.ts)", () => {
  it('names the encoder, the frames skipped and a way out, whatever the upload does', () => {
    for (const state of ['full', 'limited', 'recovering'] as const)
      expect(
        uplinkShortfall({
          state,
          carriedKbps: undefined,
          needKbps: 2628,
          droppingNow: false,
          cause: 'encoder',
          cpuShare: 0.99,
          skippedFrames: 12
        })
      ).toEqual({ cause: 'encoder-skips', skippedFrames: 12, windowS: 3, cpuPercent: 99 })
    // The network's drop keeps its own words.
    expect(
      uplinkShortfall({
        state: 'limited',
        carriedKbps: 1000,
        needKbps: 2628,
        droppingNow: true,
        cause: 'network'
      })
    ).toEqual({ cause: 'upload', carriedKbps: 1000, needKbps: 2628, dropping: true })
  })
})

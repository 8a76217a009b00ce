// The live bar's encoder line (encoder-text.ts): what it says of the page's encoder.
import { describe, expect, it } from 'vitest'
import { autoDeclines } from '../../../src/main/core/broadcaster'
import {
  appEncoderLabel,
  autoNote,
  encoderText,
  fallbackNote,
  hardwareFallbackNote,
  unavailableText
} from '../../../src/renderer/src/features/live/encoder-text'
import { DEFAULT_OUTPUT } from '../../../src/shared/output'
import type { EncoderStats } from '../../../src/renderer/src/features/live/engine/pusher'

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

  it("says the frames the browser's encoder was too far behind to take", () => {
    expect(encoderText(stats({ measuredKbps: 2270, queueSkips: 0 }))).toBe(
      'software H.264 (WebCodecs), 960×540 30 fps, 2.27 Mbps of 2.5 Mbps'
    )
    expect(encoderText(stats({ measuredKbps: 2270, queueSkips: 1 }))).toBe(
      'software H.264 (WebCodecs), 960×540 30 fps, 2.27 Mbps of 2.5 Mbps, 1 frame skipped (the encoder was behind)'
    )
    expect(encoderText(stats({ queueSkips: 7 }))).toBe(
      'software H.264 (WebCodecs), 960×540 30 fps, 7 frames skipped (the encoder was behind)'
    )
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

  it("names Onair's encoder (x264 with its preset), the frames sent and those this computer skipped", () => {
    const app = stats({
      path: 'app',
      encoder: undefined,
      label: 'x264 veryfast',
      codec: 'H.264',
      width: 1280,
      height: 720
    })
    expect(encoderText(app)).toBe("x264 veryfast (Onair's encoder), 1280×720 30 fps")
    expect(encoderText({ ...app, measuredFps: 29.8, pipeSkips: 0 })).toBe(
      "x264 veryfast (Onair's encoder), 1280×720 30 fps, 29.8 fps sent"
    )
    expect(encoderText({ ...app, measuredFps: 24, pipeSkips: 1 })).toContain(
      ', 24 fps sent, 1 frame skipped by this computer'
    )
    expect(encoderText({ ...app, pipeSkips: 12 })).toContain('12 frames skipped by this computer')
    const x264 = { kind: 'app', id: 'x264', label: 'x264 (software)' } as const
    expect(appEncoderLabel(x264, DEFAULT_OUTPUT)).toBe('x264 veryfast')
    expect(appEncoderLabel(x264, { ...DEFAULT_OUTPUT, x264Preset: 'faster' })).toBe('x264 faster')
    expect(
      appEncoderLabel({ kind: 'app', id: 'nvenc', label: 'NVIDIA NVENC H.264' }, DEFAULT_OUTPUT)
    ).toBe('NVIDIA NVENC H.264')
  })

  it("says why the browser's encoder is used when Onair's could not start", () => {
    // A hardware encoder that would not open: x264 runs, and the bar says why.
    expect(
      hardwareFallbackNote(
        { tried: 'nvenc', label: 'NVIDIA NVENC H.264', detail: 'no device.' },
        'x264 veryfast'
      )
    ).toBe('NVIDIA NVENC H.264 could not start: no device; x264 veryfast is used.')
    expect(fallbackNote({ kind: 'exited', signal: null, code: 1, stderr: [] })).toBe(
      "Onair's encoder could not start: the encoder process exited (code 1); the browser's encoder is used."
    )
    // Automatic chose the browser's on a machine with too few cores (main's autoDeclines counts).
    expect(autoNote(autoDeclines(1)!)).toMatch(/1 CPU core, .*choose x264 in Output/)
    expect(autoNote({ cores: 3, minCores: 4 })).toBe(
      "Automatic: this computer has 3 CPU cores, and x264 needs 4 or more beside the capture, so the browser's encoder is used (choose x264 in Output to use it anyway)."
    )
  })

  it('words why an encoder the Output lists cannot start: its own error, or why the probe could not run', () => {
    const nvenc = {
      id: 'nvenc',
      label: 'NVIDIA NVENC H.264',
      hardware: true,
      available: false
    } as const
    expect(unavailableText({ ...nvenc, reason: 'Cannot load libcuda.so.1' })).toBe(
      'Cannot load libcuda.so.1'
    )
    expect(unavailableText(nvenc)).toBe('it did not start')
    const x264 = {
      id: 'x264',
      label: 'x264 (software)',
      hardware: false,
      available: false
    } as const
    expect(
      unavailableText({ ...x264, probeFailure: { kind: 'spawn-failed', detail: 'spawn x ENOENT' } })
    ).toBe('the encoder process could not start: spawn x ENOENT')
    expect(
      unavailableText({
        ...x264,
        probeFailure: { kind: 'exited', signal: 'SIGKILL', code: null, stderr: ['out of memory.'] }
      })
    ).toBe('the encoder process exited (SIGKILL): out of memory')
  })
})

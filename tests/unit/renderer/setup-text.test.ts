// The setup guide's words (features/setup/setup-text.ts): every sentence the setup test shows, from the
// states and numbers main sends (the progress events, the result with its recommendation). The
// recommendations here are made by the real rule (shared/setup-test.ts), the progress by main's own
// encoder test, so the shapes are the ones the guide gets.
import { describe, expect, it } from 'vitest'
import type {
  SetupTestProgress,
  SetupTestResult,
  SetupTestStep,
  UploadMeasure
} from '../../../src/shared/contract'
import { recommendSettings } from '../../../src/shared/setup-test'
import { all, encoder, local, remote, up } from '../../helpers/setup-measures'
import { measureEncoder } from '../../../src/main/core/setup-test/encoder'
import {
  encoderFallbackText,
  holdText,
  progressText,
  reasonText,
  recBitrateText,
  recEncoderText,
  recSizeText,
  uploadMeasuredText
} from '../../../src/renderer/src/features/setup/setup-text'

const words = (r: { reasons: Parameters<typeof reasonText>[0][] }): string[] =>
  r.reasons.map(reasonText)
const at = (p: SetupTestStep & { fraction: number }): SetupTestProgress => ({ testId: 't', ...p })

describe('the setup test in words', () => {
  it('says each step of the progress as before, the upload as every rate in the app', () => {
    expect(progressText(null)).toBe('Starting…')
    expect(progressText(at({ part: 'stream', fraction: 0 }))).toBe('Making a test stream…')
    expect(progressText(at({ part: 'upload', fraction: 0.02, kbps: null }))).toBe(
      'Pushing the test stream…'
    )
    expect(progressText(at({ part: 'upload', fraction: 0.3, kbps: 1874.4 }))).toBe(
      'Upload: 1.874 Mbps'
    )
    expect(
      progressText(at({ part: 'encoder', fraction: 0.6, size: { height: 720, fps: 60 } }))
    ).toBe('Encoding 720p60…')
    expect(progressText(at({ part: 'encoder', fraction: 1, size: null }))).toBe('Encoder timed')
    expect(progressText(at({ part: 'done', fraction: 1 }))).toBe('Done')
  })

  it("words main's own encoder progress: numbers and sizes in, the line out", async () => {
    const seen: [number, unknown][] = []
    const abort = new AbortController()
    abort.abort()
    // Cancelled before the first size: the test ends at once, saying the encoder part is over.
    await measureEncoder({
      ffmpeg: () => 'ffmpeg',
      signal: abort.signal,
      onProgress: (f, size) => seen.push([f, size])
    })
    expect(seen).toEqual([[1, null]])
    expect(progressText(at({ part: 'encoder', fraction: 1, size: null }))).toBe('Encoder timed')
  })

  it('gives each reason of the recommendation its sentence', () => {
    const none = recommendSettings(remote, up(8500), encoder([]))
    expect(words(none).join(' ')).toMatch(/did not hold even 480p30/)
    expect(words(none).join(' ')).toMatch(/360p30 is the least Onair offers\.$/)

    const loc = recommendSettings(local, up(9800), encoder(['720p30', '480p30']))
    expect(words(loc)[0]).toMatch(/local studio on this computer cannot measure an upload/)
    expect(words(loc)[1]).toBe('x264 (software) held 720p30 in real time on this computer.')

    const failed = recommendSettings(
      remote,
      {
        kbps: null,
        pushedKbps: 10_000,
        failure: { kind: 'refused', detail: 'refused', exitCode: 1 }
      },
      all
    )
    expect(words(failed)[0]).toMatch(
      /could not be measured \(the ingest took no test stream: refused\)/
    )
    const wide = recommendSettings(remote, up(9950), all)
    // Written as every rate in the app (shared/rates.ts), not rounded into another number.
    expect(words(wide)[0]).toMatch(/at least 9\.95 Mbps;/)

    expect(words(recommendSettings(remote, up(3800), all))[0]).toBe(
      'The upload carried 3.8 Mbps: 75 % of it is 2.85 Mbps for picture and sound, which fits 720p30.'
    )
    const thin = words(recommendSettings(remote, up(300), all))
    expect(thin[thin.length - 1]).toBe(
      'Even 360p30 wants 0.4 Mbps: the picture will break up in motion on this upload.'
    )
  })

  it('names why an upload has no figure, quoting the cause', () => {
    const unmeasured = (failure: NonNullable<UploadMeasure['failure']> | null): string =>
      reasonText({ kind: 'upload-unmeasured', failure })
    expect(unmeasured({ kind: 'no-ffmpeg', detail: 'spawn ffmpeg ENOENT' })).toBe(
      'The upload could not be measured (ffmpeg could not start: spawn ffmpeg ENOENT): this is recommended from the encoder alone.'
    )
    expect(unmeasured({ kind: 'refused', detail: null, exitCode: 1 })).toMatch(
      /\(the ingest took no test stream \(ffmpeg exited with code 1\)\)/
    )
    expect(unmeasured({ kind: 'no-key' })).toMatch(
      /\(the service gave the test stream no stream key\)/
    )
    expect(unmeasured(null)).toMatch(/\(no figure\)/)
  })

  it('writes the figures of the result as the guide shows them', () => {
    const result = (upload: UploadMeasure, enc = all): SetupTestResult => ({
      service: remote,
      upload,
      encoder: enc,
      recommendation: recommendSettings(remote, upload, enc),
      finishedAt: 0
    })
    expect(uploadMeasuredText(result({ kbps: 1900, pushedKbps: 10_128 }))).toBe(
      '1.9 Mbps (the test pushed 10.128 Mbps)'
    )
    expect(uploadMeasuredText(result(up(9950)))).toBe('not measured')
    const rec = recommendSettings(remote, up(3800), all)
    expect(recSizeText(rec)).toBe('1280×720, 30 fps')
    expect(recBitrateText(rec)).toBe('2.7 Mbps picture + 128 kbit/s sound')
    expect(holdText(all.sizes[0]!)).toBe('1080p60: held (60 fps)')
    expect(holdText(encoder([]).sizes[3]!)).toBe('720p30: not held (15 fps, 30 frames skipped)')
    expect(encoderFallbackText({ kind: 'timeout' })).toBe(
      "Onair's encoder process could not run here (the encoder process did not start in time); ffmpeg's libx264 was timed instead."
    )
    const spawn = { kind: 'spawn-failed', detail: 'spawn encoder ENOENT' } as const
    expect(reasonText({ kind: 'encoder-untested', failure: spawn })).toBe(
      "The encoder could not be tested (Onair's encoder process could not run here: the encoder process could not start: spawn encoder ENOENT)."
    )
    expect(reasonText({ kind: 'encoder-untested', failure: null })).toBe(
      'The encoder could not be tested (no result).'
    )
    // On a computer Automatic gives the browser's encoder, the guide recommends it and says why.
    const onTwo: SetupTestResult = {
      service: remote,
      upload: up(3800),
      encoder: all,
      recommendation: recommendSettings(remote, up(3800), all, { cores: 2, minCores: 4 }),
      finishedAt: 0
    }
    expect(recEncoderText(onTwo)).toBe('Browser (WebCodecs)')
    expect(words(onTwo.recommendation)).toContain(
      "This computer has 2 CPU cores, and x264 needs 4 or more beside the camera and scene (it was timed alone): the browser's encoder is recommended, as Automatic chooses here, at a size of at most half the pixels a second x264 held, leaving room for the capture."
    )
    expect(recEncoderText(result(up(3800)))).toBe('x264 (software)')
  })
})

// The setup test's rule (shared/setup-test.ts): at most 75 % of the measured upload for picture and
// sound, the best size that fits that and that the encoder held, and the local studio's loopback
// named as no upload at all. The reasons are data (the guide words them: setup-text.test.ts says
// what each reads).
import { describe, expect, it } from 'vitest'
import { recommendSettings } from '../../../src/shared/setup-test'
import { all, encoder, local, remote, up } from '../../helpers/setup-measures'

const refused = { kind: 'refused' as const, detail: 'Connection refused', exitCode: 1 }
const total = (r: { videoBitrateKbps: number; audioBitrateKbps: number }): number =>
  r.videoBitrateKbps + r.audioBitrateKbps

describe('the setup recommendation', () => {
  it('keeps picture and sound within 75 % of a measured upload, at a size that fits', () => {
    for (const kbps of [600, 1900, 2000, 3800, 5000, 8000]) {
      const r = recommendSettings(remote, up(kbps), all)
      expect(r.basis).toBe('upload')
      expect(total(r), `${kbps} kbit/s`).toBeLessThanOrEqual(0.75 * kbps)
      expect(total(r), `${kbps} kbit/s`).toBeGreaterThanOrEqual(0.6 * kbps)
    }
    // A 2 Mbit/s upload (1.9 carried, headers aside): 480p30, under 1.5 Mbit/s.
    const two = recommendSettings(remote, up(1900), all)
    expect([two.height, two.fps]).toEqual([480, 30])
    expect(total(two)).toBeLessThanOrEqual(1500)
    const four = recommendSettings(remote, up(3800), all)
    expect([four.height, four.fps]).toEqual([720, 30])
    const fast = recommendSettings(remote, up(7000), all)
    expect([fast.height, fast.fps]).toEqual([1080, 30])
  })

  it('never picks a size the encoder did not hold', () => {
    const r = recommendSettings(remote, up(8500), encoder(['720p30', '480p30']))
    expect([r.height, r.fps]).toEqual([720, 30])
    expect(r.videoBitrateKbps).toBeLessThanOrEqual(4000)
    const none = recommendSettings(remote, up(8500), encoder([]))
    expect([none.height, none.fps]).toEqual([360, 30])
    expect(none.reasons).toContainEqual({
      kind: 'encoder-floor',
      tried: { height: 480, fps: 30 },
      floor: { height: 360, fps: 30 }
    })
  })

  it('says the local studio cannot measure an upload when the test stream was never held back', () => {
    const r = recommendSettings(local, up(9800), encoder(['720p30', '480p30']))
    expect(r.basis).toBe('encoder-only')
    expect(r.reasons[0]).toEqual({ kind: 'upload-local' })
    expect([r.height, r.fps, r.videoBitrateKbps]).toEqual([720, 30, 2500])
  })

  it('measures the local studio too when something limits its link', () => {
    const r = recommendSettings(local, up(1900), all)
    expect(r.basis).toBe('upload')
    expect(total(r)).toBeLessThanOrEqual(1425)
  })

  it("recommends the encoder Automatic would use: the browser's below its cores, x264 or hardware above", () => {
    const two = { cores: 2, minCores: 4 }
    const r = recommendSettings(remote, up(3800), all, two)
    expect(r.videoEncoder).toBe('browser')
    expect(r.reasons).toContainEqual({ kind: 'encoder-browser', cores: 2, minCores: 4 })
    // The upload's rule is the same; x264 held every size alone, so 720p30 (a quarter of 1080p60's
    // pixels a second) has room for the capture beside it.
    expect([r.height, r.fps]).toEqual([720, 30])
    // Sizes with room for the capture: x264 alone held up to 720p60 (as on this project's machines):
    // 720p30 (half its pixels a second) is the most recommended, at any upload.
    const upTo720p60 = encoder(['720p60', '720p30', '480p30'])
    const fast = recommendSettings(local, up(9800), upTo720p60, two)
    expect([fast.height, fast.fps]).toEqual([720, 30])
    expect(fast.reasons).toContainEqual({
      kind: 'encoder-held',
      label: 'x264 (software)',
      size: { height: 720, fps: 60 }
    })
    expect(recommendSettings(local, up(9800), upTo720p60)).toMatchObject({ height: 720, fps: 60 })
    // Held 720p30 alone: 480p30 (less than half its pixels a second); 480p30 alone: the floor, without
    // saying the encoder held nothing.
    const upTo720p30 = recommendSettings(local, up(9800), encoder(['720p30', '480p30']), two)
    expect([upTo720p30.height, upTo720p30.fps]).toEqual([480, 30])
    const only480 = recommendSettings(local, up(9800), encoder(['480p30']), two)
    expect([only480.height, only480.fps]).toEqual([360, 30])
    expect(only480.reasons.map((x) => x.kind)).not.toContain('encoder-floor')
    // Only sizes held themselves count: 1080p30 held and 720p60 not (more pixels a second, fewer
    // frames) does not make 720p60 one.
    const skips720p60 = encoder(['1080p30', '720p30', '480p30'])
    expect(recommendSettings(local, up(9800), skips720p60)).toMatchObject({ height: 1080, fps: 30 })
    expect(recommendSettings(remote, up(5900), skips720p60)).toMatchObject({ height: 720, fps: 30 })
    const eight = recommendSettings(remote, up(3800), all)
    expect(eight.videoEncoder).toBe('x264')
    expect(eight.reasons.map((x) => x.kind)).not.toContain('encoder-browser')
    // A hardware encoder costs the CPU little: it is kept on any number of cores.
    const nvenc = { ...all, id: 'nvenc' as const, label: 'NVIDIA NVENC' }
    const hw = recommendSettings(remote, up(3800), nvenc, two)
    expect(hw.videoEncoder).toBe('nvenc')
    expect(hw.reasons.map((x) => x.kind)).not.toContain('encoder-browser')
    // From the encoder alone too (the local studio).
    expect(recommendSettings(local, up(9800), all, two).videoEncoder).toBe('browser')
  })

  it('names an upload it could not measure, and one faster than the test pushed', () => {
    const failed = recommendSettings(
      remote,
      { kbps: null, pushedKbps: 10_000, failure: refused },
      all
    )
    expect(failed.basis).toBe('encoder-only')
    expect(failed.reasons[0]).toEqual({ kind: 'upload-unmeasured', failure: refused })
    const wide = recommendSettings(remote, up(9950), all)
    expect(wide.basis).toBe('encoder-only')
    // The figure as measured (the guide writes it as every rate in the app: shared/rates.ts).
    expect(wide.reasons[0]).toEqual({ kind: 'upload-unlimited', kbps: 9950 })
    expect([wide.height, wide.fps]).toEqual([1080, 60])
  })

  it('gives its reasons as states and numbers, never as sentences (the guide writes those)', () => {
    const cases = [
      recommendSettings(remote, up(3800), all),
      recommendSettings(remote, up(8500), encoder([])),
      recommendSettings(local, up(9800), all),
      recommendSettings(remote, up(9950), all),
      recommendSettings(remote, up(600), encoder(['480p30'])),
      recommendSettings(remote, { kbps: null, pushedKbps: 10_000, failure: refused }, all)
    ]
    for (const r of cases)
      for (const reason of r.reasons) {
        expect(typeof reason, JSON.stringify(reason)).toBe('object')
        expect(reason).toHaveProperty('kind')
      }
    // The one string a reason carries of its own is the encoder's name.
    expect(cases[0]!.reasons).toEqual([
      {
        kind: 'upload-fits',
        kbps: 3800,
        sharePercent: 75,
        budgetKbps: 2850,
        size: { height: 720, fps: 30 }
      },
      { kind: 'encoder-held', label: 'x264 (software)', size: { height: 1080, fps: 60 } }
    ])
  })
})

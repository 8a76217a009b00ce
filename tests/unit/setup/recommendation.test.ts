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

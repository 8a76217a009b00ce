// The stream health model: Livepeer's reducer over its three conditions, the windowed pace of the
// ladder against the source's, and the issue texts the app shows.
import { describe, expect, it } from 'vitest'
import {
  ConditionState,
  healthOf,
  RateMeter,
  reduceHealthy,
  TranscodeHealth,
  type Condition,
  type ConditionType
} from '../../../src/studio/health'

const c = (type: ConditionType, status: boolean | null): Condition => ({
  type,
  status,
  lastProbeTime: null,
  lastTransitionTime: null
})

describe('reduceHealthy (livepeer-data reducer)', () => {
  it('is false when any condition is false, optional ones included', () => {
    expect(reduceHealthy([c('Transcoding', false), c('TranscodeRealTime', true)])).toBe(false)
    expect(
      reduceHealthy([
        c('Transcoding', true),
        c('TranscodeRealTime', true),
        c('Multistreaming', false)
      ])
    ).toBe(false)
  })

  it('is unknown when a required condition is unknown, whatever the optional one', () => {
    expect(reduceHealthy([c('Transcoding', true)])).toBeNull()
    expect(reduceHealthy([c('Transcoding', true), c('TranscodeRealTime', null)])).toBeNull()
  })

  it('is true when the required are true and the optional is true or unknown', () => {
    expect(reduceHealthy([c('Transcoding', true), c('TranscodeRealTime', true)])).toBe(true)
    expect(
      reduceHealthy([
        c('Transcoding', true),
        c('TranscodeRealTime', true),
        c('Multistreaming', true)
      ])
    ).toBe(true)
  })
})

describe('ConditionState', () => {
  it('probes at every set, transitions only on a change', () => {
    const s = new ConditionState('Transcoding')
    expect(s.view()).toEqual(c('Transcoding', null))
    s.set(true, 100)
    s.set(true, 200)
    expect(s.view()).toEqual({
      type: 'Transcoding',
      status: true,
      lastProbeTime: 200,
      lastTransitionTime: 100
    })
    s.set(false, 300)
    expect(s.view()).toMatchObject({ status: false, lastProbeTime: 300, lastTransitionTime: 300 })
  })
})

describe('RateMeter', () => {
  it('measures media seconds per wall second over its window, once it spans enough', () => {
    const m = new RateMeter(6000, 4000)
    m.push(0, 0)
    m.push(2000, 2)
    expect(m.rate()).toBeUndefined()
    for (let t = 3000; t <= 10_000; t += 1000) m.push(t, t / 1000)
    expect(m.rate()).toBeCloseTo(1, 5)
    // Half speed for a window: the old samples leave it.
    for (let t = 11_000; t <= 20_000; t += 1000) m.push(t, 10 + (t - 10_000) / 2000)
    expect(m.rate()).toBeCloseTo(0.5, 5)
    m.reset()
    expect(m.rate()).toBeUndefined()
  })
})

describe('TranscodeHealth', () => {
  it('without profiles, both transcoding conditions are true', () => {
    const h = new TranscodeHealth(false, 1)
    expect(h.conditions().map((x) => x.status)).toEqual([true, true])
    expect(h.issues()).toEqual([])
  })

  it('a failure names its cause until the ladder flows again', () => {
    const h = new TranscodeHealth(true, 0)
    expect(h.conditions().map((x) => x.status)).toEqual([null, null])
    h.flowing(10)
    h.failed('killed by SIGKILL', 20)
    expect(h.issues()).toEqual(['Transcoding: the transcoder failed (killed by SIGKILL)'])
    h.attempt()
    h.flowing(30)
    expect(h.issues()).toEqual([])
    expect(h.conditions()[0]).toMatchObject({ status: true, lastTransitionTime: 30 })
  })

  it('a ladder slower than 0.9 of the source pace is not real time; keeping up again clears it', () => {
    const h = new TranscodeHealth(true, 0)
    h.flowing(0)
    for (let t = 0; t <= 6000; t += 1000) {
      h.sourceProgress(t, t / 1000)
      h.ladderProgress(t, (t / 1000) * 0.7)
    }
    expect(h.conditions()[1]!.status).toBe(false)
    expect(h.issues()).toEqual([
      'TranscodeRealTime: the transcoder runs at 0.70x real time, too slow for live'
    ])
    for (let t = 7000; t <= 14_000; t += 1000) {
      h.sourceProgress(t, t / 1000)
      h.ladderProgress(t, 4.2 + (t - 6000) / 1000)
    }
    expect(h.conditions()[1]!.status).toBe(true)
    expect(h.issues()).toEqual([])
  })

  it('a source that arrives slowly does not make the ladder slow', () => {
    const h = new TranscodeHealth(true, 0)
    h.flowing(0)
    for (let t = 0; t <= 6000; t += 1000) {
      h.sourceProgress(t, (t / 1000) * 0.5)
      h.ladderProgress(t, (t / 1000) * 0.5)
    }
    expect(h.conditions()[1]!.status).toBe(true)
  })

  it('healthOf adds Multistreaming and the targets’ issues after the transcoding ones', () => {
    const h = new TranscodeHealth(true, 0)
    h.failed('width 99999 is more than 4096', 5)
    const ms = new ConditionState('Multistreaming')
    ms.set(false, 5)
    const v = healthOf(h, ms, ['Multistream target "YT" (id) is retrying: connection refused'])
    expect(v.healthy).toBe(false)
    expect(v.conditions.map((x) => x.type)).toEqual([
      'Transcoding',
      'TranscodeRealTime',
      'Multistreaming'
    ])
    expect(v.issues).toEqual([
      'Transcoding: the transcoder failed (width 99999 is more than 4096)',
      'Multistream target "YT" (id) is retrying: connection refused'
    ])
  })
})

// The stream's health in the creator's words (shared/stream-health.ts), from Livepeer-shaped inputs:
// the stream's isHealthy and issues, and the conditions of GET /data/stream/{id}/health as
// livepeer-data's reducers name them (Transcoding, TranscodeRealTime required; Multistreaming optional).
import { describe, expect, it } from 'vitest'
import { retryingIssue, startingIssue } from '../../../src/shared/destinations'
import { healthConditionsOf } from '../../../src/main/core/view-models'
import { andList, streamHealthInWords } from '../../../src/shared/stream-health'

const LADDER = ['720p', '480p']
const conditions = (transcoding: boolean | null, realTime: boolean | null, ms: boolean | null) => [
  { type: 'Transcoding', status: transcoding },
  { type: 'TranscodeRealTime', status: realTime },
  { type: 'Multistreaming', status: ms }
]

describe('stream health in words', () => {
  it('says the issue sentence for a failed transcoder, with the cause its issue names', () => {
    const w = streamHealthInWords({
      isHealthy: false,
      issues: ['Transcoding failed: width 99999 is more than 4096'],
      conditions: conditions(false, null, null),
      renditions: LADDER
    })
    expect(w).toEqual({
      level: 'trouble',
      sentences: [
        '720p and 480p are not being made: the transcoder failed (width 99999 is more than 4096). Viewers get the source only.'
      ]
    })
  })

  it("reads the local studio's own lines (health.ts) without saying the failure twice", () => {
    const w = streamHealthInWords({
      isHealthy: false,
      issues: [
        'Transcoding: the transcoder failed (width 99999 is more than 4096)',
        'TranscodeRealTime: the transcoder runs at 0.72x real time, too slow for live'
      ],
      conditions: conditions(false, false, null),
      renditions: LADDER
    })
    expect(w.sentences).toEqual([
      '720p and 480p are not being made: the transcoder failed (width 99999 is more than 4096). Viewers get the source only.',
      '720p and 480p are made slower than real time: viewers of them may wait or stall.'
    ])
  })

  it('reads a failed transcoder from the condition alone, and from an issue alone (no health endpoint)', () => {
    expect(
      streamHealthInWords({
        isHealthy: false,
        issues: [],
        conditions: conditions(false, true, null),
        renditions: ['720p']
      }).sentences
    ).toEqual(['720p is not being made: the transcoder failed. Viewers get the source only.'])
    expect(
      streamHealthInWords({
        isHealthy: false,
        issues: ['Transcoding failed: the encoder quit'],
        renditions: LADDER
      }).sentences
    ).toEqual([
      '720p and 480p are not being made: the transcoder failed (the encoder quit). Viewers get the source only.'
    ])
  })

  it('says when transcoding runs slower than real time', () => {
    const w = streamHealthInWords({
      isHealthy: false,
      issues: ['Transcoding is slower than real time'],
      conditions: conditions(true, false, null),
      renditions: LADDER
    })
    expect(w.sentences).toEqual([
      '720p and 480p are made slower than real time: viewers of them may wait or stall.'
    ])
  })

  it('names a retrying destination, and leaves a starting one out (it is no trouble)', () => {
    const w = streamHealthInWords({
      isHealthy: false,
      issues: [
        retryingIssue({ id: 't1', name: 'YouTube' }, 'the server rejected the stream key'),
        startingIssue({ id: 't2', name: 'Twitch' })
      ],
      conditions: conditions(true, true, false),
      renditions: LADDER
    })
    expect(w.sentences).toEqual([
      '"YouTube" is not receiving the stream: the server rejected the stream key.'
    ])
    expect(
      streamHealthInWords({
        isHealthy: true,
        issues: [startingIssue({ id: 't2', name: 'Twitch' })],
        renditions: LADDER
      })
    ).toEqual({ level: 'fine', sentences: [] })
  })

  it('shows an issue string it does not know as the service wrote it', () => {
    const w = streamHealthInWords({
      isHealthy: false,
      issues: ['Keyframe interval is 12 s', 'Multistream "Kick" disconnected'],
      renditions: LADDER
    })
    expect(w.sentences).toEqual([
      'The service reports: Keyframe interval is 12 s',
      'A destination has trouble: Multistream "Kick" disconnected'
    ])
  })

  it('says an unhealthy verdict with nothing named, and an optional Multistreaming false', () => {
    expect(streamHealthInWords({ isHealthy: false, issues: [], renditions: [] }).sentences).toEqual(
      ['The service says the stream is not healthy, without saying why.']
    )
    expect(
      streamHealthInWords({
        isHealthy: false,
        issues: [],
        conditions: conditions(true, true, false),
        renditions: LADDER
      }).sentences
    ).toEqual(['A destination is not receiving the stream.'])
  })

  it('is fine when healthy, and unknown while the service has no verdict', () => {
    expect(
      streamHealthInWords({
        isHealthy: true,
        issues: [],
        conditions: conditions(true, true, null),
        renditions: LADDER
      })
    ).toEqual({ level: 'fine', sentences: [] })
    expect(
      streamHealthInWords({
        isHealthy: null,
        issues: [],
        conditions: conditions(null, null, null),
        renditions: LADDER
      })
    ).toEqual({ level: 'unknown', sentences: [] })
  })

  it("reads Livepeer's health answer (livepeer-data's HealthStatus) into conditions", () => {
    // As GET /data/stream/{id}/health answers: the verdict, each condition with its probe times.
    const answer = {
      id: 'stream-1',
      healthy: { status: false, lastProbeTime: 1700000000000, lastTransitionTime: 1700000000000 },
      conditions: [
        { type: 'Transcoding', status: false, lastProbeTime: 1700000000000 },
        { type: 'TranscodeRealTime', status: null, lastProbeTime: null },
        { type: 'Multistreaming', status: true, lastProbeTime: 1700000000000 },
        { status: true },
        { type: 'NoErrors', status: 'yes' }
      ],
      multistream: [{ target: { id: 't1', profile: 'source' }, connected: { status: true } }]
    }
    const conditions = healthConditionsOf(answer)
    expect(conditions).toEqual([
      { type: 'Transcoding', status: false },
      { type: 'TranscodeRealTime', status: null },
      { type: 'Multistreaming', status: true },
      { type: 'NoErrors', status: null }
    ])
    expect(healthConditionsOf(null)).toBeUndefined()
    expect(healthConditionsOf({ healthy: {} })).toBeUndefined()
    expect(
      streamHealthInWords({ isHealthy: false, issues: [], conditions, renditions: LADDER })
        .sentences
    ).toEqual([
      '720p and 480p are not being made: the transcoder failed. Viewers get the source only.'
    ])
  })

  it('joins names as a sentence does', () => {
    expect(andList([])).toBe('')
    expect(andList(['720p'])).toBe('720p')
    expect(andList(['720p', '480p', '360p'])).toBe('720p, 480p and 360p')
  })
})

// What a WebRTC run's health strip blames: a short link to a service on this computer (the local
// studio, reached on loopback) is the computer, never the upload; elsewhere it is the upload.
import { describe, expect, it } from 'vitest'
import {
  isLoopbackAddress,
  readStats
} from '../../../src/renderer/src/features/live/engine/whip-publisher'
import { webRtcLimit } from '../../../src/renderer/src/features/live/webrtc-limit'

/** A getStats() report as Chromium gives it: the video sent, the connected pair and its far end. */
function report(remoteAddress: string | null): RTCStatsReport {
  const entries: [string, Record<string, unknown>][] = [
    [
      'OT01V',
      {
        type: 'outbound-rtp',
        kind: 'video',
        bytesSent: 250_000,
        timestamp: 2000,
        qualityLimitationReason: 'bandwidth',
        framesPerSecond: 29.6,
        frameWidth: 320,
        frameHeight: 180
      }
    ],
    [
      'CP1',
      {
        type: 'candidate-pair',
        nominated: true,
        availableOutgoingBitrate: 150_000,
        remoteCandidateId: 'RC1'
      }
    ]
  ]
  if (remoteAddress !== null)
    entries.push(['RC1', { type: 'remote-candidate', address: remoteAddress, port: 40001 }])
  return new Map(entries) as unknown as RTCStatsReport
}

describe('where a WebRTC run is sent', () => {
  it('is this computer when the connected pair ends on loopback', () => {
    expect(readStats(report('127.0.0.1')).stats).toMatchObject({
      availableKbps: 150,
      limitation: 'bandwidth',
      onThisComputer: true
    })
    expect(readStats(report('::1')).stats.onThisComputer).toBe(true)
    expect(readStats(report('203.0.113.7')).stats.onThisComputer).toBe(false)
    // No far end in the report yet: not known, not guessed.
    expect(readStats(report(null)).stats.onThisComputer).toBeUndefined()
  })
  it('tells loopback from addresses that only look like it', () => {
    expect(isLoopbackAddress('127.45.0.2')).toBe(true)
    expect(isLoopbackAddress('10.127.0.1')).toBe(false)
    expect(isLoopbackAddress('1270.0.0.1')).toBe(false)
    expect(isLoopbackAddress('::ffff:192.0.2.1')).toBe(false)
  })
})

describe('what the strip blames', () => {
  it('a short link to a service on this computer: the computer, not the upload', () => {
    const limit = webRtcLimit({ limitation: 'bandwidth', onThisComputer: true })
    expect(limit?.cause).toBe('computer')
    expect(limit?.words).toMatch(/^this computer/)
    expect(limit?.words).not.toContain('upload')
  })
  it('a short link to a service elsewhere, or not known: the upload', () => {
    expect(webRtcLimit({ limitation: 'bandwidth', onThisComputer: false })?.cause).toBe('upload')
    expect(webRtcLimit({ limitation: 'bandwidth' })?.words).toMatch(/^the upload/)
  })
  it('an encoder that cannot keep up: the computer, wherever the service is; nothing: none', () => {
    expect(webRtcLimit({ limitation: 'cpu', onThisComputer: false })?.cause).toBe('computer')
    expect(webRtcLimit({ limitation: 'none', onThisComputer: true })).toBeNull()
  })
})

// The forwarder's pure parts (its ffmpeg arguments, how an exit is named, which parts of a target
// URL are secrets), the URL shown in a "Bad URL" error, and the redactor on destination URLs.
import { describe, expect, it } from 'vitest'
import {
  redact,
  redactNmsLine,
  redactSecrets,
  targetUrlSecrets,
  urlForError
} from '../../../src/shared/redact'
import {
  FORWARD_BACKOFF,
  forwardArgs,
  forwardFailureReason,
  type ForwardTarget
} from '../../../src/studio/forwarder'
import { backoffDelay } from '../../../src/shared/backoff'

const target = (o: Partial<ForwardTarget> = {}): ForwardTarget => ({
  targetId: 't1',
  name: 'YouTube',
  url: 'rtmp://a.rtmp.youtube.com/live2/abcd-efgh-ijkl',
  profile: 'source',
  videoOnly: false,
  ...o
})

const after = (args: string[], flag: string): string | undefined => args[args.indexOf(flag) + 1]

describe('forwardArgs', () => {
  it('copies the source from the ingest to an RTMP target as FLV, audio included', () => {
    const args = forwardArgs(
      { kind: 'rtmp', url: 'rtmp://127.0.0.1:1935/live/k?token=x' },
      target()
    )
    expect(after(args, '-i')).toBe('rtmp://127.0.0.1:1935/live/k?token=x')
    expect(args.slice(args.indexOf('-i') - 2, args.indexOf('-i'))).toEqual([
      '-rw_timeout',
      '5000000'
    ])
    expect(args).toContain('-map')
    expect(args).toContain('0:a:0?')
    expect(after(args, '-c')).toBe('copy')
    expect(args).not.toContain('libx264')
    expect(args).not.toContain('-an')
    expect(after(args, '-f')).toBe('flv')
    // The target URL is last, with its own timeout before it.
    expect(args.slice(-3)).toEqual(['-rw_timeout', '10000000', target().url])
  })

  it("reads a rendition's live playlist from its newest segment; videoOnly drops audio", () => {
    const args = forwardArgs(
      { kind: 'hls', playlist: '/data/media/s/run0/v1/index.m3u8' },
      target({ videoOnly: true, profile: '360p' })
    )
    expect(after(args, '-live_start_index')).toBe('-1')
    expect(after(args, '-i')).toBe('/data/media/s/run0/v1/index.m3u8')
    expect(args).toContain('-an')
    expect(args).not.toContain('0:a:0?')
    expect(after(args, '-c')).toBe('copy')
  })

  it('sends MPEG-TS to an SRT target', () => {
    const args = forwardArgs(
      { kind: 'rtmp', url: 'rtmp://127.0.0.1/live/k' },
      target({ url: 'srt://srt.example.com:9000?streamid=secret1234' })
    )
    expect(after(args, '-f')).toBe('mpegts')
    expect(args).not.toContain('flv')
  })
})

describe('forwardFailureReason', () => {
  it.each([
    [['rtmp://host/live2/****: Connection refused'], false, 'connection refused'],
    [
      ['[rtmp @ 0x1] Server error: Authentication failed'],
      false,
      'the server rejected the stream key'
    ],
    [['rtmp://host/app/****: Broken pipe'], false, 'the server rejected the stream key'],
    [['Error closing file rtmp://h/app/****: Broken pipe'], true, 'connection lost'],
    [['rtmp://host/app/****: Connection timed out'], false, 'no answer from the server'],
    [
      ['Failed to resolve hostname nowhere.invalid: Name or service not known'],
      false,
      'no answer from the server'
    ],
    [['srt://x: Protocol not found'], false, 'this kind of address is not supported'],
    [['something else entirely'], false, 'the stream could not be sent']
  ])('%j (was live: %s) -> %s', (lines, wasLive, reason) => {
    expect(forwardFailureReason(lines, wasLive)).toBe(reason)
  })
})

describe('retry schedule', () => {
  it('grows from 1 s and never waits more than 5 s, so a returned server is live within 10 s', () => {
    const mid = () => 0.5
    expect(backoffDelay(1, FORWARD_BACKOFF, mid)).toBe(1000)
    expect(backoffDelay(2, FORWARD_BACKOFF, mid)).toBe(1500)
    for (let n = 1; n < 50; n++) {
      expect(backoffDelay(n, FORWARD_BACKOFF, () => 1)).toBeLessThanOrEqual(5000)
    }
  })
})

describe('target secrets and redaction', () => {
  it('lists the URL, its key path and the SRT key fields as secrets', () => {
    expect(targetUrlSecrets('rtmp://a.rtmp.youtube.com/live2/abcd-efgh')).toEqual(
      expect.arrayContaining(['rtmp://a.rtmp.youtube.com/live2/abcd-efgh', 'abcd-efgh'])
    )
    expect(targetUrlSecrets('srt://h:9000?streamid=the-key-1&passphrase=pass-phrase-2')).toEqual(
      expect.arrayContaining(['the-key-1', 'pass-phrase-2'])
    )
  })

  it('redacts the key of any RTMP(S) or SRT destination URL, and SRT fields on their own', () => {
    expect(
      redactSecrets('rtmp://a.rtmp.youtube.com/live2/abcd-efgh-1234: Connection refused')
    ).toBe('rtmp://a.rtmp.youtube.com/live2/****: Connection refused')
    expect(redact('rtmps://live-api-s.facebook.com:443/rtmp/FB-1-abc?s_bl=1 failed')).toBe(
      'rtmps://live-api-s.facebook.com:443/rtmp/**** failed'
    )
    expect(redact('srt://h:9000?streamid=k3y-value&passphrase=pw-12345678 timeout')).toBe(
      'srt://h:9000?**** timeout'
    )
    expect(redact('options: streamid=k3y-value passphrase=pw-12345678')).toBe(
      'options: streamid=**** passphrase=****'
    )
    expect(redact('rtmp://user:pa55word@host/app/key')).not.toContain('pa55word')
  })

  it('shows only the scheme and host of a bad URL in an error', () => {
    expect(urlForError('rtmp://h.example:99999/app/s3cret')).toBe('rtmp://h.example:99999/****')
    expect(urlForError('srt://h.example:1?streamid=s3cret')).toBe('srt://h.example:1/****')
    expect(urlForError('rtmp://user:pw@h.example/app/k')).toBe('rtmp://h.example/****')
    expect(urlForError('no scheme at all s3cret')).toBe('****')
  })

  it("takes the key out of node-media-server's lines, in each of its shapes", () => {
    expect(redactNmsLine('[rtmp publish] New stream. id=ab12 streamPath=/live/s3cretkey123')).toBe(
      '[rtmp publish] New stream. id=ab12 streamPath=/live/****'
    )
    // A key pushed to another app is still a key.
    expect(redactNmsLine('[rtmp play] Close stream. streamPath=/other/s3cretkey123')).toBe(
      '[rtmp play] Close stream. streamPath=/other/****'
    )
    // A refused path keeps its raw values (a bad character in the key): all after app= goes.
    expect(redactNmsLine('RTMP session ab12 invalid path app=live, name=s3cret key!')).toBe(
      'RTMP session ab12 invalid path app=****'
    )
  })
})

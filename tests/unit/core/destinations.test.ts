// Destinations' pure parts: the URL built from server + key and its checks, the live state read from
// the stream's issues, the banner's sentence, the view mapping, and that a destination URL (its key)
// never leaves through an error, the dispatcher or the log.
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { mapHttpError } from '../../../src/main/core/api-errors'
import { createAppLog } from '../../../src/main/core/app-log'
import { dispatch } from '../../../src/main/core/dispatch'
import { toDestinationsView, toStreamView, type ApiStream } from '../../../src/main/core/view-models'
import type { OnairCalls } from '../../../src/shared/contract'
import {
  DESTINATION_PRESETS,
  buildTargetUrl,
  checkDestination,
  checkTargetUrl,
  destinationsOf,
  destinationsSummary,
  isStartingIssue,
  retryingIssue,
  retryingReason,
  startingIssue,
  targetsOf,
  targetState
} from '../../../src/shared/destinations'
import { redactSecrets, targetUrlSecrets } from '../../../src/shared/redact'

const YT_KEY = 'abcd-efgh-ijkl-mnop-qrst'
const TWITCH_KEY = 'live_123456789_AbCdEfGhIjKlMnOpQrStUvWxYz'
const FB_KEY = 'FB-1234567890123-0-AbCdEfGhIjKl'

describe('target URL', () => {
  it('joins server and key with one slash, whatever slashes and spaces were typed', () => {
    expect(buildTargetUrl('rtmp://a.rtmp.youtube.com/live2', YT_KEY)).toBe(
      `rtmp://a.rtmp.youtube.com/live2/${YT_KEY}`
    )
    expect(buildTargetUrl(' rtmps://live-api-s.facebook.com:443/rtmp/ ', ` /${FB_KEY} `)).toBe(
      `rtmps://live-api-s.facebook.com:443/rtmp/${FB_KEY}`
    )
    expect(buildTargetUrl('rtmp://live.twitch.tv/app//', '//k')).toBe('rtmp://live.twitch.tv/app/k')
    // SRT carries its stream id in the query: no key, no slash added.
    expect(buildTargetUrl('srt://host:9000?streamid=abc', '')).toBe('srt://host:9000?streamid=abc')
  })

  it('offers YouTube, Twitch and Facebook presets that pass the check', () => {
    for (const p of DESTINATION_PRESETS.filter((x) => x.server))
      expect(checkTargetUrl(buildTargetUrl(p.server, 'key123')), p.id).toBeNull()
    expect(DESTINATION_PRESETS.map((p) => p.server)).toContain(
      'rtmps://live-api-s.facebook.com:443/rtmp/'
    )
  })

  it('accepts rtmp, rtmps and srt, and refuses anything else with a named error', () => {
    expect(checkTargetUrl('rtmp://h/app/k')).toBeNull()
    expect(checkTargetUrl('RTMPS://h:443/app/k')).toBeNull()
    expect(checkTargetUrl('srt://h:9000?streamid=k')).toBeNull()
    for (const bad of [
      'http://h/app/k',
      'https://h/app',
      'ftp://h/x',
      'rtmp:/h/app',
      'h/app/k',
      ''
    ])
      expect(checkTargetUrl(bad), bad).toMatchObject({
        field: 'server',
        message: expect.stringContaining('rtmp://, rtmps:// or srt://')
      })
    expect(checkTargetUrl('rtmp:///app/k')).toMatchObject({
      message: expect.stringMatching(/host/)
    })
    expect(checkTargetUrl('rtmp://h/app/a key')).toMatchObject({
      message: expect.stringMatching(/spaces/)
    })
    expect(checkTargetUrl(`rtmp://h/app/${'k'.repeat(2000)}`)).toMatchObject({
      message: expect.stringMatching(/too long/)
    })
  })

  it('checks the whole form at once, each problem with its field, never quoting the key', () => {
    const ok = { name: 'YouTube', server: 'rtmp://a.rtmp.youtube.com/live2', key: YT_KEY }
    expect(checkDestination({ ...ok, profile: 'source' }, ['720p'])).toEqual([])
    expect(checkDestination({ ...ok, profile: '720p' }, ['720p'])).toEqual([])
    const all = checkDestination(
      { name: ' ', server: 'http://example.com/live', key: YT_KEY, profile: '1080p' },
      ['720p']
    )
    expect(all.map((i) => i.field)).toEqual(['name', 'server', 'profile'])
    expect(JSON.stringify(all)).not.toContain(YT_KEY)
    expect(checkDestination({ ...ok, key: '  ', profile: 'source' }, [])).toEqual([
      { field: 'key', message: expect.stringMatching(/Stream key is required/) }
    ])
    expect(checkDestination({ ...ok, key: 'ab cd', profile: 'source' }, [])).toEqual([
      { field: 'key', message: 'Stream key must not contain spaces.' }
    ])
    expect(
      checkDestination(
        { name: 'SRT', server: 'srt://h:9000?streamid=x', key: '', profile: 'source' },
        []
      )
    ).toEqual([])
  })
})

describe('destination state', () => {
  const t = { id: 'f3a1c0de-0000-4000-8000-000000000001', name: 'YouTube', disabled: false }
  const issue = (name: string, id: string, reason: string): string =>
    `Multistream target "${name}" (${id}) is retrying: ${reason}`

  it("is written and read back by one pair: the local studio's exact words", () => {
    expect(retryingIssue({ id: t.id, name: 'YouTube' }, 'connection refused')).toBe(
      issue('YouTube', t.id, 'connection refused')
    )
    expect(retryingReason(issue('YouTube', t.id, 'the server rejected the stream key'))).toBe(
      'the server rejected the stream key'
    )
    expect(retryingReason('YouTube ingest slow')).toBeUndefined()
  })

  it('is idle while the stream is not active, live while it is', () => {
    expect(targetState(t, { isActive: false, issues: null })).toEqual({ state: 'idle' })
    expect(targetState(t, { isActive: true, issues: null })).toEqual({ state: 'live' })
    expect(targetState(t, { isActive: true, issues: [] })).toEqual({ state: 'live' })
  })

  it("reads the local studio's exact issue by the target's id, with its reason", () => {
    const issues = [issue('Other', 'other-id', 'x'), issue('YouTube', t.id, 'Connection refused')]
    expect(targetState(t, { isActive: true, issues })).toEqual({
      state: 'retrying',
      reason: 'Connection refused'
    })
    // The id decides, not the name: a renamed target is still found.
    expect(
      targetState(
        { ...t, name: 'Renamed' },
        { isActive: true, issues: [issue('YouTube', t.id, 'r')] }
      )
    ).toMatchObject({ state: 'retrying', reason: 'r' })
    // Another target's trouble is not this one's.
    expect(
      targetState(t, { isActive: true, issues: [issue('Twitch', 'other-id', 'refused')] })
    ).toEqual({ state: 'live' })
  })

  it("matches another service's issue by the quoted name, keeping its whole text", () => {
    const issues = ['Multistream "YouTube" disconnected: handshake failed']
    expect(targetState(t, { isActive: true, issues })).toEqual({
      state: 'retrying',
      reason: issues[0]
    })
    // Unquoted words are not a match: "YouTube" in passing is not about this target.
    expect(targetState(t, { isActive: true, issues: ['YouTube ingest slow'] })).toEqual({
      state: 'live'
    })
    // A target with no name is only found by its id.
    expect(targetState({ ...t, name: '' }, { isActive: true, issues: ['"" broke'] })).toEqual({
      state: 'live'
    })
  })

  it("is starting while the local studio's starting line names it, live once the line is gone", () => {
    const starting = startingIssue({ id: t.id, name: 'YouTube' })
    expect(isStartingIssue(starting)).toBe(true)
    expect(isStartingIssue(issue('YouTube', t.id, 'the server rejected the stream key'))).toBe(
      false
    )
    // A retrying reason that happens to end in "is starting" is still a retrying line.
    expect(isStartingIssue(issue('YouTube', t.id, 'the server is starting'))).toBe(false)
    expect(retryingReason(starting)).toBeUndefined()
    expect(targetState(t, { isActive: true, issues: [starting] })).toEqual({ state: 'starting' })
    expect(
      targetState(t, {
        isActive: true,
        issues: [startingIssue({ id: 'other-id', name: 'Twitch' })]
      })
    ).toEqual({ state: 'live' })
    expect(targetState(t, { isActive: false, issues: [starting] })).toEqual({ state: 'idle' })
  })

  it('is disabled whatever the stream or its issues say', () => {
    const off = { ...t, disabled: true }
    expect(targetState(off, { isActive: false, issues: null })).toEqual({ state: 'disabled' })
    expect(targetState(off, { isActive: true, issues: [issue('YouTube', t.id, 'x')] })).toEqual({
      state: 'disabled'
    })
  })
})

describe('the live banner sentence', () => {
  it('counts what is sent to and what retries', () => {
    expect(destinationsSummary([])).toBe('')
    expect(destinationsSummary(['live'])).toBe('+ 1 destination')
    expect(destinationsSummary(['live', 'live'])).toBe('+ 2 destinations')
    expect(destinationsSummary(['live', 'retrying'])).toBe('+ 2 destinations (1 retrying)')
    expect(destinationsSummary(['retrying', 'retrying', 'live'])).toBe(
      '+ 3 destinations (2 retrying)'
    )
  })

  it('counts the destinations still starting', () => {
    expect(destinationsSummary(['starting', 'live'])).toBe('+ 2 destinations (1 starting)')
    expect(destinationsSummary(['starting', 'retrying', 'disabled'])).toBe(
      '+ 2 destinations (1 starting, 1 retrying), 1 disabled'
    )
  })

  it('names disabled destinations apart, since nothing is sent to them', () => {
    expect(destinationsSummary(['live', 'retrying', 'disabled'])).toBe(
      '+ 2 destinations (1 retrying), 1 disabled'
    )
    expect(destinationsSummary(['disabled'])).toBe('(1 destination disabled)')
    expect(destinationsSummary(['disabled', 'disabled'])).toBe('(2 destinations disabled)')
  })

  it('reads as the issue asks after "Live on <stream>"', () => {
    expect(`Live on Morning show ${destinationsSummary(['live', 'retrying'])}`).toBe(
      'Live on Morning show + 2 destinations (1 retrying)'
    )
  })
})

describe('views', () => {
  const ingest = { rtmp: 'rtmp://127.0.0.1:1935/live', playbackBase: 'http://127.0.0.1:1/hls' }
  // The generated type says videoOnly is always there (it has a default); a service may still omit it.
  const stream = {
    id: 's1',
    name: 'Show',
    profiles: [],
    isActive: true,
    isHealthy: false,
    issues: ['Multistream target "Twitch" (t2) is retrying: Connection refused'],
    multistream: {
      targets: [
        { id: 't1', profile: 'source', videoOnly: false },
        { id: 't2', profile: '720p', videoOnly: true },
        { id: 't3', profile: 'source' },
        { id: 't4', profile: 'source' },
        // Inline specs are replaced by ids when stored; one without an id is not a destination.
        { profile: 'source' }
      ]
    }
  } as unknown as ApiStream
  const targets = new Map([
    ['t1', { name: 'YouTube', disabled: false }],
    ['t2', { name: 'Twitch' }],
    ['t3', { name: 'Facebook', disabled: true }],
    ['t4', undefined]
  ])

  it("joins the stream's targets with their names, states and reasons", () => {
    expect(toDestinationsView(stream, targets)).toEqual({
      streamId: 's1',
      streamActive: true,
      destinations: [
        {
          id: 't1',
          profile: 'source',
          videoOnly: false,
          name: 'YouTube',
          disabled: false,
          state: 'live'
        },
        {
          id: 't2',
          profile: '720p',
          videoOnly: true,
          name: 'Twitch',
          disabled: false,
          state: 'retrying',
          reason: 'Connection refused'
        },
        {
          id: 't3',
          profile: 'source',
          videoOnly: false,
          name: 'Facebook',
          disabled: true,
          state: 'disabled'
        },
        {
          id: 't4',
          profile: 'source',
          videoOnly: false,
          name: 'Missing destination',
          disabled: false,
          state: 'live'
        }
      ]
    })
  })

  it('is made again from a newer read of the stream alone, with the targets the view came from', () => {
    const first = toDestinationsView(stream, targets)
    const v = toStreamView(stream, ingest)
    // The same read gives the same view: nothing about a target is lost on the way through the view.
    expect(destinationsOf(v, targetsOf(first))).toEqual(first)
    expect(targetsOf(first)).toEqual(
      new Map([
        ['t1', { name: 'YouTube', disabled: false }],
        ['t2', { name: 'Twitch', disabled: false }],
        ['t3', { name: 'Facebook', disabled: true }],
        ['t4', undefined]
      ])
    )
    // A newer read: Twitch is live again and YouTube retrying; then the stream ends.
    const newer = {
      ...v,
      issues: [retryingIssue({ id: 't1', name: 'YouTube' }, 'connection lost')]
    }
    expect(destinationsOf(newer, targetsOf(first)).destinations.map((d) => d.state)).toEqual([
      'retrying',
      'live',
      'disabled',
      'live'
    ])
    expect(destinationsOf(newer, targetsOf(first)).destinations[0]?.reason).toBe('connection lost')
    const ended = destinationsOf({ ...v, isActive: false, issues: [] }, targetsOf(first))
    expect(ended.streamActive).toBe(false)
    expect(ended.destinations.map((d) => d.state)).toEqual(['idle', 'idle', 'disabled', 'idle'])
    // A target without a name shows as unnamed, and is still one the service has.
    const unnamed = toDestinationsView(stream, new Map([['t1', { name: '' }]]))
    expect(unnamed.destinations[0]?.name).toBe('Unnamed destination')
    expect(targetsOf(unnamed).get('t1')).toEqual({ name: '', disabled: false })
  })

  it('gives the stream view its health, issues and target ids (never a URL)', () => {
    const v = toStreamView(stream, ingest)
    expect(v).toMatchObject({ isHealthy: false, issues: stream.issues })
    expect(v.multistream.map((t) => t.id)).toEqual(['t1', 't2', 't3', 't4'])
    expect(
      toStreamView({ name: 'x', profiles: [], isHealthy: null, issues: null }, ingest)
    ).toMatchObject({
      isHealthy: null,
      issues: [],
      multistream: []
    })
  })
})

describe('a destination URL never leaks', () => {
  const urls = [
    `rtmp://a.rtmp.youtube.com/live2/${YT_KEY}`,
    `rtmp://live.twitch.tv/app/${TWITCH_KEY}`,
    `rtmps://live-api-s.facebook.com:443/rtmp/${FB_KEY}`,
    `srt://srt.example.com:9000?streamid=${TWITCH_KEY}&passphrase=verysecretpass`
  ]
  const keys = [YT_KEY, TWITCH_KEY, FB_KEY, 'verysecretpass']

  it('is redacted by the one redactor, keeping the server and the error readable', () => {
    expect(redactSecrets(`Bad URL ${urls[0]}: refused`)).toBe(
      'Bad URL rtmp://a.rtmp.youtube.com/live2/****: refused'
    )
    expect(redactSecrets(`'${urls[2]}'.`)).toBe("'rtmps://live-api-s.facebook.com:443/rtmp/****'.")
    expect(redactSecrets(urls[3]!)).toBe('srt://srt.example.com:9000?****')
    // The service's own address (no key after the app) and HTTP URLs stay as they are.
    expect(redactSecrets('ingest rtmp://127.0.0.1:1935/live, hls http://h/hls/p/index.m3u8')).toBe(
      'ingest rtmp://127.0.0.1:1935/live, hls http://h/hls/p/index.m3u8'
    )
    for (const u of urls) for (const k of keys) expect(redactSecrets(`x ${u} y`)).not.toContain(k)
  })

  it("is taken out of a service's error that quotes it, even percent-encoded", () => {
    for (const url of urls) {
      const body = JSON.stringify({
        errors: [`Bad URL ${url}: invalid`, `key ${encodeURIComponent(keys[urls.indexOf(url)]!)}`]
      })
      for (const status of [400, 422, 500]) {
        const e = mapHttpError({
          status,
          body,
          retryAfter: null,
          what: 'stream',
          secrets: ['api-key-123', ...targetUrlSecrets(url)]
        })
        for (const k of keys) expect(JSON.stringify(e), `${status} ${url}`).not.toContain(k)
      }
    }
    // The parts that are not the key stay, so the message still says which service it was.
    expect(targetUrlSecrets(urls[0]!)).not.toContain('live2')
  })

  it('is not in what the dispatcher answers or logs, for refused and failing calls', async () => {
    const logged: string[] = []
    const core = {
      addDestination: async (a: { url: string }) => {
        throw new Error(`push to ${a.url} failed`)
      }
    } as unknown as OnairCalls
    const args = { streamId: 's1', name: 'YT', profile: 'source', videoOnly: false }
    const failing = await dispatch(core, 'addDestination', [{ ...args, url: urls[1] }], {
      log: (l) => logged.push(l)
    })
    expect(failing).toMatchObject({ ok: false, error: { code: 'internal' } })
    const refused = await dispatch(
      core,
      'addDestination',
      [{ ...args, url: `http://example.com/app/${TWITCH_KEY}` }],
      { log: (l) => logged.push(l) }
    )
    expect(refused).toMatchObject({ ok: false, error: { code: 'bad-request' } })
    expect(logged).toHaveLength(1)
    const said = JSON.stringify([failing, refused, logged])
    expect(said).not.toContain(TWITCH_KEY)
    expect(said).toContain('rtmp://live.twitch.tv/app/****')

    const dir = mkdtempSync(join(tmpdir(), 'onair-log-'))
    createAppLog(dir, () => undefined)(`call failed: ${urls.join(' ')}`)
    const text = readFileSync(join(dir, 'onair.log'), 'utf8')
    for (const k of keys) expect(text).not.toContain(k)
  })
})

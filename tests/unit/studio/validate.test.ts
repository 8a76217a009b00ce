import { describe, expect, it } from 'vitest'
import { checkCreate, checkPatch, HttpError } from '../../../src/studio/validate'
import { pageHeaders, parseCursor, parseLimit } from '../../../src/studio/http'
import { safeRelative } from '../../../src/studio/routes/media'
import { defaultDataDir, parseArgs } from '../../../src/studio/cli-args'
import { makeKeys } from '../../../src/studio/stream-store'

function fails(fn: () => unknown): HttpError {
  try {
    fn()
  } catch (err) {
    if (err instanceof HttpError) return err
    throw err
  }
  throw new Error('no error')
}

const P = { name: '720p', width: 1280, height: 720, bitrate: 3_000_000, fps: 30 }

describe('stream payloads', () => {
  it('accepts the reference shapes and maps creatorId strings', () => {
    const v = checkCreate({
      name: 'a',
      profiles: [P],
      record: true,
      creatorId: 'jest',
      recordingSpec: { profiles: null }
    })
    expect(v.creatorId).toEqual({ type: 'unverified', value: 'jest' })
    expect(v.recordingSpec).toEqual({})
    expect(checkCreate({ name: '', profiles: null }).profiles).toBeNull()
  })

  it('422 with the failing keyword as JSON text, first error only', () => {
    const e = fails(() => checkCreate({}))
    expect(e.status).toBe(422)
    expect(JSON.parse(e.message)).toMatchObject({ keyword: 'required', instancePath: '' })
    const w = fails(() => checkCreate({ name: 'a', profiles: [{ ...P, width: 1 }] }))
    expect(JSON.parse(w.message)).toMatchObject({
      keyword: 'minimum',
      instancePath: '/profiles/0/width'
    })
    expect(fails(() => checkCreate({ name: 'a', x: 1 })).message).toContain('additionalProperties')
    expect(fails(() => checkPatch({ suspended: 'yes' })).message).toContain('"type"')
    expect(fails(() => checkCreate([])).status).toBe(422)
  })

  it('400 for the server rules', () => {
    expect(
      fails(() => checkCreate({ name: 'a', profiles: [{ ...P, name: 'source' }] })).status
    ).toBe(400)
    expect(fails(() => checkCreate({ name: 'a', recordingSpec: {} })).message).toBe(
      'recordingSpec is only supported with record=true'
    )
    expect(fails(() => checkCreate({ name: 'a', userTags: { a: 'x'.repeat(3000) } })).status).toBe(
      400
    )
    expect(
      fails(() => checkCreate({ name: 'a', playbackPolicy: { type: 'lit_signing_condition' } }))
        .status
    ).toBe(400)
    expect(fails(() => checkCreate({ name: 'a', pull: { source: 'x' } })).status).toBe(403)
  })
})

describe('paging', () => {
  const u = (q: string): URL => new URL(`http://x/api/stream${q}`)
  it('limit: default 20, max 1000, junk -> 20', () => {
    expect(parseLimit(u(''))).toBe(20)
    expect(parseLimit(u('?limit=0'))).toBe(20)
    expect(parseLimit(u('?limit=abc'))).toBe(20)
    expect(parseLimit(u('?limit=5000'))).toBe(1000)
    expect(parseLimit(u('?limit=7'))).toBe(7)
  })
  it('cursor: skip<N> only', () => {
    expect(parseCursor(u('?cursor=skip40'))).toBe(40)
    expect(() => parseCursor(u('?cursor=40'))).toThrow('invalid cursor')
  })
  it('Link only on a full page; X-Total-Count when asked', () => {
    const h = pageHeaders('http://127.0.0.1:9', u('?limit=2&count=1'), 0, 2, 2, 5)
    expect(h.Link).toBe('<http://127.0.0.1:9/api/stream?limit=2&count=1&cursor=skip2>; rel="next"')
    expect(h['X-Total-Count']).toBe('5')
    expect(pageHeaders('http://127.0.0.1:9', u('?limit=2'), 4, 2, 1, 5)).toEqual({})
  })
})

describe('media names', () => {
  it('accepts only what the studio writes', () => {
    expect(safeRelative('index.m3u8')).toEqual(['index.m3u8'])
    expect(safeRelative('run0/v1/seg00001.ts')).toEqual(['run0', 'v1', 'seg00001.ts'])
    for (const bad of [
      '../studio.db',
      'studio.db',
      'a/../../b.ts',
      '.m3u8',
      'a/b/c/d.ts',
      'x.ts\u0000',
      'v0\\..\\x.ts',
      ''
    ]) {
      expect(safeRelative(bad)).toBeUndefined()
    }
  })
})

describe('keys and CLI', () => {
  it('stream keys and playback ids have the reference shape and shard prefix', () => {
    const k = makeKeys('abcd1234-0000-4000-8000-000000000000')
    expect(k.streamKey).toMatch(/^abcd-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}$/)
    expect(k.playbackId).toMatch(/^abcd[0-9a-z]{12}$/)
  })
  it('parses serve and keys create', () => {
    expect(parseArgs(['--port', '0', '--rtmp-port', '1935', '--data', '/d'])).toMatchObject({
      command: 'serve',
      port: 0,
      rtmpPort: 1935,
      data: '/d',
      host: '127.0.0.1'
    })
    expect(parseArgs(['keys', 'create', '--data', '/d', '--user', 'bo'])).toMatchObject({
      command: 'keys-create',
      user: 'bo'
    })
    expect(parseArgs(['--resume-window', '1500']).resumeWindowMs).toBe(1500)
    expect(() => parseArgs(['--resume-window', '-5'])).toThrow('milliseconds')
    expect(() => parseArgs(['--port', '70000'])).toThrow('port number')
    expect(() => parseArgs(['--nope'])).toThrow('unknown option')
    expect(() => parseArgs(['--user', 'x'])).toThrow('unknown option')
  })
  it("default data dir per platform: the app's own folder (Electron's userData for Onair)", () => {
    expect(defaultDataDir('linux', {}, '/home/u')).toBe('/home/u/.config/Onair/studio')
    expect(defaultDataDir('darwin', {}, '/Users/u')).toBe(
      '/Users/u/Library/Application Support/Onair/studio'
    )
    expect(defaultDataDir('win32', { APPDATA: 'C:\\A' }, 'C:\\U')).toBe('C:\\A\\Onair\\studio')
  })
})

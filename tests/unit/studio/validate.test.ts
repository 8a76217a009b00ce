import { describe, expect, it } from 'vitest'
import { checkCreate, checkPatch, checkProfiles, HttpError } from '../../../src/studio/validate'
import { readableValidation } from '../../../src/main/core/api-errors'
import {
  ENCODER_LIMITS,
  impossibleProfiles,
  profileWarnings,
  RECOMMENDED_PROFILES,
  STUDIO_DEFAULT_PROFILES,
  validateProfiles
} from '../../../src/shared/profiles'
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

describe('stream payloads: Ajv and the OpenAPI schemas, as the reference', () => {
  it("422 carries Ajv's own error objects, as JSON text, like the reference's validatePost", () => {
    const e = fails(() => checkCreate({}))
    expect(JSON.parse(e.message)).toEqual({
      instancePath: '',
      schemaPath: '#/required',
      keyword: 'required',
      params: { missingProperty: 'name' },
      message: "must have required property 'name'"
    })
    expect(e.errors).toEqual([e.message])
    expect(JSON.parse(fails(() => checkCreate(null)).message)).toMatchObject({
      schemaPath: '#/type',
      message: 'must be object'
    })
    expect(JSON.parse(fails(() => checkCreate({ name: 'a', x: 1 })).message)).toMatchObject({
      keyword: 'additionalProperties',
      params: { additionalProperty: 'x' },
      message: 'must NOT have additional properties'
    })
  })

  it('keeps every error Ajv reports when it stops at the first failing keyword (oneOf)', () => {
    const e = fails(() => checkCreate({ name: 'a', creatorId: 5 }))
    expect(e.status).toBe(422)
    const errors = e.errors.map((t) => JSON.parse(t) as { keyword: string; instancePath: string })
    expect(errors.map((x) => x.keyword)).toEqual(['type', 'type', 'oneOf'])
    expect(errors.every((x) => x.instancePath === '/creatorId')).toBe(true)
    expect(e.message).toBe(e.errors[0])
  })

  it('validates everything the schema covers: targets, userTags, recording profiles, pull', () => {
    const keyword = (body: unknown): string =>
      (JSON.parse(fails(() => checkCreate(body)).message) as { keyword: string }).keyword
    const target = { profile: '720p', spec: { url: 'rtmp://example.test/live/k' } }
    expect(keyword({ name: 'a', multistream: { targets: [{ ...target, profile: '' }] } })).toBe(
      'minLength'
    )
    expect(
      keyword({
        name: 'a',
        multistream: { targets: [{ profile: 'a', spec: { url: 'http://x' } }] }
      })
    ).toBe('pattern')
    expect(keyword({ name: 'a', multistream: { targets: [{ id: 'x' }] } })).toBe('required')
    expect(keyword({ name: 'a', userTags: { a: { b: 1 } } })).toBe('type')
    expect(
      keyword({ name: 'a', record: true, recordingSpec: { profiles: [{ bitrate: 1 }] } })
    ).toBe('minimum')
    expect(keyword({ name: 'a', playbackPolicy: { type: 'secret' } })).toBe('enum')
    // The schema comes first: a malformed pull is a 422, not the experiment's 403.
    expect(keyword({ name: 'a', pull: { headers: {} } })).toBe('required')
    expect(fails(() => checkPatch({ streamKey: 'x' })).status).toBe(422)
  })

  it('then the server rules, in the order the reference applies them', () => {
    expect(
      fails(() => checkCreate({ name: 'a', pull: { source: 'x' }, recordingSpec: {} })).status
    ).toBe(403)
    expect(
      fails(() =>
        checkCreate({ name: 'a', recordingSpec: {}, playbackPolicy: { type: 'webhook' } })
      ).message
    ).toBe('recordingSpec is only supported with record=true')
    const p = { width: 640, height: 360, bitrate: 800_000, fps: 30 }
    expect(
      fails(() =>
        checkCreate({
          name: 'a',
          playbackPolicy: { type: 'webhook', webhookId: 'w1' },
          profiles: [{ ...p, name: 'source' }]
        })
      ).message
    ).toBe('webhook w1 not found')
    expect(
      fails(() =>
        checkCreate({
          name: 'a',
          profiles: [
            { ...p, name: 'x' },
            { ...p, name: 'x' }
          ],
          multistream: { targets: [{ profile: 'x', id: 't' }] }
        })
      ).message
    ).toBe('duplicate profile name "x"')
    expect(
      fails(() =>
        checkCreate({
          name: 'a',
          multistream: { targets: [{ profile: 'source', id: 't' }] },
          userTags: { a: 'x'.repeat(3000) }
        })
      ).message
    ).toBe('multistream targets are not supported by the local studio')
    expect(fails(() => checkCreate({ name: 'a', userTags: { a: 'x'.repeat(3000) } })).message).toBe(
      'userTags object is too large. Max size is 2048 characters'
    )
  })

  it("refuses lit signing conditions for streams with the reference's words", () => {
    const lit =
      'playbackPolicy type "lit_signing_condition" with a resourceId or ' +
      'unifiedAccessControlConditions is not supported for streams'
    expect(
      fails(() => checkCreate({ name: 'a', playbackPolicy: { type: 'lit_signing_condition' } }))
        .message
    ).toBe(lit)
    const e = fails(() =>
      checkPatch({ playbackPolicy: { type: 'jwt', unifiedAccessControlConditions: [] } })
    )
    expect([e.status, e.message]).toEqual([400, lit])
  })

  it('maps what passes to what the routes store', () => {
    const v = checkCreate({
      name: 'a',
      creatorId: { type: 'unverified', value: 'c' },
      playbackPolicy: null,
      multistream: {},
      userTags: { team: ['a', 1] },
      record: true,
      recordingSpec: { profiles: [{ bitrate: 500_000 }] }
    })
    expect(v).toEqual({
      name: 'a',
      creatorId: { type: 'unverified', value: 'c' },
      playbackPolicy: null,
      multistream: { targets: [] },
      userTags: { team: ['a', 1] },
      record: true,
      recordingSpec: { profiles: [{ bitrate: 500_000 }] }
    })
    expect(checkPatch({})).toEqual({})
    expect(checkPatch({ suspended: true, profiles: null, multistream: { targets: [] } })).toEqual({
      suspended: true,
      profiles: null,
      multistream: { targets: [] }
    })
    expect(checkPatch({ playbackPolicy: { type: 'jwt' } }).playbackPolicy).toEqual({ type: 'jwt' })
  })

  it('applies the profile name rules to a patch too', () => {
    const p = { name: 'source', width: 640, height: 360, bitrate: 800_000, fps: 30 }
    const e = fails(() => checkPatch({ profiles: [p] }))
    expect([e.status, e.errors]).toEqual([400, ['profile cannot be named "source"']])
  })

  it('checkProfiles reports the same errors, at the same paths, as a whole body would', () => {
    const bad = [{ ...P, fps: -1 }]
    expect(fails(() => checkProfiles(bad)).errors).toEqual(
      fails(() => checkCreate({ name: 'a', profiles: bad })).errors
    )
    expect(checkProfiles(null)).toBeNull()
    expect(checkProfiles([P])).toEqual([P])
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

// Onair's rules past Livepeer's schema (documented deviations): profiles no H.264 encoder can make
// are refused with the limit named, a low bitrate is only a warning, and the local studio refuses
// stream names over 500 characters. The studio's 422 reads, in the app, as the field and its limit.
const p720 = RECOMMENDED_PROFILES[0]!

describe('encoder limits', () => {
  it('name the limit in words the form and the health issue both use', () => {
    expect(impossibleProfiles([{ ...p720, width: 99999 }])).toEqual([
      { field: 'profiles.0.width', message: 'width 99999 is more than 4096', status: 422 }
    ])
    expect(impossibleProfiles([p720, { ...p720, height: 721 }])).toEqual([
      {
        field: 'profiles.1.height',
        message: 'height 721 is odd: H.264 needs an even number',
        status: 422
      }
    ])
    expect(impossibleProfiles([{ ...p720, fps: 240000, fpsDen: 1001 }])[0]?.message).toBe(
      'fps 239.76 is more than 120'
    )
    expect(impossibleProfiles([...RECOMMENDED_PROFILES, ...STUDIO_DEFAULT_PROFILES])).toEqual([])
    expect(ENCODER_LIMITS).toMatchObject({ minSide: 128, maxSide: 4096, maxFps: 120 })
  })

  it('the editor gets them among the other rules, the schema rules first', () => {
    expect(validateProfiles([{ ...p720, width: 127, height: 5000 }])).toEqual([
      { field: 'profiles.0.width', message: 'width must be at least 128', status: 422 },
      { field: 'profiles.0.height', message: 'height 5000 is more than 4096', status: 422 }
    ])
  })

  it('the studio answers 422 with Ajv-shaped errors the app reads as field and limit', () => {
    const e = fails(() => checkCreate({ name: 'x', profiles: [{ ...p720, width: 99999 }] }))
    expect(e.status).toBe(422)
    expect(JSON.parse(e.errors[0]!)).toMatchObject({
      instancePath: '/profiles/0/width',
      keyword: 'maximum',
      params: { limit: 4096 },
      message: 'width 99999 is more than 4096'
    })
    expect(readableValidation(e.errors[0]!)).toEqual({
      field: 'profiles.0.width',
      message: 'profiles.0.width must be at most 4096'
    })
    const odd = fails(() => checkPatch({ profiles: [{ ...p720, width: 1279 }] }))
    expect(odd.status).toBe(422)
    expect(readableValidation(odd.errors[0]!)).toEqual({
      field: 'profiles.0.width',
      message: 'profiles.0.width: width 1279 is odd: H.264 needs an even number'
    })
  })
})

describe('bitrate warnings', () => {
  it('warn below about 0.02 bits per pixel per frame, and never refuse', () => {
    const low = { ...p720, bitrate: 1000 }
    expect(validateProfiles([low])).toEqual([])
    expect(profileWarnings([low])).toEqual([
      {
        field: 'profiles.0.bitrate',
        message:
          'bitrate is low for 1280x720 at 30 fps: below about 553 kbps the picture breaks into blocks'
      }
    ])
    expect(profileWarnings([...RECOMMENDED_PROFILES, ...STUDIO_DEFAULT_PROFILES])).toEqual([])
    // fps 0 is the source's rate: judged as 30.
    expect(profileWarnings([{ ...low, fps: 0 }])).toHaveLength(1)
    expect(profileWarnings([{ name: 'x' }, null, 'p'])).toEqual([])
    // A refused profile gets its refusal, not advice on top.
    expect(profileWarnings([{ ...low, width: 99999 }, { ...low, height: 100 }])).toEqual([])
    expect(profileWarnings('nope')).toEqual([])
  })
})

describe('stream names', () => {
  it('500 characters pass, 501 are a 422 in the reference shape', () => {
    expect(checkCreate({ name: '😀'.repeat(500) }).name).toHaveLength(1000)
    const e = fails(() => checkCreate({ name: 'x'.repeat(501) }))
    expect(e.status).toBe(422)
    expect(JSON.parse(e.errors[0]!)).toMatchObject({
      instancePath: '/name',
      keyword: 'maxLength',
      params: { limit: 500 }
    })
    expect(readableValidation(e.errors[0]!).message).toBe(
      'name must be at most 500 characters long'
    )
    expect(fails(() => checkPatch({ name: 'x'.repeat(5000) })).status).toBe(422)
  })
})

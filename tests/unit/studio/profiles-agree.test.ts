// validateProfiles (shared/profiles.ts) is what the app checks before sending, in words a person
// reads; the local studio judges the same array with Ajv and the OpenAPI file's ffmpeg-profile
// schema, then its name rules. They must agree: same verdict, same status, and every field the
// service complains about is one validateProfiles names too.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  MAX_PROFILES,
  RECOMMENDED_PROFILES,
  validateProfiles,
  type Profile
} from '../../../src/shared/profiles'
import { checkProfiles, HttpError } from '../../../src/studio/validate'

type Verdict = { ok: true } | { ok: false; status: number; errors: readonly string[] }

function serverVerdict(profiles: unknown): Verdict {
  try {
    checkProfiles(profiles)
    return { ok: true }
  } catch (err) {
    if (!(err instanceof HttpError)) throw err
    return { ok: false, status: err.status, errors: err.errors }
  }
}

/** The field an Ajv error is about, in validateProfiles' dotted form (`profiles.0.width`). */
function fieldOf(ajvError: string): string {
  const e = JSON.parse(ajvError) as {
    instancePath: string
    params: { missingProperty?: string; additionalProperty?: string }
  }
  const extra = e.params.missingProperty ?? e.params.additionalProperty
  const parts = e.instancePath.split('/').slice(1)
  if (extra !== undefined) parts.push(extra)
  return parts.map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~')).join('.')
}

// Values on both sides of every limit, of the wrong types, and the odd ones JSON cannot carry.
const int = (edges: number[]): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.constantFrom(...edges),
    fc.integer({ min: -10, max: 5_000_000 }),
    fc.constantFrom(128.5, -0, Number.NaN, Number.POSITIVE_INFINITY, 1e21),
    fc.constantFrom('128', null, true, [], {})
  )
const name = fc.oneof(
  fc.constantFrom('720p', '480p', 'a', 'source', 'Source', ''),
  fc.constantFrom('x'.repeat(500), 'x'.repeat(501), '😀'.repeat(500), '😀'.repeat(501)),
  fc.constantFrom('\uD800', 'é', ' source'),
  fc.string({ unit: 'binary', maxLength: 4 }),
  fc.constantFrom(5, null, ['a'])
)
const validProfile = fc.record(
  {
    name: fc.constantFrom('720p', '480p', '360p', 'a', 'source'),
    // Even sides within the encoder's limits (shared/profiles.ts ENCODER_LIMITS).
    width: fc.integer({ min: 64, max: 2048 }).map((n) => n * 2),
    height: fc.integer({ min: 64, max: 2048 }).map((n) => n * 2),
    bitrate: fc.integer({ min: 400, max: 10_000_000 }),
    fps: fc.integer({ min: 0, max: 120 }),
    fpsDen: fc.integer({ min: 1, max: 1001 }),
    gop: fc.constantFrom('2.0', 'intra'),
    profile: fc.constantFrom('H264Baseline', 'H264Main', 'H264High', 'H264ConstrainedHigh'),
    encoder: fc.constant('H.264'),
    quality: fc.integer({ min: 0, max: 44 })
  },
  { requiredKeys: ['name', 'width', 'height', 'bitrate', 'fps'] }
)
// One field of a valid profile set to a value near or past its limit, or removed: a single rule
// at a time, so a limit that differs between the two sides shows.
const REMOVE = Symbol('remove')
const edits: Record<string, fc.Arbitrary<unknown>> = {
  name,
  width: int([127, 128, 129, 1280, 4096, 4097, 4098]),
  height: int([127, 128, 129, 720, 4096, 4097, 4098]),
  bitrate: int([399, 400, 3_000_000]),
  fps: int([-1, 0, 30, 120, 121]),
  fpsDen: int([0, 1, 1001]),
  quality: int([-1, 0, 44, 45]),
  gop: fc.constantFrom('2.0', '0', 'intra', '', 2, null),
  profile: fc.constantFrom('H264Baseline', 'H264ConstrainedHigh', 'H265', 'h264main', 1),
  encoder: fc.constantFrom('H.264', 'HEVC', 'h.264', null),
  extra: fc.constantFrom('x', 1),
  constructor: fc.constant('x')
}
const edit = fc
  .constantFrom(...Object.keys(edits))
  .chain((key) =>
    fc.tuple(fc.constant(key), fc.oneof({ weight: 4, arbitrary: edits[key]! }, fc.constant(REMOVE)))
  )
const editedProfile = fc
  .tuple(validProfile, fc.array(edit, { minLength: 1, maxLength: 2 }))
  .map(([profile, changes]) => {
    const out: Record<string, unknown> = { ...profile }
    for (const [key, value] of changes) {
      if (value === REMOVE) delete out[key]
      else out[key] = value
    }
    return out
  })
const element = fc.oneof(
  { weight: 4, arbitrary: validProfile },
  { weight: 4, arbitrary: editedProfile },
  { weight: 1, arbitrary: fc.constantFrom(null, 1, 'p', [], [{ ...RECOMMENDED_PROFILES[0] }]) }
)
const profilesValue = fc.oneof(
  { weight: 8, arbitrary: fc.array(element, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, 'a', 1, {}, true) }
)

// Not JSON, but a value the renderer could build: the service reads the hole as a missing profile.
const holey: unknown[] = []
holey[1] = { ...RECOMMENDED_PROFILES[0] }

/** `n` valid profiles with distinct names. */
const ladderOf = (n: number): Profile[] =>
  Array.from({ length: n }, (_, i) => ({ ...RECOMMENDED_PROFILES[2]!, name: `p${i}` }))

describe('validateProfiles agrees with the schema and the server rules', () => {
  it('same verdict, same status, and it names every field the service names', () => {
    let accepted = 0
    let refused = 0
    fc.assert(
      fc.property(profilesValue, (profiles) => {
        const issues = validateProfiles(profiles)
        const server = serverVerdict(profiles)
        expect(issues.length === 0).toBe(server.ok)
        if (server.ok) {
          accepted++
          return
        }
        refused++
        expect(issues[0]!.status).toBe(server.status)
        const fields = issues.map((i) => i.field)
        if (server.status === 422) {
          for (const e of server.errors) expect(fields).toContain(fieldOf(e))
        } else {
          // The name rules: the very message the service answers with.
          expect(issues[0]!.message).toBe(server.errors[0])
        }
      }),
      // Pure and fast (a few hundred ms): enough runs to reach every limit from both sides.
      { numRuns: 3000 }
    )
    // The generators reached both sides.
    expect(accepted).toBeGreaterThan(100)
    expect(refused).toBeGreaterThan(100)
  })

  it.each([
    ['the recommended ladder', [...RECOMMENDED_PROFILES], true],
    ['no profiles', [], true],
    ['null', null, true],
    [
      '500 emoji: 500 characters for the schema',
      [{ ...RECOMMENDED_PROFILES[0], name: '😀'.repeat(500) }],
      true
    ],
    ['501 characters', [{ ...RECOMMENDED_PROFILES[0], name: 'x'.repeat(501) }], false],
    ['a hole in the array', holey, false],
    ['width 127', [{ ...RECOMMENDED_PROFILES[0], width: 127 }], false],
    [
      'width 4096: the largest an encoder makes',
      [{ ...RECOMMENDED_PROFILES[0], width: 4096 }],
      true
    ],
    ['width 99999: no encoder makes it', [{ ...RECOMMENDED_PROFILES[0], width: 99999 }], false],
    ['height 4098', [{ ...RECOMMENDED_PROFILES[0], height: 4098 }], false],
    ['an odd width', [{ ...RECOMMENDED_PROFILES[0], width: 1279 }], false],
    ['fps 120', [{ ...RECOMMENDED_PROFILES[0], fps: 120 }], true],
    ['fps 121', [{ ...RECOMMENDED_PROFILES[0], fps: 121 }], false],
    [
      'fps 240000/1001 (239.76)',
      [{ ...RECOMMENDED_PROFILES[0], fps: 240000, fpsDen: 1001 }],
      false
    ],
    ['fps 120000/1001 (119.88)', [{ ...RECOMMENDED_PROFILES[0], fps: 120000, fpsDen: 1001 }], true],
    ['named "source"', [{ ...RECOMMENDED_PROFILES[0], name: 'source' }], false],
    ['10 profiles: the most a stream takes', ladderOf(10), true],
    ['11 profiles', ladderOf(11), false]
  ])('%s', (_what, profiles, ok) => {
    expect(validateProfiles(profiles).length === 0).toBe(ok)
    expect(serverVerdict(profiles).ok).toBe(ok)
  })
})

describe('profiles per stream', () => {
  it(`the app and the studio both refuse more than ${MAX_PROFILES}, naming the list and the way out`, () => {
    const issues = validateProfiles(ladderOf(MAX_PROFILES + 3))
    expect(issues).toEqual([
      {
        field: 'profiles',
        message: `at most ${MAX_PROFILES} profiles per stream: remove 3`,
        status: 422
      }
    ])
    const server = serverVerdict(ladderOf(MAX_PROFILES + 3))
    expect(server).toMatchObject({ ok: false, status: 422 })
    expect(JSON.parse((server as { errors: readonly string[] }).errors[0]!)).toMatchObject({
      instancePath: '/profiles',
      keyword: 'maxItems',
      params: { limit: MAX_PROFILES }
    })
  })
})

// Onair's rules past Livepeer's schema (documented deviations): profiles no H.264 encoder can make
// are refused with the limit named, a low bitrate is only a warning, and the local studio refuses
// stream names over 500 characters. The studio's 422 reads, in the app, as the field and its limit.
import { describe, expect, it } from 'vitest'
import { readableValidation } from '../../../src/main/core/api-errors'
import {
  ENCODER_LIMITS,
  impossibleProfiles,
  profileWarnings,
  RECOMMENDED_PROFILES,
  STUDIO_DEFAULT_PROFILES,
  validateProfiles
} from '../../../src/shared/profiles'
import { checkCreate, checkPatch, HttpError } from '../../../src/studio/validate'

const p720 = RECOMMENDED_PROFILES[0]!

function refusal(fn: () => unknown): HttpError {
  try {
    fn()
  } catch (err) {
    if (err instanceof HttpError) return err
    throw err
  }
  throw new Error('accepted')
}

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
    const e = refusal(() => checkCreate({ name: 'x', profiles: [{ ...p720, width: 99999 }] }))
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
    const odd = refusal(() => checkPatch({ profiles: [{ ...p720, width: 1279 }] }))
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
    expect(profileWarnings('nope')).toEqual([])
  })
})

describe('stream names', () => {
  it('500 characters pass, 501 are a 422 in the reference shape', () => {
    expect(checkCreate({ name: '😀'.repeat(500) }).name).toHaveLength(1000)
    const e = refusal(() => checkCreate({ name: 'x'.repeat(501) }))
    expect(e.status).toBe(422)
    expect(JSON.parse(e.errors[0]!)).toMatchObject({
      instancePath: '/name',
      keyword: 'maxLength',
      params: { limit: 500 }
    })
    expect(readableValidation(e.errors[0]!).message).toBe(
      'name must be at most 500 characters long'
    )
    expect(refusal(() => checkPatch({ name: 'x'.repeat(5000) })).status).toBe(422)
  })
})

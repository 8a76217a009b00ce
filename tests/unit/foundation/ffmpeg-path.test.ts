import { describe, expect, it } from 'vitest'
import { resolveFfmpeg, unpackedAsarPath } from '../../../src/node/ffmpeg/locate'
import { AppFailure } from '../../../src/shared/result'

const exists = (present: string[]) => (p: string) => present.includes(p)

describe('resolveFfmpeg', () => {
  it('prefers FFMPEG_PATH over ffmpeg-static', () => {
    const r = resolveFfmpeg(
      { FFMPEG_PATH: '/opt/ff' },
      () => '/static/ffmpeg',
      exists(['/opt/ff', '/static/ffmpeg'])
    )
    expect(r).toEqual({ path: '/opt/ff', source: 'FFMPEG_PATH' })
  })

  it('uses ffmpeg-static when FFMPEG_PATH is unset and the file exists', () => {
    const r = resolveFfmpeg({}, () => '/static/ffmpeg', exists(['/static/ffmpeg']))
    expect(r).toEqual({ path: '/static/ffmpeg', source: 'ffmpeg-static' })
  })

  it('names both ways out when nothing is found', () => {
    const attempt = () => resolveFfmpeg({}, () => '/static/ffmpeg', exists([]))
    expect(attempt).toThrow(AppFailure)
    try {
      attempt()
    } catch (e) {
      const err = (e as AppFailure).error
      expect(err.code).toBe('ffmpeg-missing')
      expect(err.message).toContain('/static/ffmpeg')
      expect(err.hint).toMatch(/FFMPEG_PATH/)
      expect(err.hint).toMatch(/ffmpeg-static/)
    }
  })

  it('does not silently fall back when FFMPEG_PATH points nowhere', () => {
    expect(() =>
      resolveFfmpeg({ FFMPEG_PATH: '/nope' }, () => '/static/ffmpeg', exists(['/static/ffmpeg']))
    ).toThrow(/FFMPEG_PATH points to \/nope/)
  })

  it('reports a platform without a bundled binary', () => {
    expect(() => resolveFfmpeg({}, () => null, exists([]))).toThrow(/no binary for this platform/)
  })

  it('points into app.asar.unpacked when packaged', () => {
    expect(unpackedAsarPath('/app/resources/app.asar/node_modules/ffmpeg-static/ffmpeg')).toBe(
      '/app/resources/app.asar.unpacked/node_modules/ffmpeg-static/ffmpeg'
    )
  })
})

import { describe, expect, it } from 'vitest'
import { findOnPath, resolveFfmpeg, unpackedAsarPath } from '../../../src/node/ffmpeg/locate'
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

  it('falls back to ffmpeg on PATH when ffmpeg-static could not place its binary', () => {
    const env = { PATH: '/home/ana/bin:/usr/local/bin:/usr/bin' }
    const r = resolveFfmpeg(env, () => '/static/ffmpeg', exists(['/usr/bin/ffmpeg']), 'linux')
    expect(r).toEqual({ path: '/usr/bin/ffmpeg', source: 'PATH' })
    // The first PATH entry that has it wins, as in a shell.
    const first = resolveFfmpeg(
      env,
      () => null,
      exists(['/usr/local/bin/ffmpeg', '/usr/bin/ffmpeg']),
      'linux'
    )
    expect(first.path).toBe('/usr/local/bin/ffmpeg')
    // A bundled binary that is there still comes before PATH.
    const bundled = resolveFfmpeg(
      env,
      () => '/static/ffmpeg',
      exists(['/static/ffmpeg', '/usr/bin/ffmpeg']),
      'linux'
    )
    expect(bundled.source).toBe('ffmpeg-static')
  })

  it('finds ffmpeg.exe on a Windows Path (any spelling of the variable, PATHEXT, quoted dirs)', () => {
    const env = {
      Path: 'C:\\Windows\\System32;"C:\\Program Files\\ffmpeg\\bin";',
      PATHEXT: '.COM;.EXE;.BAT'
    }
    const exe = 'C:\\Program Files\\ffmpeg\\bin\\ffmpeg.exe'
    expect(findOnPath('ffmpeg', env, 'win32', exists([exe]))).toBe(exe)
    expect(resolveFfmpeg(env, () => null, exists([exe]), 'win32')).toEqual({
      path: exe,
      source: 'PATH'
    })
  })

  it('finds ffmpeg on the macOS Homebrew PATH', () => {
    const env = { PATH: '/opt/homebrew/bin:/usr/bin:/bin' }
    expect(findOnPath('ffmpeg', env, 'darwin', exists(['/opt/homebrew/bin/ffmpeg']))).toBe(
      '/opt/homebrew/bin/ffmpeg'
    )
  })

  it('names every way out when there is no ffmpeg anywhere', () => {
    try {
      resolveFfmpeg({ PATH: '/usr/bin' }, () => null, exists([]), 'linux')
      expect.unreachable('no ffmpeg should have been found')
    } catch (e) {
      const err = (e as AppFailure).error
      expect(err.message).toMatch(/no ffmpeg on PATH/)
      expect(err.hint).toMatch(/PATH/)
      expect(err.hint).toMatch(/FFMPEG_PATH/)
      expect(err.hint).toMatch(/ffmpeg-static/)
    }
  })

  it('unpacks from app.asar with either separator (Windows and macOS/Linux installs)', () => {
    expect(
      unpackedAsarPath('C:\\Onair\\resources\\app.asar\\node_modules\\ffmpeg-static\\ffmpeg.exe')
    ).toBe('C:\\Onair\\resources\\app.asar.unpacked\\node_modules\\ffmpeg-static\\ffmpeg.exe')
  })
})

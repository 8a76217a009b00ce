import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { defaultAppDataDir } from '../../../src/node/app-data'
import { SettingsStore } from '../../../src/main/core/settings-store'
import { maskStreamKey, toSessionView, toStreamView } from '../../../src/main/core/view-models'
import { loadWebIdentity, saveWebIdentity } from '../../../src/main/web/web-identity'

describe('settings store', () => {
  it('starts with the local studio active and persists updates atomically', () => {
    const dir = mkdtempSync(join(tmpdir(), 'onair-settings-'))
    const a = new SettingsStore(dir)
    expect(a.get()).toMatchObject({
      activeId: 'local',
      connections: [{ id: 'local', kind: 'local' }]
    })
    a.update((s) => {
      s.devices = { videoDeviceId: 'cam-1', sourceKind: 'camera' }
    })
    expect(readdirSync(dir)).toEqual(['settings.json']) // no tmp file left behind
    expect(new SettingsStore(dir).get().devices).toEqual({
      videoDeviceId: 'cam-1',
      sourceKind: 'camera'
    })
  })

  it('sets an unreadable file aside instead of overwriting it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'onair-settings-'))
    writeFileSync(join(dir, 'settings.json'), '{"version":1,"connections":[tru')
    const s = new SettingsStore(dir)
    expect(s.get().activeId).toBe('local')
    const kept = readdirSync(dir).find((f) => f.startsWith('settings.json.unreadable-'))!
    expect(readFileSync(join(dir, kept), 'utf8')).toBe('{"version":1,"connections":[tru')
  })

  it('repairs an active id that points nowhere', () => {
    const dir = mkdtempSync(join(tmpdir(), 'onair-settings-'))
    writeFileSync(
      join(dir, 'settings.json'),
      JSON.stringify({ version: 1, connections: [], activeId: 'gone', devices: {} })
    )
    expect(new SettingsStore(dir).get()).toMatchObject({
      activeId: 'local',
      connections: [{ id: 'local' }]
    })
  })
})

describe('views', () => {
  it('masks the stream key except its last group', () => {
    expect(maskStreamKey('ab12-cd34-ef56-3f9a')).toBe('••••-••••-••••-3f9a')
    expect(maskStreamKey('abcdefgh')).toBe('••••efgh')
    expect(maskStreamKey(undefined)).toBe('')
  })

  it('builds ingest and playback URLs and never carries the key', () => {
    const v = toStreamView(
      {
        id: 's1',
        name: 'Show',
        streamKey: 'ab12-cd34-ef56-3f9a',
        playbackId: 'ab12pb',
        profiles: [],
        record: true
      },
      { rtmp: 'rtmp://rtmp.livepeer.com/live', playbackBase: 'https://livepeercdn.studio/hls' }
    )
    expect(v).toMatchObject({
      ingestUrl: 'rtmp://rtmp.livepeer.com/live',
      playbackUrl: 'https://livepeercdn.studio/hls/ab12pb/index.m3u8',
      record: true,
      isActive: false
    })
    expect(JSON.stringify(v)).not.toContain('ab12-cd34-ef56-3f9a')
  })

  it('keeps only known recording statuses', () => {
    expect(toSessionView({ name: 'x', recordingStatus: 'ready' }).recordingStatus).toBe('ready')
    expect(
      toSessionView({ name: 'x', recordingStatus: 'bogus' as 'ready' }).recordingStatus
    ).toBeUndefined()
  })
})

describe('the app-data folder', () => {
  it("is Electron's userData for Onair on each OS, and ONAIR_APP_DATA wins", () => {
    expect(
      defaultAppDataDir(
        { APPDATA: 'C:\\Users\\Ana López\\AppData\\Roaming' },
        'win32',
        'C:\\Users\\Ana López'
      )
    ).toBe('C:\\Users\\Ana López\\AppData\\Roaming\\Onair')
    expect(defaultAppDataDir({}, 'darwin', '/Users/ana')).toBe(
      '/Users/ana/Library/Application Support/Onair'
    )
    expect(defaultAppDataDir({}, 'linux', '/home/ana')).toBe('/home/ana/.config/Onair')
    expect(defaultAppDataDir({ XDG_CONFIG_HOME: '/x' }, 'linux', '/home/ana')).toBe('/x/Onair')
    expect(defaultAppDataDir({ ONAIR_APP_DATA: '/tmp/od' }, 'darwin', '/Users/ana')).toBe('/tmp/od')
  })
})

describe("the web shell's identity", () => {
  it('keeps its port and session across launches, readable by this user only', () => {
    const dir = mkdtempSync(join(tmpdir(), 'onair-webid-'))
    const first = loadWebIdentity(dir)
    expect(first.port).toBe(0)
    expect(first.session.length).toBeGreaterThanOrEqual(32)
    saveWebIdentity(dir, { port: 43210, session: first.session })
    expect(loadWebIdentity(dir)).toEqual({ port: 43210, session: first.session })
    expect(statSync(join(dir, 'web-shell.json')).mode & 0o077).toBe(0)
    writeFileSync(join(dir, 'web-shell.json'), '{broken')
    expect(loadWebIdentity(dir).session).not.toBe(first.session)
  })
})

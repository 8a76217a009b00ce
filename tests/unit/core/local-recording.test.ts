// Record on this computer: the default folder on every OS (platform injected), what the switch says
// it costs, the tee command line the test pattern records through, the sessions index, and the
// disk-full error's words.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { buildBroadcastArgs, teeOutputArgs } from '../../../src/main/core/broadcast/args'
import { CALL_ARGS } from '../../../src/main/core/contract-schema'
import { defaultRecordingFolder, folderLabel } from '../../../src/main/core/local-recording/folder'
import { diskFullError, LocalRecordings } from '../../../src/main/core/local-recording/recordings'
import { bytesPerHour, recordingCost } from '../../../src/shared/local-recording'
import { DEFAULT_OUTPUT } from '../../../src/shared/output'

const none = (): undefined => undefined

describe('defaultRecordingFolder', () => {
  it('Windows: %USERPROFILE%\\Videos\\Onair', () => {
    const f = defaultRecordingFolder({
      env: { USERPROFILE: 'C:\\Users\\Ana' },
      platform: 'win32',
      home: 'C:\\Users\\other',
      readText: none
    })
    expect(f).toBe('C:\\Users\\Ana\\Videos\\Onair')
  })
  it('macOS: ~/Movies/Onair', () => {
    expect(
      defaultRecordingFolder({ env: {}, platform: 'darwin', home: '/Users/ana', readText: none })
    ).toBe('/Users/ana/Movies/Onair')
  })
  it('Linux: $XDG_VIDEOS_DIR from the environment first', () => {
    const f = defaultRecordingFolder({
      env: { XDG_VIDEOS_DIR: '/data/vids' },
      platform: 'linux',
      home: '/home/ana',
      readText: () => 'XDG_VIDEOS_DIR="$HOME/Filme"\n'
    })
    expect(f).toBe('/data/vids/Onair')
  })
  it('Linux: then user-dirs.dirs (in $XDG_CONFIG_HOME), $HOME expanded', () => {
    const read: string[] = []
    const f = defaultRecordingFolder({
      env: { XDG_CONFIG_HOME: '/home/ana/cfg' },
      platform: 'linux',
      home: '/home/ana',
      readText: (p) => {
        read.push(p)
        return '# written by xdg-user-dirs-update\nXDG_DESKTOP_DIR="$HOME/Schreibtisch"\nXDG_VIDEOS_DIR="$HOME/Filme"\n'
      }
    })
    expect(f).toBe('/home/ana/Filme/Onair')
    expect(read).toEqual(['/home/ana/cfg/user-dirs.dirs'])
  })
  it('Linux: else ~/Videos/Onair (no file, or the entry disabled as $HOME)', () => {
    expect(
      defaultRecordingFolder({ env: {}, platform: 'linux', home: '/home/ana', readText: none })
    ).toBe('/home/ana/Videos/Onair')
    expect(
      defaultRecordingFolder({
        env: {},
        platform: 'linux',
        home: '/home/ana',
        readText: () => 'XDG_VIDEOS_DIR="$HOME/"\n'
      })
    ).toBe('/home/ana/Videos/Onair')
  })
  it('ONAIR_RECORDINGS_DIR replaces the answer on every OS', () => {
    for (const platform of ['win32', 'darwin', 'linux'] as const)
      expect(
        defaultRecordingFolder({
          env: { ONAIR_RECORDINGS_DIR: '/tmp/rec' },
          platform,
          home: '/h',
          readText: none
        })
      ).toBe('/tmp/rec')
  })
  it('is shown by its last two parts', () => {
    expect(folderLabel('C:\\Users\\Ana\\Videos\\Onair')).toBe('Videos/Onair')
    expect(folderLabel('/home/ana/Videos/Onair/')).toBe('Videos/Onair')
  })
})

describe('the cost the switch shows', () => {
  it('comes from the output bitrate: 2.5 Mbit/s + 128 kbit/s is about 1.2 GB an hour', () => {
    expect(bytesPerHour(DEFAULT_OUTPUT)).toBe(((2500 + 128) * 1000 * 3600) / 8)
    expect(recordingCost(DEFAULT_OUTPUT, 'Videos/Onair')).toBe(
      'about 1.2 GB an hour, in Videos/Onair'
    )
    expect(recordingCost({ videoBitrateKbps: 600, audioBitrateKbps: 96 }, 'Movies/Onair')).toBe(
      'about 313 MB an hour, in Movies/Onair'
    )
  })
})

describe('the test pattern records through the tee muxer', () => {
  const url = 'rtmp://127.0.0.1:1935/live/key|x'
  it('one encode, two outputs: the push (same options as alone) and a Matroska file that may fail', () => {
    expect(teeOutputArgs(url, '/v/a [1].mkv')).toEqual([
      '-flags',
      '+global_header',
      '-f',
      'tee',
      '[onfail=abort:f=flv:flvflags=no_duration_filesize:rw_timeout=10000000]rtmp://127.0.0.1:1935/live/key\\|x|[f=matroska:onfail=ignore:cluster_time_limit=1000]/v/a \\[1\\].mkv'
    ])
  })
  it('asks for a file per attempt, and only for the test pattern', () => {
    const files = ['/v/1.mkv', '/v/2.mkv']
    const localFile = () => files.shift()
    const tp = buildBroadcastArgs({
      source: { kind: 'test-pattern' },
      output: DEFAULT_OUTPUT,
      url,
      localFile
    })
    expect(tp.slice(-1)[0]).toContain('[f=matroska:onfail=ignore:cluster_time_limit=1000]/v/1.mkv')
    expect(files).toEqual(['/v/2.mkv'])
    const media = buildBroadcastArgs({
      source: { kind: 'media', mimeType: 'video/webm;codecs=avc1,opus' },
      output: DEFAULT_OUTPUT,
      url,
      localFile
    })
    expect(media).not.toContain('tee')
    expect(media.slice(-1)[0]).toBe(url)
    expect(files).toEqual(['/v/2.mkv'])
  })
})

describe('the local index', () => {
  const dirs: string[] = []
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))
  it('matches a session of the same stream started within two minutes; a run cut off is interrupted', () => {
    const d = mkdtempSync(join(tmpdir(), 'onair-lrindex-'))
    dirs.push(d)
    let t = Date.parse('2026-11-24T10:00:00Z')
    const mk = () =>
      new LocalRecordings({
        appDataDir: join(d, 'app'),
        folder: () => join(d, 'Videos', 'Onair'),
        ffmpeg: () => 'ffmpeg',
        now: () => t
      })
    const a = mk()
    const rec = a.begin({ runId: 'r1', streamId: 's1', streamName: 'Show: "one"' })
    expect(rec.view.file).toBe(
      join(d, 'Videos', 'Onair', 'Show one 2026-11-24 ' + rec.view.file.slice(-9))
    )
    t += 10 * 60_000
    a.begin({ runId: 'r2', streamId: 's1', streamName: 'Show' })
    expect(
      a.forSession({ parentId: 's1', createdAt: Date.parse('2026-11-24T10:00:03Z') })?.runId
    ).toBe('r1')
    expect(a.forSession({ parentId: 's1', createdAt: t + 90_000 })?.runId).toBe('r2')
    expect(a.forSession({ parentId: 's2', createdAt: t })).toBeUndefined()
    expect(a.forSession({ parentId: 's1', createdAt: t + 5 * 60_000 })).toBeUndefined()
    // The app closed without finishing them: the next start calls them interrupted.
    expect(
      mk()
        .list()
        .map((e) => e.state)
    ).toEqual(['interrupted', 'interrupted'])
  })
  it('does not give a later session of the stream the file of a broadcast that had ended', async () => {
    const d = mkdtempSync(join(tmpdir(), 'onair-lrindex-'))
    dirs.push(d)
    const a = new LocalRecordings({
      appDataDir: join(d, 'app'),
      folder: () => join(d, 'v'),
      ffmpeg: () => 'ffmpeg'
    })
    await a.begin({ runId: 'r1', streamId: 's1', streamName: 'Show' }).finish()
    const ended = a.get('r1')!.endedAt!
    // Its own session began while it was written; another, 30 s after it ended, is not its.
    expect(a.forSession({ parentId: 's1', createdAt: ended - 1000 })?.runId).toBe('r1')
    expect(a.forSession({ parentId: 's1', createdAt: ended + 30_000 })).toBeUndefined()
  })
  it('keeps going when the index file is unreadable', () => {
    const d = mkdtempSync(join(tmpdir(), 'onair-lrindex-'))
    dirs.push(d)
    writeFileSync(join(d, 'local-recordings.json'), '{not json')
    const r = new LocalRecordings({
      appDataDir: d,
      folder: () => join(d, 'v'),
      ffmpeg: () => 'ffmpeg'
    })
    expect(r.list()).toEqual([])
  })
})

describe('disk-full', () => {
  it('names the folder, how far it got, and that the broadcast goes on', () => {
    expect(diskFullError('/media/usb/Onair', 83.4)).toEqual({
      code: 'disk-full',
      message:
        'The disk holding /media/usb/Onair is full: recording on this computer stopped after 1:23. The broadcast goes on.',
      hint: 'Free some space, or choose another folder for the next broadcast.'
    })
  })
})

describe('the calls and the setting are checked', () => {
  it('a folder must be whole (absolute) on any OS; recordLocally is a boolean', () => {
    const save = (folder: string) =>
      CALL_ARGS.saveSettings.safeParse([{ localRecording: { enabled: true, folder } }]).success
    expect(save('/home/ana/Videos')).toBe(true)
    expect(save('C:\\Users\\Ana\\Videos')).toBe(true)
    expect(save('\\\\nas\\share\\Onair')).toBe(true)
    expect(save('Videos/Onair')).toBe(false)
    expect(save('')).toBe(false)
    const go = (recordLocally: unknown) =>
      CALL_ARGS.goLive.safeParse([
        { streamId: 's', source: { kind: 'test-pattern' }, output: DEFAULT_OUTPUT, recordLocally }
      ]).success
    expect(go(true)).toBe(true)
    expect(go('yes')).toBe(false)
    expect(CALL_ARGS.openLocalRecording.safeParse(['r1', 'play']).success).toBe(true)
    expect(CALL_ARGS.openLocalRecording.safeParse(['r1', 'delete']).success).toBe(false)
  })
})

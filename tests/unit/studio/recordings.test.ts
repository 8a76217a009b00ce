import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  assembleRecording,
  masterPlaylist,
  parseMediaPlaylist,
  type RenditionInfo
} from '../../../src/studio/recordings'

const R: RenditionInfo[] = [
  {
    dir: 'v0',
    name: '720p',
    width: 1280,
    height: 720,
    bandwidth: 3_428_000,
    codecs: 'avc1.64001f,mp4a.40.2'
  },
  {
    dir: 'v1',
    name: '360p',
    width: 640,
    height: 360,
    bandwidth: 1_008_000,
    codecs: 'avc1.64001e,mp4a.40.2'
  }
]

const event = (segs: Array<[number, string]>, ended: boolean): string =>
  ['#EXTM3U', '#EXT-X-VERSION:6', '#EXT-X-TARGETDURATION:2', '#EXT-X-PLAYLIST-TYPE:EVENT']
    .concat(segs.flatMap(([d, u]) => [`#EXTINF:${d},`, u]))
    .concat(ended ? ['#EXT-X-ENDLIST'] : [])
    .join('\n') + '\n'

let dir = ''
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
})

async function run(
  k: number,
  segs: Record<string, Array<[number, string]>>,
  ended = true
): Promise<void> {
  await mkdir(join(dir, `run${k}`), { recursive: true })
  await writeFile(join(dir, `run${k}`, 'renditions.json'), JSON.stringify(R))
  for (const [v, list] of Object.entries(segs)) {
    await mkdir(join(dir, `run${k}`, v), { recursive: true })
    await writeFile(join(dir, `run${k}`, v, 'index.m3u8'), event(list, ended))
    for (const [, u] of list) await writeFile(join(dir, `run${k}`, v, u), 'ts')
  }
}

describe('playlists', () => {
  it('master lists every rendition with BANDWIDTH, RESOLUTION and CODECS', () => {
    const m = masterPlaylist(R, (r) => `${r.dir}.m3u8`)
    expect(m).toContain(
      '#EXT-X-STREAM-INF:BANDWIDTH=3428000,RESOLUTION=1280x720,CODECS="avc1.64001f,mp4a.40.2",NAME="720p"\nv0.m3u8'
    )
    expect(m).toContain('RESOLUTION=640x360')
    // A name cannot break out of its quoted string.
    expect(masterPlaylist([{ ...R[0]!, name: 'a"b\nc' }], (r) => r.dir)).toContain(
      'NAME="a\'b\'c"\n'
    )
  })

  it('keeps a discontinuity inside a run and the segments’ wall-clock times', () => {
    const text = [
      '#EXTM3U',
      '#EXTINF:2.000000,',
      '#EXT-X-PROGRAM-DATE-TIME:2026-11-24T11:01:59.603+0000',
      'seg00000.ts',
      '#EXT-X-DISCONTINUITY',
      '#EXTINF:2.000000,',
      '#EXT-X-PROGRAM-DATE-TIME:2026-11-24T11:02:04.695+0000',
      'seg00001.ts'
    ].join('\n')
    expect(parseMediaPlaylist(text)).toEqual([
      { duration: 2, uri: 'seg00000.ts', dateTime: '2026-11-24T11:01:59.603+0000' },
      {
        duration: 2,
        uri: 'seg00001.ts',
        discontinuity: true,
        dateTime: '2026-11-24T11:02:04.695+0000'
      }
    ])
  })

  it('parses segments and their durations, ignoring tags', () => {
    expect(
      parseMediaPlaylist(
        event(
          [
            [2, 'seg00000.ts'],
            [1.5, 'seg00001.ts']
          ],
          false
        )
      )
    ).toEqual([
      { duration: 2, uri: 'seg00000.ts' },
      { duration: 1.5, uri: 'seg00001.ts' }
    ])
  })
})

describe('assembleRecording', () => {
  it('joins runs with a discontinuity into VOD playlists with ENDLIST', async () => {
    dir = await mkdtemp(join(tmpdir(), 'rec-'))
    await run(0, {
      v0: [
        [2, 'seg00000.ts'],
        [2, 'seg00001.ts']
      ],
      v1: [
        [2, 'seg00000.ts'],
        [2, 'seg00001.ts']
      ]
    })
    // A run cut by a crash: no ENDLIST, and a listed segment whose file never appeared.
    await run(1, { v0: [[2, 'seg00000.ts']], v1: [[2, 'seg00000.ts']] }, false)
    await writeFile(
      join(dir, 'run1', 'v0', 'index.m3u8'),
      event(
        [
          [2, 'seg00000.ts'],
          [2, 'seg00009.ts']
        ],
        false
      )
    )
    const a = await assembleRecording(dir)
    expect(a).toEqual({ ok: true, duration: 6 })
    const v0 = await readFile(join(dir, 'v0.m3u8'), 'utf8')
    expect(v0).toContain('#EXT-X-PLAYLIST-TYPE:VOD')
    expect(v0.trim().endsWith('#EXT-X-ENDLIST')).toBe(true)
    expect(v0).toContain(
      'run0/v0/seg00001.ts\n#EXT-X-DISCONTINUITY\n#EXTINF:2.000000,\nrun1/v0/seg00000.ts'
    )
    expect(v0).not.toContain('seg00009')
    const master = await readFile(join(dir, 'index.m3u8'), 'utf8')
    expect(master.match(/EXT-X-STREAM-INF/g)).toHaveLength(2)
  })

  it('keeps the discontinuity a restart left inside a run, once, and never before the first segment', async () => {
    dir = await mkdtemp(join(tmpdir(), 'rec-'))
    await run(0, { v0: [[2, 'seg00000.ts']], v1: [[2, 'seg00000.ts']] })
    await run(1, {
      v0: [
        [2, 'seg00000.ts'],
        [2, 'seg00001.ts']
      ],
      v1: [[2, 'seg00000.ts']]
    })
    // run1's v0 was restarted after its first segment; run0's v1 restarted before any segment
    // (append_list marks even the first segment of a fresh playlist).
    const withBreak = (first: string[], then: string[]): string =>
      ['#EXTM3U']
        .concat(first.flatMap((u) => ['#EXTINF:2,', u]))
        .concat(['#EXT-X-DISCONTINUITY'])
        .concat(then.flatMap((u) => ['#EXTINF:2,', u]))
        .join('\n')
    await writeFile(
      join(dir, 'run1', 'v0', 'index.m3u8'),
      withBreak(['seg00000.ts'], ['seg00001.ts'])
    )
    await writeFile(join(dir, 'run0', 'v1', 'index.m3u8'), withBreak([], ['seg00000.ts']))
    expect(await assembleRecording(dir)).toEqual({ ok: true, duration: 6 })
    const v0 = await readFile(join(dir, 'v0.m3u8'), 'utf8')
    expect(v0.match(/#EXT-X-DISCONTINUITY/g)).toHaveLength(2)
    expect(v0).toContain(
      'run1/v0/seg00000.ts\n#EXT-X-DISCONTINUITY\n#EXTINF:2.000000,\nrun1/v0/seg00001.ts'
    )
    const v1 = await readFile(join(dir, 'v1.m3u8'), 'utf8')
    expect(v1.match(/#EXT-X-DISCONTINUITY/g)).toHaveLength(1)
    expect(v1.indexOf('#EXT-X-DISCONTINUITY')).toBeGreaterThan(v1.indexOf('run0/v1/seg00000.ts'))
  })

  it('is not ok when no segment was ever completed', async () => {
    dir = await mkdtemp(join(tmpdir(), 'rec-'))
    await run(0, { v0: [] }, false)
    expect(await assembleRecording(dir)).toEqual({ ok: false, duration: 0 })
    expect(await assembleRecording(join(dir, 'missing'))).toEqual({ ok: false, duration: 0 })
  })
})

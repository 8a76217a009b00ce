// A finished recording's media, made by a real ffmpeg: two renditions (640x360 and 320x180, 4 s of
// test picture and tone) as HLS VOD playlists under one master playlist (index.m3u8, as the local
// studio writes it), plus the recording's MP4 (from the first). Put into a seeded session's media
// folder, it gives the player (and the downloads) a real recording without a broadcast.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { makeMediaFile } from './studio'

export const FIXTURE_RENDITIONS = [
  { dir: 'v0', width: 640, height: 360, kbps: 600 },
  { dir: 'v1', width: 320, height: 180, kbps: 200 }
] as const

export const FIXTURE_SECONDS = 4

export function writeRecording(dir: string): void {
  mkdirSync(dir, { recursive: true })
  for (const r of FIXTURE_RENDITIONS)
    makeMediaFile(join(dir, `${r.dir}.m3u8`), [
      ...['-f', 'lavfi', '-i', `testsrc2=size=${r.width}x${r.height}:rate=30`],
      ...['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000'],
      ...['-t', String(FIXTURE_SECONDS), '-c:v', 'libx264', '-preset', 'ultrafast'],
      ...['-b:v', `${r.kbps}k`, '-g', '30', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '64k'],
      ...['-f', 'hls', '-hls_time', '1', '-hls_playlist_type', 'vod'],
      ...['-hls_segment_filename', join(dir, `${r.dir}_%03d.ts`)]
    ])
  writeFileSync(
    join(dir, 'index.m3u8'),
    [
      '#EXTM3U',
      '#EXT-X-VERSION:3',
      ...FIXTURE_RENDITIONS.flatMap((r) => [
        `#EXT-X-STREAM-INF:BANDWIDTH=${(r.kbps + 64) * 1000},RESOLUTION=${r.width}x${r.height},CODECS="avc1.64001e,mp4a.40.2"`,
        `${r.dir}.m3u8`
      ]),
      ''
    ].join('\n')
  )
  makeMediaFile(join(dir, 'recording.mp4'), [
    ...['-i', join(dir, 'v0.m3u8'), '-c', 'copy', '-movflags', '+faststart']
  ])
}

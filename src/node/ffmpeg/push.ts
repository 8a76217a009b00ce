// The output end of every live push: the broadcaster's to its ingest and each multistream
// forwarder's to its target.

/**
 * FLV over RTMP(S) (a live target cannot seek back to patch duration and file size into the
 * header), MPEG-TS over SRT; and an output that stops reading without closing the socket ends ffmpeg
 * after 10 s (so it is retried) instead of hanging it. `url` carries the key: ffmpeg's argument only.
 */
export function pushOutputArgs(url: string): string[] {
  const container = /^srt:/i.test(url)
    ? ['-f', 'mpegts']
    : ['-f', 'flv', '-flvflags', 'no_duration_filesize']
  return [...container, '-rw_timeout', '10000000', url]
}

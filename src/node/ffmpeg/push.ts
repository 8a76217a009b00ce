// The output end of every live push: the broadcaster's to its ingest and each multistream
// forwarder's to its target.

/** The URL a push goes to: an RTMP ingest (rtmp://host[:port]/live) and the stream key after it. */
export const rtmpPushUrl = (ingest: string, streamKey: string): string =>
  `${ingest.replace(/\/+$/, '')}/${streamKey}`

/**
 * FLV over RTMP(S) (a live target cannot seek back to patch duration and file size into the
 * header), MPEG-TS over SRT; and an output that stops reading without closing the socket ends ffmpeg
 * after 10 s (so it is retried) instead of hanging it. `url` carries the key: ffmpeg's argument only.
 */
export function pushOutputArgs(url: string, o: { sendBufferBytes?: number } = {}): string[] {
  const container = /^srt:/i.test(url)
    ? ['-f', 'mpegts']
    : ['-f', 'flv', '-flvflags', 'no_duration_filesize']
  // A socket send buffer of our choosing (the OS doubles it) instead of one that grows to megabytes:
  // what waits there is delay we can neither see nor drop (the broadcaster's: sendBufferFor, in the
  // uplink's tuning table).
  const sndbuf = o.sendBufferBytes ? ['-send_buffer_size', String(o.sendBufferBytes)] : []
  return [...container, ...sndbuf, '-rw_timeout', '10000000', url]
}

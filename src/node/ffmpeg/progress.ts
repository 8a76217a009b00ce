// Parses ffmpeg's `-progress pipe:1` output: blocks of key=value lines ending in
// `progress=continue|end`. Incremental and pure: the supervised ffmpeg (ffmpeg/supervised.ts) feeds it
// stdout bytes as they come, cut anywhere, and gets whole blocks back.

export interface ProgressBlock {
  frame: number
  fps: number
  /** Output bitrate in kbit/s (0 when ffmpeg reports N/A). */
  kbps: number
  totalSize: number
  outTimeUs: number
  dupFrames: number
  dropFrames: number
  /** Encoding speed relative to real time (1 = keeping up). */
  speed: number
  end: boolean
}

const num = (v: string | undefined): number => {
  if (v === undefined) return 0
  const n = parseFloat(v)
  return Number.isFinite(n) ? n : 0
}

export function toBlock(fields: Map<string, string>): ProgressBlock {
  return {
    frame: num(fields.get('frame')),
    fps: num(fields.get('fps')),
    kbps: num(fields.get('bitrate')), // "1234.5kbits/s" -> 1234.5
    totalSize: num(fields.get('total_size')),
    outTimeUs: num(fields.get('out_time_us') ?? fields.get('out_time_ms')),
    dupFrames: num(fields.get('dup_frames')),
    dropFrames: num(fields.get('drop_frames')),
    speed: num(fields.get('speed')), // "1.01x" -> 1.01
    end: fields.get('progress') === 'end'
  }
}

/** Incremental parser: push stdout bytes, get whole blocks back. */
export class ProgressParser {
  private partial = ''
  private fields = new Map<string, string>()
  // A multi-byte character cut between two chunks must not turn into two replacement characters.
  private readonly decoder = new TextDecoder()

  push(chunk: Uint8Array | string): ProgressBlock[] {
    const text =
      this.partial +
      (typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true }))
    const lines = text.split('\n')
    this.partial = lines.pop() ?? ''
    const out: ProgressBlock[] = []
    for (const raw of lines) {
      const line = raw.trim()
      const eq = line.indexOf('=')
      if (eq <= 0) continue
      const key = line.slice(0, eq)
      this.fields.set(key, line.slice(eq + 1).trim())
      if (key === 'progress') {
        out.push(toBlock(this.fields))
        this.fields = new Map()
      }
    }
    return out
  }
}

/** How much media an attempt must have written before it counts as flowing: half a second. */
export const FLOWING_AFTER_US = 500_000

/**
 * The one definition of "media is flowing", for the broadcaster's push (its Live), the studio's
 * forwarders and its transcoders: a block of an attempt that is not its first and not ffmpeg's last
 * shows at least FLOWING_AFTER_US of media time written to the output. (Media time, not bytes:
 * outputs that write their own files, HLS among them, report no total size.)
 *
 * What a first block proves is only that ffmpeg opened its output and wrote its header. For RTMP that
 * means the server answered the publish, not that it accepted the stream: some servers
 * (node-media-server, so the local studio, among them) answer NetStream.Publish.Start and check the
 * key afterwards, then close the connection. ffmpeg prints its first block as soon as the output's
 * header is written, and that block can already count a burst of media (the packets queued while
 * the header waited for every stream: a camera's backlog, a forwarder's first HLS segment), all of it
 * in the socket's buffer, none of it taken. The next blocks come a stats period apart (half a
 * second or a second). A refused publish fails ffmpeg's next writes within milliseconds, so the
 * attempt ends before a second block: a later block that is not the last proves the connection
 * stayed up a whole stats period after media went out on it. The final block (`progress=end`) can
 * count what a burst wrote before the refusal was noticed, so it never counts.
 *
 * `nth` is the block's place in its attempt (1 = the first block after the header).
 */
export const showsMediaFlowing = (b: ProgressBlock, nth: number): boolean =>
  nth > 1 && !b.end && b.outTimeUs >= FLOWING_AFTER_US

/**
 * The start of every supervised ffmpeg's arguments: warnings only on stderr (the redacted ring keeps
 * what matters), no interactive status line, and machine-readable progress blocks on stdout every
 * `periodS` seconds, which this parser reads.
 */
export function quietWithProgress(periodS = 1): string[] {
  return [
    '-hide_banner',
    '-loglevel',
    'warning',
    '-nostats',
    '-progress',
    'pipe:1',
    '-stats_period',
    String(periodS)
  ]
}

/** A block a second: the studio's transcoders and forwarders. */
export const QUIET_WITH_PROGRESS: readonly string[] = quietWithProgress(1)

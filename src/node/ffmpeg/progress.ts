// Parses ffmpeg's `-progress pipe:1` output: blocks of key=value lines ending in
// `progress=continue|end`. Incremental and pure: the broadcaster and the studio's transcoders feed it
// stdout bytes as they come, cut anywhere, and get whole blocks back.

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

/**
 * "Live" means the ingest accepted the publish. ffmpeg's RTMP client only returns from opening the
 * output after the server answered NetStream.Publish.Start, and writes the FLV header and packets
 * after that; so a block with bytes written and media time advancing is proof of an accepted publish.
 */
export const showsMediaFlowing = (b: ProgressBlock): boolean => b.totalSize > 0 && b.outTimeUs > 0

/**
 * The start of every supervised ffmpeg's arguments: warnings only on stderr (the redacted ring keeps
 * what matters), no interactive status line, and machine-readable progress blocks on stdout once a
 * second, which this parser reads.
 */
export const QUIET_WITH_PROGRESS: readonly string[] = [
  '-hide_banner',
  '-loglevel',
  'warning',
  '-nostats',
  '-progress',
  'pipe:1',
  '-stats_period',
  '1'
]

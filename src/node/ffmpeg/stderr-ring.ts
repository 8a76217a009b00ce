// ffmpeg's stderr, kept as the last lines with every secret already redacted: what a failure report
// may quote. ffmpeg prints the output URL on failures (`rtmp://host/live/<key>: Connection refused`),
// so nothing is kept before it has passed through redact().
import { redact } from '../../shared/redact'

/** A runaway line without newlines must not grow without bound either. */
const MAX_PARTIAL = 4096

export class RedactedRing {
  private lines: string[] = []
  private partial = ''

  constructor(
    private readonly secrets: readonly string[] = [],
    private readonly max = 50
  ) {}

  /** Feeds raw stderr bytes; splits on newlines and carriage returns (ffmpeg rewrites lines with \r). */
  write(chunk: Buffer | string): void {
    const text = this.partial + chunk.toString()
    const parts = text.split(/\r\n|\n|\r/)
    this.partial = parts.pop() ?? ''
    if (this.partial.length > MAX_PARTIAL) {
      parts.push(this.partial)
      this.partial = ''
    }
    for (const p of parts) if (p.trim()) this.push(p)
  }

  private push(line: string): void {
    this.lines.push(redact(line, this.secrets))
    if (this.lines.length > this.max) this.lines.shift()
  }

  /** The kept lines, the unfinished last one included. */
  snapshot(): string[] {
    const all = this.partial.trim()
      ? [...this.lines, redact(this.partial, this.secrets)]
      : this.lines
    return all.slice(-this.max)
  }

  tail(n = 5): string {
    return this.snapshot().slice(-n).join('\n')
  }
}

// Stream keys and API keys must never reach a log line, an error or kept stderr. ffmpeg prints the
// output URL on failures (`rtmp://host/live/<key>: Connection refused`), so every line it writes passes
// through here before we keep it.

const LIVE_PATH = /(\/live\/)([^\s/'"?#:,;]+)/g

/** Replaces the path segment after `/live/` and every known secret with `****`. */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text.replace(LIVE_PATH, '$1****')
  for (const s of secrets) {
    // Short strings would mangle ordinary words; real keys are long.
    if (s && s.length >= 6) out = out.split(s).join('****')
  }
  return out
}

/** Keeps the last `max` lines, each already redacted: what a failure report may quote. */
export class RedactedRing {
  private lines: string[] = []
  private partial = ''

  constructor(
    private readonly secrets: readonly string[],
    private readonly max = 50
  ) {}

  /** Feeds raw stderr bytes; splits on newlines and carriage returns (ffmpeg rewrites lines with \r). */
  write(chunk: Buffer | string): void {
    const text = this.partial + chunk.toString()
    const parts = text.split(/\r\n|\n|\r/)
    this.partial = parts.pop() ?? ''
    // A runaway line without newlines must not grow without bound either.
    if (this.partial.length > 4096) {
      parts.push(this.partial)
      this.partial = ''
    }
    for (const p of parts) if (p.trim()) this.push(p)
  }

  private push(line: string): void {
    this.lines.push(redact(line, this.secrets))
    if (this.lines.length > this.max) this.lines.shift()
  }

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

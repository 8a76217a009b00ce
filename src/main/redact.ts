// Last line of defence for text that leaves the process (errors, logs): stream keys in ingest URLs and
// bearer tokens are masked. The broadcaster redacts its own ffmpeg output more precisely.
const PATTERNS: [RegExp, string][] = [
  [/(\/live\/)[^\s/"'`?#]+/gi, '$1****'],
  [/(bearer\s+)[^\s"'`]+/gi, '$1****'],
  [/\b[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}\b/gi, '****-****-****-****']
]

export function redactSecrets(text: string, extraSecrets: readonly string[] = []): string {
  let out = text
  for (const s of extraSecrets) if (s.length >= 4) out = out.split(s).join('****')
  for (const [re, to] of PATTERNS) out = out.replace(re, to)
  return out
}

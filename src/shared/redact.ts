// Stream-key and API-key redaction: the one place that decides what a secret looks like in text.
// Every line that leaves a process (ffmpeg's stderr, logs, errors, Results) passes through here.
// Pure string code, so the studio, the main process and the tests all use the same rules.

/**
 * The path segment after `/live/` in an RTMP or HLS URL is a stream key; a query string after it
 * (the studio's puller token) goes with it.
 */
const LIVE_PATH = /(\/live\/)([^\s/'"?#:,;]+)(\?[^\s'"]*)?/g
/** `Authorization: Bearer <key>` and the like. */
const BEARER = /(bearer\s+)[^\s"'`]+/gi
/** Livepeer's key format: four groups of four base-36 characters. */
const KEY_SHAPED = /\b[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}\b/gi
/** Short strings would mangle ordinary words; real keys are long. */
const MIN_SECRET_LENGTH = 6

/** Replaces the path segment after `/live/` and every known secret with `****`. */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text.replace(LIVE_PATH, '$1****')
  for (const s of secrets) {
    if (s && s.length >= MIN_SECRET_LENGTH) out = out.split(s).join('****')
  }
  return out
}

/**
 * The last line of defence for text that leaves the process (errors, logs): on top of `redact`,
 * bearer tokens and anything shaped like a stream key.
 */
export function redactSecrets(text: string, extraSecrets: readonly string[] = []): string {
  return redact(text, extraSecrets)
    .replace(BEARER, '$1****')
    .replace(KEY_SHAPED, '****-****-****-****')
}

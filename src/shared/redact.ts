// Stream-key and API-key redaction: the one place that decides what a secret looks like in text.
// Every line that leaves a process (ffmpeg's stderr, logs, errors, Results) passes through here.
// Pure string code, so the studio, the main process and the tests all use the same rules.

/**
 * The path segment after `/live/` in an RTMP or HLS URL is a stream key; a query string after it
 * (the studio's puller token) goes with it.
 */
const LIVE_PATH = /(\/live\/)([^\s/'"?#:,;]+)(\?[^\s'"]*)?/g
/**
 * Any other RTMP(S) URL with more than one path segment: the first is the app (`live2`, `app`, `rtmp`),
 * the rest (or a query) is the key of a destination such as YouTube or Twitch. Ends before trailing
 * punctuation, so `...: Connection refused` stays readable.
 */
const RTMP_KEY =
  /\b(rtmp[a-z]*:\/\/[^\s/'"<>?#]+\/[^\s/'"<>?#]+)([/?])[^\s'"<>]+?(?=[:.,;)\]]*(?:[\s'"<>]|$))/gi
/** An SRT URL's query carries its stream id (the key) and passphrase. */
const SRT_QUERY = /\b(srt:\/\/[^\s'"<>?#]+)\?[^\s'"<>]+?(?=[:.,;)\]]*(?:[\s'"<>]|$))/gi
/** Credentials in a stream URL (`rtmp://user:password@host/...`). */
const URL_USERINFO = /\b((?:rtmp[a-z]*|srt):\/\/)[^\s/@'"<>]+@/gi
/** SRT's key fields wherever they appear (an option dump, a URL already cut apart). */
const SRT_FIELDS = /\b(streamid|passphrase)=[^\s&'"<>]+/gi
/**
 * A credential in an address's query (a tus upload address's `?token=`, a signed link's `sig=`): its
 * value only, so the rest of the address stays readable.
 */
const TOKEN_QUERY = /([?&](?:token|access_token|jwt|sig|signature)=)[^\s&#'"<>,)]+/gi
/** `Authorization: Bearer <key>` and the like. */
const BEARER = /(bearer\s+)[^\s"'`]+/gi
/** Livepeer's key format: four groups of four base-36 characters. */
const KEY_SHAPED = /\b[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}\b/gi
/** Short strings would mangle ordinary words; real keys are long. */
const MIN_SECRET_LENGTH = 6

/** Replaces the path segment after `/live/`, a destination URL's key and every known secret with `****`. */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text
    .replace(LIVE_PATH, '$1****')
    .replace(RTMP_KEY, '$1$2****')
    .replace(SRT_QUERY, '$1?****')
    .replace(SRT_FIELDS, '$1=****')
    .replace(URL_USERINFO, '$1****@')
  for (const s of secrets) {
    if (s && s.length >= MIN_SECRET_LENGTH) out = out.split(s).join('****')
  }
  return out
}

/**
 * The last line of defence for text that leaves the process (errors, logs): on top of `redact`,
 * bearer tokens, an address's token and anything shaped like a stream key.
 */
export function redactSecrets(text: string, extraSecrets: readonly string[] = []): string {
  return redact(text, extraSecrets)
    .replace(BEARER, '$1****')
    .replace(TOKEN_QUERY, '$1****')
    .replace(KEY_SHAPED, '****-****-****-****')
}

/**
 * A target URL and the parts of it that are the key: the path after its first segment (the RTMP app,
 * e.g. `live2`), the query's values (SRT's streamid and passphrase) and a password, decoded too.
 */
export function targetUrlSecrets(url: string): string[] {
  const out = new Set([url.trim()])
  let u: URL
  try {
    u = new URL(url.trim())
  } catch {
    return [...out]
  }
  const keyPath = u.pathname.split('/').filter(Boolean).slice(1)
  const parts = [
    ...keyPath,
    keyPath.join('/'),
    ...[...u.searchParams.values()].flatMap((v) => [v, encodeURIComponent(v)]),
    u.search.slice(1),
    u.password
  ]
  for (const p of parts) {
    if (!p) continue
    out.add(p)
    try {
      out.add(decodeURIComponent(p))
    } catch {
      // Not valid percent-encoding: the part as written is listed already.
    }
  }
  return [...out]
}

/**
 * A URL for an error message: scheme and host only, the path and query (the stream key, an SRT
 * streamid or passphrase) replaced. Used where the reference service echoes the whole URL.
 */
export function urlForError(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)(?:[^@/?#]*@)?([^/?#]*)(.*)$/is.exec(url)
  if (!m) return '****'
  return redactSecrets(`${m[1]}${m[2]}${m[3] ? '/****' : ''}`)
}

/**
 * node-media-server: its lines print stream paths as "/app/name"; the name is a stream key for a
 * publisher, whatever the app (a key pushed to a wrong app is still a key).
 */
const NMS_STREAM_PATH = /(\/[\w-]+\/)[\w-]+/g
/**
 * node-media-server: RtmpSession.onConnect logs a refused path as "... app=<app>, name=<name>" with
 * the raw values (a key with one bad character in it): everything after them goes.
 */
const NMS_RAW_PATH = /\b(app|name)=.*$/s

/** A node-media-server line as it may leave the process: no stream key in any of its shapes. */
export function redactNmsLine(message: string): string {
  return redactSecrets(message.replace(NMS_RAW_PATH, '$1=****').replace(NMS_STREAM_PATH, '$1****'))
}

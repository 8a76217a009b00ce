// Last line of defence for text that leaves the process (errors, logs): on top of the broadcaster's
// redaction (`live/<key>` and known secrets), bearer tokens and anything shaped like a stream key.
import { redact } from './core/broadcast/redact'

const BEARER = /(bearer\s+)[^\s"'`]+/gi
const KEY_SHAPED = /\b[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}\b/gi

export function redactSecrets(text: string, extraSecrets: readonly string[] = []): string {
  return redact(text, extraSecrets).replace(BEARER, '$1****').replace(KEY_SHAPED, '****-****-****-****')
}

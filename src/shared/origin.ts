// The one origin matcher. The renderer's origin (app://onair packaged, http://localhost:5173 in dev,
// http://127.0.0.1:<port> in the web shell) is compared exactly, as a parsed scheme://host[:port],
// never as a string prefix: a look-alike path, another port, a file:// page or an iframe from
// elsewhere is someone else.

/** `scheme://host[:port]` in lower case, for any URL with a host; null for file:, data:, junk. */
export function originOf(url: string): string | null {
  try {
    const u = new URL(url)
    return u.host ? `${u.protocol}//${u.host}`.toLowerCase() : null
  } catch {
    return null
  }
}

/** True when url is on one of the given origins (each already `scheme://host[:port]`). */
export function isOwnOrigin(url: string, origins: readonly string[]): boolean {
  const o = originOf(url)
  return o !== null && origins.some((x) => x.toLowerCase() === o)
}

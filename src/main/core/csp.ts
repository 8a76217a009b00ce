// The renderer's Content-Security-Policy, written once for both shells (Electron's app:// protocol and
// the web shell's HTTP) and built per page load from the active connection: the page may talk to its
// own origin and to the service it is connected to (API, live and recorded HLS), nothing else.
import type { ConnectionKind } from '../../shared/contract'
import { originOf } from '../../shared/origin'

/** Where Livepeer Studio serves its API, HLS and recordings (its docs and playback-info answers). */
export const LIVEPEER_HOSTS: readonly string[] = [
  'https://livepeer.studio',
  'https://*.livepeer.studio',
  'https://livepeercdn.studio',
  'https://*.livepeercdn.studio',
  'https://*.lp-playback.studio',
  'https://*.lp-playback.monster'
]

export interface ActiveHosts {
  kind: ConnectionKind
  /** The service's API base URL and any other URL it serves media from (ingest's playback base). */
  urls: readonly string[]
}

/** The connect-src entries for the active connection: exact origins, plus Livepeer's CDN hosts. */
export function connectHostsOf(active: ActiveHosts | null): string[] {
  if (!active) return []
  const exact = active.urls.map(originOf).filter((o): o is string => o !== null)
  const extra = active.kind === 'livepeer' ? LIVEPEER_HOSTS : []
  return [...new Set([...exact, ...extra])]
}

/**
 * selfOrigins: where the page itself is served from (its own calls and event socket, e.g. the web
 * shell's http and ws origin); connectHosts: the active service's (connectHostsOf).
 */
export function contentSecurityPolicy(
  connectHosts: readonly string[] = [],
  selfOrigins: readonly string[] = []
): string {
  const connect = ["'self'", ...selfOrigins, ...connectHosts]
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    "worker-src 'self' blob:",
    `connect-src ${[...new Set(connect)].join(' ')}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'"
  ].join('; ')
}

// Electron's security checklist as data and pure predicates, so tests can check them without Electron.

/** The renderer never navigates away from itself: every in-app route is client-side. */
export function isAllowedNavigation(target: string, rendererOrigins: readonly string[]): boolean {
  try {
    const url = new URL(target)
    return rendererOrigins.some((o) =>
      o.startsWith('file://') ? url.href.startsWith(o) : url.origin === o
    )
  } catch {
    return false
  }
}

/** Links the user clicks open in the system browser, https only. */
export function isExternalLinkAllowed(target: string): boolean {
  try {
    return new URL(target).protocol === 'https:'
  } catch {
    return false
  }
}

/** Permission requests: camera/mic/screen for our own renderer only; everything else denied. */
const MEDIA_PERMISSIONS = new Set(['media', 'display-capture', 'clipboard-sanitized-write'])

export function isPermissionAllowed(
  permission: string,
  requestingUrl: string,
  rendererOrigins: readonly string[]
): boolean {
  return MEDIA_PERMISSIONS.has(permission) && isAllowedNavigation(requestingUrl, rendererOrigins)
}

/** The CSP the renderer is served with (also in index.html's meta for file:// loads). */
export function contentSecurityPolicy(connectHosts: readonly string[] = []): string {
  const connect = [
    "'self'",
    'ws://127.0.0.1:*',
    'http://127.0.0.1:*',
    'http://localhost:*',
    'https://livepeer.studio',
    'https://*.livepeer.studio',
    'https://livepeercdn.studio',
    'https://*.livepeercdn.studio',
    'https://*.lp-playback.studio',
    ...connectHosts
  ]
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    "worker-src 'self' blob:",
    `connect-src ${connect.join(' ')}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'"
  ].join('; ')
}

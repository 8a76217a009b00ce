// Electron's security checklist as data and pure predicates, so tests can check them without Electron.
// Origins are compared exactly (shared/origin.ts); the CSP is core/csp.ts, shared with the web shell.
import { isOwnOrigin } from '../../shared/origin'

/** The renderer never navigates away from itself: every in-app route is client-side. */
export function isAllowedNavigation(target: string, rendererOrigins: readonly string[]): boolean {
  return isOwnOrigin(target, rendererOrigins)
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

// The viewer count's words (ViewerCount.tsx): main says why the count is unknown, as a state; the
// sentence is written here. Pure, so tested in Node.
import type { ViewersUnavailable } from '../../../../shared/contract'

/** Why the live bar says "Viewers unknown" (its tooltip). */
export function unavailableText(u: ViewersUnavailable): string {
  switch (u.kind) {
    case 'not-counted':
      return 'This service does not count viewers.'
    case 'key-refused':
      return 'This API key may not read viewer counts (Livepeer gives them to private keys only).'
    case 'failed':
      return u.message
  }
}

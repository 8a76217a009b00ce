// In-app navigation: a handful of screens, so plain state instead of a router (no URLs to deep-link in
// Electron, and the web shell serves one page).
export type Route =
  | { name: 'connection' }
  | { name: 'streams' }
  | { name: 'stream'; id: string }
  | { name: 'live'; streamId?: string }
  | { name: 'sessions' }
  | { name: 'keys' }
  | { name: 'webhooks' }
  | { name: 'stats' }
  | { name: 'about' }

export type Navigate = (route: Route) => void

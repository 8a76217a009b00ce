// Types only: who is watching a stream, as the service counts them.

/**
 * Why there is no viewer count: the service has none ('not-counted'), it refuses this key one
 * ('key-refused': Livepeer gives them to private keys only), or the call failed (its error's sentence).
 */
export type ViewersUnavailable =
  { kind: 'not-counted' } | { kind: 'key-refused' } | { kind: 'failed'; message: string }

/** Who is watching (#20): one viewer per player session, as the service counts them. */
export interface ViewersView {
  now: number | null
  /** Why `now` is null (the live bar words it: features/viewers/viewers-text.ts). */
  unavailable?: ViewersUnavailable
  /** The most viewers read while Onair was last live on this stream (since the app started). */
  peak: number | null
}

// Types only: who is watching a stream, as the service counts them.

/** Who is watching (#20): one viewer per player session, as the service counts them. */
export interface ViewersView {
  now: number | null
  /** Why `now` is null: the service has no viewer count, or refuses this key one. */
  unavailable?: string
  /** The most viewers read while Onair was last live on this stream (since the app started). */
  peak: number | null
}

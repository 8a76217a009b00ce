// Types only: the states of a stream's parts that the contract (contract/) carries and the pure rules
// beside it (destinations.ts, stream-health.ts) compute. They live here, below all three, so that
// the contract and those rules need not import each other in a circle; both of those files export
// them again under the same names.

/**
 * A destination's live state: idle while the stream is not active; starting until media has flowed to
 * the target for DESTINATION_LIVE_AFTER_US (destinations.ts); live only then; retrying (with the
 * reason) after a failed attempt.
 */
export type DestinationState = 'idle' | 'starting' | 'live' | 'retrying' | 'disabled'

/** One condition of Livepeer's health answer (`conditions[]`): status null = not known yet. */
export interface HealthCondition {
  type: string
  status: boolean | null
}

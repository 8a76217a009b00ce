// Types only: a stream's destinations (multistream targets) as the contract carries them; the rules
// that make their states are in shared/destinations.ts.
import type { DestinationState } from '../stream-states'
import type { StreamTargetRef } from './streams'

/** One place the service forwards a stream to. Its URL (with the key) is never returned by the service. */
export interface DestinationView extends StreamTargetRef {
  name: string
  disabled: boolean
  /** idle while the stream is not active; live, retrying (with the reason) or disabled while it is. */
  state: DestinationState
  reason?: string
}

export interface DestinationsView {
  streamId: string
  streamActive: boolean
  destinations: DestinationView[]
}

export interface AddDestinationArgs {
  streamId: string
  name: string
  /** server URL + "/" + stream key (shared/destinations.ts buildTargetUrl): sent once, never shown again. */
  url: string
  profile: string
  videoOnly: boolean
}

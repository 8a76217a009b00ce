// A stream's destinations, shared by every screen that shows them (the stream page and the live
// banner) through the stream's one store (lib/stream-store.ts): one read at a time per stream, one
// poller while any screen asks for it (the same one that reads the stream for the stream page), and
// a change made on the stream page shows in the banner at once.
import { useCallback, useEffect, useSyncExternalStore } from 'react'
import type { DestinationsView } from '../../../../shared/contract'
import type { Snapshot } from '../../lib/stream-store'
import { useStreamStore } from '../../lib/use-stream'

export interface Destinations extends Omit<Snapshot<DestinationsView>, 'value'> {
  view?: DestinationsView
  reload: () => Promise<void>
  set: (view: DestinationsView) => void
}

/** The stream's destinations; their states follow the stream's reads while `poll` (it is live). */
export function useDestinations(streamId: string, poll: boolean): Destinations {
  const store = useStreamStore()
  const snap = useSyncExternalStore(
    useCallback((fn: () => void) => store.subscribe(streamId, fn), [store, streamId]),
    () => store.destinations(streamId)
  )
  useEffect(() => {
    // Going live (or ending) changes every state: read now, then keep reading while live.
    void store.loadDestinations(streamId)
    return poll ? store.poll(streamId) : undefined
  }, [store, streamId, poll])
  return {
    loading: snap.loading,
    view: snap.value,
    error: snap.error,
    reload: useCallback(() => store.loadDestinations(streamId), [store, streamId]),
    set: useCallback(
      (view: DestinationsView) => store.setDestinations(streamId, view),
      [store, streamId]
    )
  }
}

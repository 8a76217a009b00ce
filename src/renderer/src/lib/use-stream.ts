// The hooks on the stream store (stream-store.ts): every screen of the app shares one store per api.
import { useCallback, useEffect, useSyncExternalStore } from 'react'
import type { OnairApi, StreamView } from '../../../shared/contract'
import { useApi } from './api'
import { StreamStore, type Snapshot } from './stream-store'

const stores = new WeakMap<OnairApi, StreamStore>()

/** The store of this api: every screen of the app shares it. */
export function useStreamStore(): StreamStore {
  const api = useApi()
  let s = stores.get(api)
  if (!s) stores.set(api, (s = new StreamStore(api)))
  return s
}

export interface StreamState extends Snapshot<StreamView> {
  reload: () => void
  set: (value: StreamView) => void
}

/** The stream, read on mount (and by `reload`). */
export function useStream(id: string): StreamState {
  const store = useStreamStore()
  const snap = useSyncExternalStore(
    useCallback((fn: () => void) => store.subscribe(id, fn), [store, id]),
    () => store.stream(id)
  )
  useEffect(() => void store.loadStream(id), [store, id])
  return {
    ...snap,
    reload: useCallback(() => void store.loadStream(id), [store, id]),
    set: useCallback((v: StreamView) => store.setStream(id, v), [store, id])
  }
}

/** While `on`, the stream is read every STREAM_POLL_MS: by one poller, however many screens ask. */
export function useStreamPoll(id: string, on: boolean): void {
  const store = useStreamStore()
  useEffect(() => (on ? store.poll(id) : undefined), [store, id, on])
}

// A stream's destinations, shared by every screen that shows them (the stream page and the live
// banner): one read at a time per stream, one poll while any of them asks for it, and a change made on
// the stream page shows in the banner at once.
import { useCallback, useEffect, useSyncExternalStore } from 'react'
import type { DestinationsView, OnairApi } from '../../../../shared/contract'
import type { AppError } from '../../../../shared/result'
import { useApi } from '../../lib/api'
import { toAppError } from '../../lib/use-result'

/** How often the state is read again while live: the service notices a failing target within seconds. */
export const DESTINATIONS_POLL_MS = 3000

export interface DestinationsSnapshot {
  view?: DestinationsView
  error?: AppError
  loading: boolean
}

const EMPTY: DestinationsSnapshot = { loading: true }

class DestinationsStore {
  private snaps = new Map<string, DestinationsSnapshot>()
  private listeners = new Map<string, Set<() => void>>()
  private pollers = new Map<string, number>()
  private timers = new Map<string, ReturnType<typeof setInterval>>()
  private inflight = new Map<string, Promise<void>>()

  constructor(private readonly api: OnairApi) {}

  get(id: string): DestinationsSnapshot {
    return this.snaps.get(id) ?? EMPTY
  }

  subscribe(id: string, fn: () => void): () => void {
    const set = this.listeners.get(id) ?? new Set()
    this.listeners.set(id, set)
    set.add(fn)
    if (!this.snaps.has(id)) void this.load(id)
    return () => set.delete(fn)
  }

  /** Keeps reading while at least one caller polls. */
  poll(id: string): () => void {
    this.pollers.set(id, (this.pollers.get(id) ?? 0) + 1)
    if (!this.timers.has(id))
      this.timers.set(
        id,
        setInterval(() => void this.load(id), DESTINATIONS_POLL_MS)
      )
    return () => {
      const n = (this.pollers.get(id) ?? 1) - 1
      this.pollers.set(id, n)
      if (n > 0) return
      clearInterval(this.timers.get(id))
      this.timers.delete(id)
    }
  }

  /** One read at a time per stream: a poll tick during a slow answer does not queue another. */
  load(id: string): Promise<void> {
    const running = this.inflight.get(id)
    if (running) return running
    const p = this.api
      .listDestinations(id)
      .then(
        (r) =>
          this.put(
            id,
            r.ok
              ? { loading: false, view: r.value }
              : { ...this.get(id), loading: false, error: r.error }
          ),
        (e: unknown) => this.put(id, { ...this.get(id), loading: false, error: toAppError(e) })
      )
      .finally(() => this.inflight.delete(id))
    this.inflight.set(id, p)
    return p
  }

  /** A fresh view from a change (add, switch, delete) replaces what was read before. */
  set(id: string, view: DestinationsView): void {
    this.put(id, { loading: false, view })
  }

  private put(id: string, snap: DestinationsSnapshot): void {
    this.snaps.set(id, snap)
    for (const fn of this.listeners.get(id) ?? []) fn()
  }
}

const stores = new WeakMap<OnairApi, DestinationsStore>()
const storeOf = (api: OnairApi): DestinationsStore => {
  let s = stores.get(api)
  if (!s) stores.set(api, (s = new DestinationsStore(api)))
  return s
}

export interface Destinations extends DestinationsSnapshot {
  reload: () => Promise<void>
  set: (view: DestinationsView) => void
}

/** The stream's destinations; read again every few seconds while `poll` (the stream is live). */
export function useDestinations(streamId: string, poll: boolean): Destinations {
  const store = storeOf(useApi())
  const snap = useSyncExternalStore(
    useCallback((fn: () => void) => store.subscribe(streamId, fn), [store, streamId]),
    () => store.get(streamId)
  )
  useEffect(() => {
    // Going live (or ending) changes every state: read now, then keep reading while live.
    void store.load(streamId)
    return poll ? store.poll(streamId) : undefined
  }, [store, streamId, poll])
  return {
    ...snap,
    reload: useCallback(() => store.load(streamId), [store, streamId]),
    set: useCallback((view: DestinationsView) => store.set(streamId, view), [store, streamId])
  }
}

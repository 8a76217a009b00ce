// One stream as every screen shows it (the stream page, its Destinations, the live banner's summary):
// one read of the stream at a time, and while any of them asks for it, one poller per stream. Each
// tick reads the stream once (GET /stream/{id}); the destinations' states come from that same read
// (shared/destinations.ts destinationsOf). The targets' names and switches are not in the stream's
// answer, and the service has no list of just this stream's targets (Livepeer lists them only by
// userId), so they are read again (listDestinations: the stream and each target) only when the
// stream's targets change, or at most every TARGETS_REFRESH_MS, in place of that tick's stream read.
import type { DestinationsView, OnairApi, StreamView } from '../../../shared/contract'
import { destinationsOf, targetsOf } from '../../../shared/destinations'
import type { AppError, Result } from '../../../shared/result'
import { toAppError } from './use-result'

/** How often a live stream is read: its isActive drops a moment after ingest ends (the page's locks). */
export const STREAM_POLL_MS = 2000
/** A target switched or renamed elsewhere (another app, the service's dashboard) shows within this. */
export const TARGETS_REFRESH_MS = 15_000

export interface Snapshot<T> {
  loading: boolean
  value?: T
  error?: AppError
}

interface Entry {
  stream: Snapshot<StreamView>
  destinations: Snapshot<DestinationsView>
  listeners: Set<() => void>
  pollers: number
  timer?: ReturnType<typeof setInterval>
  streamRead?: Promise<void>
  destinationsRead?: Promise<void>
  /** When the targets were last read (0: they are due, e.g. the stream's targets changed). */
  targetsReadAt: number
  /** Some screen shows the destinations: a tick without a view of them (a failed read) retries it. */
  showsDestinations: boolean
}

const LOADING = { loading: true } as const

/** One of an entry's two snapshots, and what a failed read does to it. */
interface Slot<T> {
  get(e: Entry): Snapshot<T>
  set(e: Entry, snap: Snapshot<T>): void
  keepsValue: boolean
}
const STREAM: Slot<StreamView> = {
  get: (e) => e.stream,
  set: (e, s) => (e.stream = s),
  keepsValue: false
}
const DESTINATIONS: Slot<DestinationsView> = {
  get: (e) => e.destinations,
  set: (e, s) => (e.destinations = s),
  keepsValue: true
}

const sameTargets = (s: StreamView, v: DestinationsView): boolean =>
  s.multistream.length === v.destinations.length &&
  s.multistream.every((t, i) => {
    const d = v.destinations[i]!
    return d.id === t.id && d.profile === t.profile && d.videoOnly === t.videoOnly
  })

export class StreamStore {
  private entries = new Map<string, Entry>()

  constructor(
    private readonly api: OnairApi,
    private readonly now: () => number = Date.now
  ) {}

  stream(id: string): Snapshot<StreamView> {
    return this.entries.get(id)?.stream ?? LOADING
  }

  destinations(id: string): Snapshot<DestinationsView> {
    return this.entries.get(id)?.destinations ?? LOADING
  }

  subscribe(id: string, fn: () => void): () => void {
    const e = this.entry(id)
    e.listeners.add(fn)
    return () => e.listeners.delete(fn)
  }

  /** Keeps reading while at least one caller polls: one timer per stream, however many ask. */
  poll(id: string): () => void {
    const e = this.entry(id)
    e.pollers++
    e.timer ??= setInterval(() => this.tick(e, id), STREAM_POLL_MS)
    return () => {
      if (--e.pollers > 0) return
      clearInterval(e.timer)
      e.timer = undefined
    }
  }

  /** Reads the stream (one read at a time: a caller during a read gets that read). */
  loadStream(id: string): Promise<void> {
    const e = this.entry(id)
    e.streamRead ??= this.read(this.api.getStream(id), e, STREAM, (value) =>
      this.follow(e, value)
    ).finally(() => (e.streamRead = undefined))
    return e.streamRead
  }

  /** Reads the destinations with their targets (one read at a time per stream). */
  loadDestinations(id: string): Promise<void> {
    const e = this.entry(id)
    e.showsDestinations = true
    e.destinationsRead ??= this.read(
      this.api.listDestinations(id),
      e,
      DESTINATIONS,
      () => (e.targetsReadAt = this.now())
    ).finally(() => (e.destinationsRead = undefined))
    return e.destinationsRead
  }

  /** A fresh stream from a change (record, profiles) replaces what was read before. */
  setStream(id: string, value: StreamView): void {
    const e = this.entry(id)
    this.put(e, STREAM, { loading: false, value })
    this.follow(e, value)
  }

  /** A fresh view from a change (add, switch, delete) replaces what was read before. */
  setDestinations(id: string, value: DestinationsView): void {
    const e = this.entry(id)
    e.targetsReadAt = this.now()
    this.put(e, DESTINATIONS, { loading: false, value })
  }

  private tick(e: Entry, id: string): void {
    // A slow answer is not queued behind: the next tick asks again.
    if (e.streamRead || e.destinationsRead) return
    const due = !e.destinations.value || this.now() - e.targetsReadAt >= TARGETS_REFRESH_MS
    if (e.showsDestinations && due) {
      // The targets' read reads the stream too: it stands in for this tick's stream read.
      void this.loadDestinations(id).then(() => this.patchStream(e))
      return
    }
    void this.loadStream(id)
  }

  /** The destinations follow each newer read of the stream, without another request. */
  private follow(e: Entry, stream: StreamView): void {
    const view = e.destinations.value
    if (!view) return
    if (!sameTargets(stream, view)) {
      // Added or removed elsewhere: their names are read on the next tick.
      e.targetsReadAt = 0
      return
    }
    this.put(e, DESTINATIONS, { loading: false, value: destinationsOf(stream, targetsOf(view)) })
  }

  /** After a tick that read the destinations: the stream's live flag and targets from that read. */
  private patchStream(e: Entry): void {
    const s = e.stream.value
    const v = e.destinations.value
    if (!s || !v || e.destinations.error) return
    const multistream = v.destinations.map(({ id, profile, videoOnly }) => ({
      id,
      profile,
      videoOnly
    }))
    this.put(e, STREAM, {
      loading: false,
      value: { ...s, isActive: v.streamActive, multistream }
    })
  }

  private read<T>(
    call: Promise<Result<T>>,
    e: Entry,
    slot: Slot<T>,
    onValue: (value: T) => void
  ): Promise<void> {
    this.put(e, slot, { ...slot.get(e), loading: true })
    const failed = (error: AppError): void =>
      // The stream page shows a failed read as its error (with Retry), as before; the destinations
      // keep the last view they had beside the error.
      this.put(
        e,
        slot,
        slot.keepsValue ? { ...slot.get(e), loading: false, error } : { loading: false, error }
      )
    return call.then(
      (r) => {
        if (!r.ok) return failed(r.error)
        this.put(e, slot, { loading: false, value: r.value })
        onValue(r.value)
      },
      (err: unknown) => failed(toAppError(err))
    )
  }

  private put<T>(e: Entry, slot: Slot<T>, snap: Snapshot<T>): void {
    slot.set(e, snap)
    for (const fn of e.listeners) fn()
  }

  private entry(id: string): Entry {
    let e = this.entries.get(id)
    if (!e)
      this.entries.set(
        id,
        (e = {
          stream: LOADING,
          destinations: LOADING,
          listeners: new Set(),
          pollers: 0,
          targetsReadAt: 0,
          showsDestinations: false
        })
      )
    return e
  }
}

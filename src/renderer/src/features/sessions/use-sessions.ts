// Sessions, page by page as the list scrolls, with waiting recordings refreshed in place until they
// settle (ready, failed...). Polls only while something is waiting, and only a few rows at a time.
import { useCallback, useEffect, useRef, useState } from 'react'
import type { SessionView } from '../../../../shared/contract'
import type { AppError } from '../../../../shared/result'
import { useApi } from '../../lib/api'

const PAGE = 200
const POLL_MS = 3000
const FAST_POLL_MS = 1000
const FAST_FOR_MS = 20_000
const POLL_BATCH = 20

export interface SessionsState {
  items: SessionView[]
  total?: number
  hasMore: boolean
  loading: boolean
  error: AppError | null
  loadMore: () => void
  refresh: () => void
  /** Rows the list shows now: polled first. */
  setVisible: (from: number, to: number) => void
}

export function useSessions(streamId?: string): SessionsState {
  const api = useApi()
  const [items, setItems] = useState<SessionView[]>([])
  const [next, setNext] = useState<string | undefined>()
  const [total, setTotal] = useState<number | undefined>()
  const [loading, setLoading] = useState(true)
  const [error, setError] = useState<AppError | null>(null)
  const busy = useRef(false)
  const itemsRef = useRef(items)
  itemsRef.current = items
  const visible = useRef<[number, number]>([0, 50])
  const generation = useRef(0)

  const fetchPage = useCallback(
    async (cursor: string | undefined, mode: 'replace' | 'append' | 'merge-first') => {
      if (busy.current && mode === 'append') return
      busy.current = true
      const gen = generation.current
      setLoading(true)
      const r = await api.listSessions({ streamId, cursor, limit: PAGE })
      busy.current = false
      if (gen !== generation.current) return
      setLoading(false)
      if (!r.ok) return setError(r.error)
      setError(null)
      const page = r.value
      if (page.total !== undefined) setTotal(page.total)
      if (mode === 'append') {
        setItems((prev) => {
          const seen = new Set(prev.map((s) => s.id))
          return [...prev, ...page.items.filter((s) => !seen.has(s.id))]
        })
        setNext(page.next)
      } else if (mode === 'replace') {
        setItems(page.items)
        setNext(page.next)
      } else {
        // New sessions arrive at the top; rows already loaded further down stay where they are.
        setItems((prev) => {
          const fresh = new Set(page.items.map((s) => s.id))
          const rest = prev.filter((s) => !fresh.has(s.id))
          if (rest.length === 0) setNext(page.next)
          return [...page.items, ...rest]
        })
      }
    },
    [api, streamId]
  )

  useEffect(() => {
    generation.current++
    setItems([])
    setNext(undefined)
    setTotal(undefined)
    void fetchPage(undefined, 'replace')
  }, [fetchPage])

  // A copy on this computer changes by itself (saved at the stop, finished on the start after a cut):
  // its row shows the change at once.
  useEffect(
    () =>
      api.on('live:local-recording', (v) =>
        setItems((prev) =>
          prev.some((s) => s.localRecording?.id === v.id)
            ? prev.map((s) => (s.localRecording?.id === v.id ? { ...s, localRecording: v } : s))
            : prev
        )
      ),
    [api]
  )

  const anyWaiting = items.some((s) => s.recordingStatus === 'waiting')
  useEffect(() => {
    if (!anyWaiting) return
    // A recording usually settles within seconds of the stop: ask often at first, then every few s.
    const since = Date.now()
    let timer: ReturnType<typeof setTimeout>
    let stopped = false
    const poll = async (): Promise<void> => {
      const list = itemsRef.current
      const [from, to] = visible.current
      const ids: string[] = []
      const pick = (s: SessionView | undefined): void => {
        if (s?.recordingStatus === 'waiting' && ids.length < POLL_BATCH && !ids.includes(s.id))
          ids.push(s.id)
      }
      for (let i = from; i <= to; i++) pick(list[i])
      for (const s of list) pick(s)
      const got = await Promise.all(ids.map((id) => api.getSession(id)))
      const fresh = new Map<string, SessionView>()
      got.forEach((r) => r.ok && fresh.set(r.value.id, r.value))
      if (fresh.size) setItems((prev) => prev.map((s) => fresh.get(s.id) ?? s))
      if (!stopped)
        timer = setTimeout(poll, Date.now() - since < FAST_FOR_MS ? FAST_POLL_MS : POLL_MS)
    }
    timer = setTimeout(poll, FAST_POLL_MS)
    return () => {
      stopped = true
      clearTimeout(timer)
    }
  }, [anyWaiting, api])

  return {
    items,
    total,
    hasMore: next !== undefined,
    loading,
    error,
    loadMore: () => {
      if (next) void fetchPage(next, 'append')
    },
    refresh: () => void fetchPage(undefined, itemsRef.current.length ? 'merge-first' : 'replace'),
    setVisible: (from, to) => {
      visible.current = [from, to]
    }
  }
}

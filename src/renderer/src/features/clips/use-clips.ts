// Making clips and following them until the service has cut them (#20), and a session's clips and
// markers, read once and again after a change.
import { useCallback, useEffect, useRef, useState } from 'react'
import type { ClipView, CreateClipArgs, MarkerView } from '../../../../shared/contract'
import type { AppError } from '../../../../shared/result'
import { useApi } from '../../lib/api'

/** How often a clip being cut is read again. */
const POLL_MS = 1000

const settled = (c: ClipView): boolean => c.state === 'ready' || c.state === 'failed'

/** Asks for a clip, then reads it every second until it is ready or failed. */
export function useClipMaker(onSettled?: (c: ClipView) => void): {
  clip: ClipView | null
  error: AppError | null
  busy: boolean
  make: (args: CreateClipArgs) => Promise<void>
  reset: () => void
} {
  const api = useApi()
  const [clip, setClip] = useState<ClipView | null>(null)
  const [error, setError] = useState<AppError | null>(null)
  const [busy, setBusy] = useState(false)
  const settledRef = useRef(onSettled)
  settledRef.current = onSettled

  useEffect(() => {
    if (!clip || settled(clip)) return
    const t = setTimeout(() => {
      void api.getClip(clip.id).then((r) => {
        if (!r.ok) return setError(r.error)
        setClip(r.value)
        if (settled(r.value)) settledRef.current?.(r.value)
      })
    }, POLL_MS)
    return () => clearTimeout(t)
  }, [api, clip])

  const make = useCallback(
    async (args: CreateClipArgs) => {
      setBusy(true)
      setError(null)
      setClip(null)
      const r = await api.createClip(args)
      setBusy(false)
      if (!r.ok) return setError(r.error)
      setClip(r.value)
      if (settled(r.value)) settledRef.current?.(r.value)
    },
    [api]
  )
  return { clip, error, busy, make, reset: () => (setClip(null), setError(null)) }
}

/** A list read from the service (or the app) once, and again on reload(). */
function useList<T>(
  read: () => Promise<{ ok: true; value: T[] } | { ok: false; error: AppError }>,
  key: string
): { items: T[]; error: AppError | null; reload: () => void } {
  const [items, setItems] = useState<T[]>([])
  const [error, setError] = useState<AppError | null>(null)
  const [n, setN] = useState(0)
  const readRef = useRef(read)
  readRef.current = read
  useEffect(() => {
    let gone = false
    void readRef.current().then((r) => {
      if (gone) return
      if (r.ok) {
        setItems(r.value)
        setError(null)
      } else setError(r.error)
    })
    return () => {
      gone = true
    }
  }, [key, n])
  return { items, error, reload: () => setN((x) => x + 1) }
}

export function useSessionClips(streamId: string, sessionId: string) {
  const api = useApi()
  return useList<ClipView>(() => api.listClips({ streamId, sessionId }), `${streamId}/${sessionId}`)
}

/** A stream's markers between from and to (a session's first and last media). */
export function useMarkers(streamId: string, from: number, to: number) {
  const api = useApi()
  return useList<MarkerView>(
    () => api.listMarkers({ streamId, from, to }),
    `${streamId}/${from}/${to}`
  )
}

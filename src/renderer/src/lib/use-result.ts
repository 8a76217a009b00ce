// Loads one Result-returning call and keeps loading / value / error apart, with reload for "try again".
import { useCallback, useEffect, useRef, useState } from 'react'
import type { AppError, Result } from '../../../shared/result'

export interface Loaded<T> {
  loading: boolean
  value?: T
  error?: AppError
  reload: () => void
  set: (value: T) => void
}

export function useResult<T>(load: () => Promise<Result<T>>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ loading: boolean; value?: T; error?: AppError }>({
    loading: true
  })
  const [tick, setTick] = useState(0)
  const loadRef = useRef(load)
  loadRef.current = load

  useEffect(() => {
    let live = true
    setState((s) => ({ ...s, loading: true }))
    loadRef
      .current()
      .then((r) => {
        if (!live) return
        setState(r.ok ? { loading: false, value: r.value } : { loading: false, error: r.error })
      })
      .catch((e: unknown) => {
        if (live) setState({ loading: false, error: toAppError(e) })
      })
    return () => {
      live = false
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick])

  const reload = useCallback(() => setTick((t) => t + 1), [])
  const set = useCallback((value: T) => setState({ loading: false, value }), [])
  return { ...state, reload, set }
}

/** A bridge that throws (it should not) still ends as a message on screen, never a blank panel. */
export function toAppError(e: unknown): AppError {
  return { code: 'internal', message: e instanceof Error ? e.message : String(e) }
}

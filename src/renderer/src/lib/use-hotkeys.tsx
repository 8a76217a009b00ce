// The hotkey hub in React (#20): HotkeysProvider owns the one HotkeyHub (lib/hotkeys.ts), reads the
// chosen keys, listens to the page's keys and to Electron's background keys; features act on keys with
// useHotkey(action, handler), and the Keys panel reads and saves them with useHotkeySettings().
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode
} from 'react'
import type { HotkeysView } from '../../../shared/contract'
import type { AppError } from '../../../shared/result'
import type { HotkeyAction, HotkeySettings } from '../../../shared/hotkeys'
import { useApi } from './api'
import { HotkeyHub, type HotkeyHandler } from './hotkeys'

interface HotkeysContext {
  hub: HotkeyHub
  view: HotkeysView | null
  loadError: AppError | null
  /** Keeps the keys (main registers them again for the background); answers an error, or null. */
  save(settings: HotkeySettings): Promise<AppError | null>
}

const Ctx = createContext<HotkeysContext | null>(null)

export function HotkeysProvider({ children }: { children: ReactNode }): ReactNode {
  const api = useApi()
  const hub = useMemo(() => new HotkeyHub(), [])
  const [view, setView] = useState<HotkeysView | null>(null)
  const [loadError, setLoadError] = useState<AppError | null>(null)

  const show = useCallback(
    (v: HotkeysView) => {
      hub.setBindings(
        v.settings.bindings,
        v.status.os,
        v.status.registered.map((r) => r.accelerator)
      )
      setView(v)
    },
    [hub]
  )

  useEffect(() => {
    void api.getHotkeys().then((r) => (r.ok ? show(r.value) : setLoadError(r.error)))
  }, [api, show])
  useEffect(() => hub.attach(window), [hub])
  useEffect(
    () => api.on('hotkey:action', (e) => void hub.dispatch(e.action, 'down', 'background')),
    [api, hub]
  )

  const save = useCallback(
    async (settings: HotkeySettings): Promise<AppError | null> => {
      const r = await api.setHotkeys(settings)
      if (!r.ok) return r.error
      show(r.value)
      return null
    },
    [api, show]
  )

  const value = useMemo(() => ({ hub, view, loadError, save }), [hub, view, loadError, save])
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>
}

function useHotkeysContext(): HotkeysContext {
  const c = useContext(Ctx)
  if (!c) throw new Error('hotkeys used outside HotkeysProvider')
  return c
}

/**
 * Acts on a key action while the calling component is mounted. The handler gets { action, phase,
 * source } (phase 'up' only for push-to-talk and push-to-mute) and may answer false to pass the key
 * on to a handler registered earlier. The latest handler is always the one called (no re-register).
 */
export function useHotkey(action: HotkeyAction, handler: HotkeyHandler): void {
  const { hub } = useHotkeysContext()
  const latest = useRef(handler)
  latest.current = handler
  useEffect(() => hub.on(action, (e) => latest.current(e)), [hub, action])
}

/** The chosen keys and how they stand, for the Keys panel (and hints that name a key). */
export function useHotkeySettings(): HotkeysContext {
  return useHotkeysContext()
}

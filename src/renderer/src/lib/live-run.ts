// What the screens outside the live page read of the live run: its state, its health, and for the
// stats view the scene compositor's counts and the frames this computer skipped. The live page's
// LiveProvider (features/live/live-context.tsx) provides it; no other feature imports the live page.
import { createContext, useContext } from 'react'
import type { LiveHealthEvent, LiveStateEvent } from '../../../shared/contract'

export interface LiveRunView {
  run: LiveStateEvent | null
  health: LiveHealthEvent | null
  running: boolean
  /**
   * A scene broadcast's compositor while the run goes (one object per program, so a new program is
   * told apart): the frames it drew and those that came late, so far; null otherwise.
   */
  compositor: { stats(): { ticks: number; late: number } } | null
  /** Frames this computer skipped before Onair's encoder in this run, when Onair encodes it. */
  pageSkips: number | undefined
}

export const LiveRunContext = createContext<LiveRunView | null>(null)

export function useLiveRun(): LiveRunView {
  const v = useContext(LiveRunContext)
  if (!v) throw new Error('useLiveRun outside LiveProvider')
  return v
}

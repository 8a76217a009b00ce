// Which live states count as running and which as finished: one classification for the supervisor,
// the broadcaster and the renderer.
import type { LiveState } from './contract'

/** A run that holds the camera and the stream: a second Go live is refused. */
export const RUNNING_STATES: readonly LiveState[] = [
  'connecting',
  'live',
  'reconnecting',
  'stopping'
]
/** A run that is over: nothing more will happen to it. */
export const FINAL_STATES: readonly LiveState[] = ['ended', 'failed']

export const isRunning = (s: LiveState | undefined): boolean => !!s && RUNNING_STATES.includes(s)
export const isFinal = (s: LiveState | undefined): boolean => !!s && FINAL_STATES.includes(s)

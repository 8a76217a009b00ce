// Builds window.onair from two primitives, so the shape is testable without Electron:
// exactly one function per contract call, plus on(event, fn) -> unsubscribe. Nothing else.
import {
  CALL_NAMES,
  EVENT_NAMES,
  channelOf,
  type EventName,
  type OnairApi,
  type OnairEvents
} from '../shared/contract'
import type { Result } from '../shared/result'

export type Invoke = (channel: string, ...args: unknown[]) => Promise<Result<unknown>>
export type Subscribe = (channel: string, fn: (payload: unknown) => void) => () => void

const KNOWN_EVENTS = new Set<string>(EVENT_NAMES)

/**
 * overrides: a call that goes another way than invoke (pushFrames over the frames port,
 * frame-port.ts); only contract calls, so the shape stays the contract's.
 */
export function buildApi(
  invoke: Invoke,
  subscribe: Subscribe,
  overrides: Partial<Record<(typeof CALL_NAMES)[number], (...args: never[]) => unknown>> = {}
): OnairApi {
  const api: Record<string, unknown> = {}
  for (const name of CALL_NAMES) {
    api[name] = overrides[name] ?? ((...args: unknown[]) => invoke(channelOf(name), ...args))
  }
  api.on = <E extends EventName>(event: E, fn: (p: OnairEvents[E]) => void): (() => void) => {
    if (!KNOWN_EVENTS.has(event)) throw new Error(`Unknown event: ${String(event)}`)
    return subscribe(channelOf(event), (payload) => fn(payload as OnairEvents[E]))
  }
  return Object.freeze(api) as OnairApi
}

// A small typed event hub: the core emits contract events; each shell forwards them to its renderer.
import type { EventName, OnairEvents } from '../../shared/contract'

type Listener<E extends EventName> = (payload: OnairEvents[E]) => void

export class CoreEvents {
  private listeners = new Map<EventName, Set<Listener<EventName>>>()

  on<E extends EventName>(event: E, fn: Listener<E>): () => void {
    let set = this.listeners.get(event)
    if (!set) this.listeners.set(event, (set = new Set()))
    set.add(fn as Listener<EventName>)
    return () => set.delete(fn as Listener<EventName>)
  }

  emit<E extends EventName>(event: E, payload: OnairEvents[E]): void {
    for (const fn of this.listeners.get(event) ?? []) {
      try {
        fn(payload)
      } catch {
        // A broken listener (a closed window, a dropped socket) must not stop the others.
      }
    }
  }
}

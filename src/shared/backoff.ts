// The one retry backoff: the broadcaster's reconnects, the studio's forwarder and transcoder restarts
// (through node/restart-loop.ts), the app's local-studio restarts and the web bridge's event-socket
// reconnects all wait by this rule (each with its own numbers).

export interface Backoff {
  initialMs: number
  factor: number
  capMs: number
  /** ± fraction of the delay, so many clients do not retry in lockstep (0 = none). */
  jitter: number
}

/** The broadcaster's reconnect policy: 1 s, 1.5 s, 2.25 s ... capped at 30 s, ±20 %. */
export const RECONNECT_BACKOFF: Backoff = {
  initialMs: 1000,
  factor: 1.5,
  capMs: 30_000,
  jitter: 0.2
}

/** attempt is 1-based: initial, initial×factor, ... capped, each ± jitter (and never above the cap). */
export function backoffDelay(
  attempt: number,
  b: Backoff,
  random: () => number = Math.random
): number {
  const base = Math.min(b.capMs, b.initialMs * Math.pow(b.factor, Math.max(0, attempt - 1)))
  const jittered = base * (1 + b.jitter * (random() * 2 - 1))
  return Math.round(Math.max(0, Math.min(b.capMs, jittered)))
}

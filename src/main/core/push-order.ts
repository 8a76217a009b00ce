// The page's encoded media (pushMedia) in order. The page's own encoder keeps more than one push in
// flight (webcodecs-pusher.ts), each with its sequence number: waiting for each answer before the next
// push held every chunk a round trip of the page's busy thread (#34). Electron's IPC keeps a sender's
// order; the web shell's POSTs, sent on more than one connection, may reach main out of order. Main
// hands each run's pushes on in sequence order, holding one that came early until those before it
// have come. A push without a number (MediaRecorder's, one at a time) goes on at once.
import { AppFailure } from '../../shared/result'

/** Pushes held for one that has not come: the page keeps a few in flight, never this many. */
const MAX_HELD = 64
/** Runs whose count is kept: a late push of the run before the current one still finds its own. */
const RUNS_KEPT = 4

/** One run's count: the next number, the pushes that came early, the takes still going. */
interface RunOrder {
  next: number
  held: Map<number, Uint8Array>
  tail: Promise<void>
}

export class PushOrder {
  private readonly runs = new Map<string, RunOrder>()

  /** Hands `chunk` (and any held pushes it lets go) to `take`, in its run's order. */
  async push(
    runId: string,
    chunk: Uint8Array,
    seq: number | undefined,
    take: (chunk: Uint8Array) => Promise<void>
  ): Promise<void> {
    if (seq === undefined) return take(chunk)
    // Each run (a reconnect is a new run too) counts from 0, on its own.
    let run = this.runs.get(runId)
    if (!run) {
      run = { next: 0, held: new Map(), tail: Promise.resolve() }
      this.runs.set(runId, run)
      for (const old of this.runs.keys()) {
        if (this.runs.size <= RUNS_KEPT) break
        this.runs.delete(old)
      }
    }
    if (seq < run.next || run.held.has(seq))
      throw new AppFailure({
        code: 'bad-request',
        message: `Push ${seq} of this broadcast was already taken.`,
        hint: 'Number each push once, from 0.'
      })
    if (seq > run.next) {
      if (run.held.size >= MAX_HELD) {
        run.held.clear()
        throw new AppFailure({
          code: 'media',
          message: `Push ${run.next} of this broadcast is missing: ${MAX_HELD} later ones came without it.`,
          hint: 'Go live again.'
        })
      }
      run.held.set(seq, chunk)
      return
    }
    // This push and the held ones right after it, taken in order, after any still being taken.
    const ready = [chunk]
    run.next++
    for (let c = run.held.get(run.next); c; c = run.held.get(run.next)) {
      run.held.delete(run.next)
      run.next++
      ready.push(c)
    }
    const done = run.tail.then(async () => {
      for (const c of ready) await take(c)
    })
    run.tail = done.catch(() => {})
    return done
  }
}

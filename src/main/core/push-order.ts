// The page's encoded media (pushMedia) in order. The page's own encoder keeps more than one push in
// flight (webcodecs-pusher.ts), each with its sequence number: waiting for each answer before the next
// push held every chunk a round trip of the page's busy thread (#34). Electron's IPC keeps a sender's
// order; the web shell's POSTs, sent on more than one connection, may reach main out of order. Main
// hands each run's pushes on in sequence order, holding one that came early until those before it
// have come. A push without a number (MediaRecorder's, one at a time) goes on at once.
import { AppFailure } from '../../shared/result'

/** Pushes held for one that has not come: the page keeps a few in flight, never this many. */
const MAX_HELD = 64

export class PushOrder {
  private runId: string | undefined
  private next = 0
  private held = new Map<number, Uint8Array>()
  private tail: Promise<void> = Promise.resolve()

  /** Hands `chunk` (and any held pushes it lets go) to `take`, in order. */
  async push(
    runId: string,
    chunk: Uint8Array,
    seq: number | undefined,
    take: (chunk: Uint8Array) => Promise<void>
  ): Promise<void> {
    if (seq === undefined) return take(chunk)
    if (runId !== this.runId) {
      // A new run (a reconnect is a new run too) counts from 0.
      this.runId = runId
      this.next = 0
      this.held.clear()
      this.tail = Promise.resolve()
    }
    if (seq < this.next || this.held.has(seq))
      throw new AppFailure({
        code: 'bad-request',
        message: `Push ${seq} of this broadcast was already taken.`,
        hint: 'Number each push once, from 0.'
      })
    if (seq > this.next) {
      if (this.held.size >= MAX_HELD) {
        this.held.clear()
        throw new AppFailure({
          code: 'media',
          message: `Push ${this.next} of this broadcast is missing: ${MAX_HELD} later ones came without it.`,
          hint: 'Go live again.'
        })
      }
      this.held.set(seq, chunk)
      return
    }
    // This push and the held ones right after it, taken in order, after any still being taken.
    const ready = [chunk]
    this.next++
    for (let c = this.held.get(this.next); c; c = this.held.get(this.next)) {
      this.held.delete(this.next)
      this.next++
      ready.push(c)
    }
    const done = this.tail.then(async () => {
      for (const c of ready) await take(c)
    })
    this.tail = done.catch(() => {})
    return done
  }
}

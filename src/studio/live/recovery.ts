// Crash recovery: a previous process was killed with sessions open. One that was live less than
// the resume window ago waits for its publisher as after a drop (a broadcaster reconnecting to the
// restarted studio continues the same session and recording); the rest are finalized from what
// reached the disk.
import { listOpenSessions } from '../session-store'
import { deactivateAll, getOwnStream, setActive } from '../stream-store'
import type { LiveEvents } from './events'
import { finishRecording } from './finish'
import { newRun, type LiveOptions, type Run } from './run'

/**
 * Recovers the sessions a killed process left open: `resume` takes each run that waits `leftMs`
 * for its publisher; the others are finalized here. Returns how many were finalized.
 */
export async function recoverOpenSessions(
  o: LiveOptions,
  events: LiveEvents,
  resume: (run: Run, leftMs: number) => void
): Promise<number> {
  const open = listOpenSessions(o.db)
  deactivateAll(o.db)
  const now = Date.now()
  let finalized = 0
  for (const s of open) {
    const stream = getOwnStream(o.db, s.userId, s.parentId)
    const left = o.resumeWindowMs - (now - s.lastSeen)
    if (stream && !stream.deleted && !stream.doc.suspended && left > 0) {
      // The last run started; a publisher coming back starts the next one.
      resume(
        newRun(stream, s, { run: s.runs - 1, priorSeconds: s.duration, publishing: false }),
        left
      )
      setActive(o.db, stream.id, true, now)
      o.log(
        `live: session ${s.id} was live when the studio stopped; waiting ${left} ms for a resume`
      )
      continue
    }
    const status = await finishRecording(o, s, 0)
    // The stream was live when the studio stopped: its receivers hear it went idle.
    events.ended(s, status)
    finalized++
  }
  return finalized
}

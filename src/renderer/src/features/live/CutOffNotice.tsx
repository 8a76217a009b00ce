import { useEffect, useState, type ReactNode } from 'react'
import type { CutOffNotice as Notice, SessionView } from '../../../../shared/contract'
import { useApi } from '../../lib/api'
import { formatDuration, formatTimeOfDay as clock } from '../../lib/format'

/** What the notice says: the cut, then what became of its recording. */
export function cutOffWords(n: Notice, at: (ms: number) => string = clock): string {
  const cut = `Your broadcast on ${n.streamName} was cut off at ${at(n.cutAt)} when Onair closed.`
  const s = n.session
  if (!s) return cut
  if (!s.record) return `${cut} It was not being recorded.`
  const length = formatDuration(s.sourceSegmentsDuration)
  switch (s.recordingStatus) {
    case 'ready':
      return `${cut} Its recording is saved (${length}).`
    case 'waiting':
      return `${cut} Its recording (${length}) is being saved.`
    case 'failed':
      return `${cut} Its recording could not be saved.`
    default:
      return `${cut} It left no recording.`
  }
}

/**
 * After a crash or a kill of Onair while live, the next start says so, once: the notice is read
 * through the contract (cutOffNotice), shown, and dismissed at once so it never shows again; it
 * stays on screen until the creator closes it. Its link plays the session's recording.
 */
export function CutOffNotice({ onPlay }: { onPlay: (s: SessionView) => void }): ReactNode {
  const api = useApi()
  const [notice, setNotice] = useState<Notice | null>(null)
  useEffect(() => {
    let alive = true
    void api.cutOffNotice().then((r) => {
      if (!alive || !r.ok || !r.value) return
      setNotice(r.value)
      void api.dismissCutOffNotice(r.value.runId)
    })
    return () => {
      alive = false
    }
  }, [api])
  if (!notice) return null
  const session = notice.session
  return (
    <section className="cut-off warning" role="alert" data-testid="cut-off-notice">
      <p data-testid="cut-off-words">{cutOffWords(notice)}</p>
      {session?.recordingStatus === 'ready' && (
        <button
          type="button"
          className="link"
          data-testid="cut-off-play"
          onClick={() => onPlay(session)}
        >
          Play the session
        </button>
      )}
      <button type="button" className="secondary" onClick={() => setNotice(null)}>
        Close
      </button>
    </section>
  )
}

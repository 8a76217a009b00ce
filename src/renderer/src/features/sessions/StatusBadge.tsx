import type { ReactNode } from 'react'
import type { RecordingStatus, SessionView } from '../../../../shared/contract'

/** A session that is not recorded has no status from the service: show it as "none". */
export const statusOf = (s: SessionView): RecordingStatus =>
  s.record ? (s.recordingStatus ?? 'none') : 'none'

/**
 * A session is live while it is not finished and its service heard from it in the last 15 s (the
 * local studio updates lastSeen every second while media flows; Livepeer Studio about as often).
 */
export const isLiveSession = (s: SessionView, now: number): boolean =>
  (s.recordingStatus === 'waiting' || !s.record) && now - s.lastSeen < 15_000

export function StatusBadge({ status }: { status: RecordingStatus | 'live' }): ReactNode {
  return (
    <span className={`badge badge-${status}`} data-testid="recording-status" data-status={status}>
      {status}
    </span>
  )
}

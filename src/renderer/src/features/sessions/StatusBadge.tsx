import type { ReactNode } from 'react'
import type { RecordingStatus, SessionView } from '../../../../shared/contract'

/** A session that is not recorded has no status from the service: show it as "none". */
export const statusOf = (s: SessionView): RecordingStatus =>
  s.record ? (s.recordingStatus ?? 'none') : 'none'

export function StatusBadge({ status }: { status: RecordingStatus }): ReactNode {
  return (
    <span className={`badge badge-${status}`} data-testid="recording-status" data-status={status}>
      {status}
    </span>
  )
}

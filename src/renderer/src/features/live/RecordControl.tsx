// Record without going live in the live bar (#34 §2): while a recording goes, its state and clock
// ("Recording 0:42") with Stop recording; while live with none, Record (the run's source and Output).
import type { ReactNode } from 'react'
import { formatDuration } from '../../lib/format'
import { useLive } from './live-context'

export function RecordControl({ now }: { now: number }): ReactNode {
  const live = useLive()
  const rec = live.recording
  if (!rec) {
    if (!live.running) return null
    return (
      <button
        type="button"
        className="secondary record-button"
        data-testid="record-start"
        onClick={() => void live.startRecording()}
      >
        <span className="record-dot" aria-hidden="true" />
        Record
      </button>
    )
  }
  const words =
    rec.state === 'starting'
      ? 'Starting recording'
      : rec.state === 'stopping'
        ? 'Saving recording'
        : 'Recording'
  return (
    <span className="record-now" data-state={rec.state}>
      <span className="record-dot" aria-hidden="true" />
      <span
        className="state-pill record-pill"
        data-testid="record-state"
        role="status"
        aria-live="polite"
      >
        {words}
      </span>
      {rec.state === 'recording' && (
        <span className="mono" data-testid="record-elapsed" aria-label="Recording time">
          {formatDuration(Math.max(0, now - rec.since) / 1000)}
        </span>
      )}
      <button
        type="button"
        className="danger"
        data-testid="record-stop"
        disabled={rec.state !== 'recording'}
        onClick={() => void live.stopRecording()}
      >
        Stop recording
      </button>
    </span>
  )
}

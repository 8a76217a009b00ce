import { useState, type ReactNode } from 'react'
import type { AppError } from '../../../../shared/result'
import { formatDuration } from '../../lib/format'
import { useNow } from '../../lib/use-now'
import { ErrorNote } from '../../components/ErrorNote'
import { EncoderLine, HealthStrip } from './HealthStrip'
import { WebRtcHealth } from './WebRtcHealth'
import { StreamHealthNote } from './StreamHealthNote'
import { useLive } from './live-context'
import { ProgramStatus } from '../scenes/ProgramStatus'
import { MicStatus } from '../scenes/MicStatus'
import { muteMic } from './source-mix'
import { DestinationsSummary } from '../destinations/DestinationsSummary'
import { ViewerCount } from '../viewers/ViewerCount'
import { LiveMoments } from '../clips/LiveMoments'
import type { ClipView } from '../../../../shared/contract'
import { useHotkey } from '../../lib/use-hotkeys'
import { RecordControl } from './RecordControl'

/** On every screen while a run exists: what is live, how it is doing, and the way to stop it. */
export function LiveBanner({
  onOpen,
  onWatch,
  onPlayClip,
  onStats
}: {
  onOpen: (streamId: string) => void
  /** Opens the live monitor: the stream's output as viewers get it. */
  onWatch: (streamId: string) => void
  /** Plays a clip made from the live bar. */
  onPlayClip: (c: ClipView) => void
  /** Opens the stats view (#34 §6). */
  onStats?: () => void
}): ReactNode {
  const live = useLive()
  const { run } = live
  const [dismissed, setDismissed] = useState<string | null>(null)
  const now = useNow(500, (!!run && live.running) || live.recording !== null)
  // The Go live / Stop key stops a broadcast from any screen (the Go live screen also starts one).
  useHotkey('golive-toggle', () => {
    if (!live.running || live.busy) return false
    void live.stop()
  })
  // The Record key stops a recording from any screen, and starts one while live (the Go live screen
  // starts one with its source when not live); with no source open it says what to do.
  useHotkey('record-toggle', () => {
    if (live.recording) {
      if (live.recording.state === 'recording') void live.stopRecording()
      return
    }
    void live.startRecording()
  })
  const recordError = live.recordError && (
    <ErrorNote
      error={live.recordError}
      onRetry={live.clearRecordError}
      retryLabel="Dismiss"
      testId="record-error"
    />
  )
  if (!run || dismissed === `${run.runId}:${run.state}`) {
    if (!live.recording && !live.recordError) return null
    // Recording with no stream: the bar says so, with the recording's clock and its Stop.
    return (
      <section
        className={`live-banner ${live.recording ? 'run-recording' : ''}`}
        aria-label="Recording status"
        data-testid="live-banner"
        data-state="none"
        data-recording={live.recording?.state ?? 'none'}
      >
        <div className="live-head">
          <strong data-testid="live-title">
            {live.recording ? 'Recording on this computer, not live' : 'Record on this computer'}
          </strong>
          <span className="spacer" />
          <RecordControl now={now} />
        </div>
        {recordError}
      </section>
    )
  }

  let stateText: string
  switch (run.state) {
    case 'connecting':
      stateText = 'Connecting'
      break
    case 'live':
      stateText = 'Live'
      break
    case 'reconnecting': {
      const secs = run.nextRetryAt ? Math.max(0, Math.ceil((run.nextRetryAt - now) / 1000)) : 0
      stateText = `Reconnecting in ${secs} s (attempt ${run.attempt ?? 1})`
      break
    }
    case 'stopping':
      stateText = 'Stopping'
      break
    case 'ended':
      stateText = 'Ended'
      break
    case 'failed':
      stateText = 'Failed'
      break
    default:
      stateText = run.state
  }
  const elapsed = run.liveSince ? formatDuration((now - run.liveSince) / 1000) : null

  return (
    <section
      className={`live-banner run-${run.state}`}
      aria-label="Live status"
      data-testid="live-banner"
      data-state={run.state}
      data-recording={live.recording?.state ?? 'none'}
    >
      <div className="live-head">
        <span className="live-dot" aria-hidden="true" />
        <strong data-testid="live-title" className="ellipsis" title={run.streamName}>
          {/* "Live" only once the ingest has taken media (the supervisor's live state), never before. */}
          {run.state === 'live' ? `Live on ${run.streamName}` : run.streamName}
        </strong>
        {live.running && <DestinationsSummary streamId={run.streamId} />}
        {run.state === 'live' && <ViewerCount streamId={run.streamId} />}
        <span className="state-pill" data-testid="live-state" aria-live="polite">
          {stateText}
        </span>
        {elapsed && live.running && (
          <span className="mono" data-testid="live-elapsed" aria-label="Elapsed time">
            {elapsed}
          </span>
        )}
        {live.running && live.capture?.program && <ProgramStatus program={live.capture.program} />}
        {live.running && live.capture?.kind === 'camera' && live.capture.mix && (
          <span className="program-status" data-testid="program-status">
            <MicStatus
              mix={live.capture.mix}
              onMute={(m) => live.capture?.mix && muteMic(live.capture.mix, m)}
            />
          </span>
        )}
        <span className="spacer" />
        {run.state === 'live' && (
          <button
            type="button"
            className="secondary"
            data-testid="watch-live"
            onClick={() => onWatch(run.streamId)}
          >
            Watch
          </button>
        )}
        {onStats && (
          <button type="button" className="secondary" data-testid="open-stats" onClick={onStats}>
            Stats
          </button>
        )}
        <button type="button" className="secondary" onClick={() => onOpen(run.streamId)}>
          Open
        </button>
        {run.state === 'reconnecting' && (
          <button type="button" data-testid="retry-now" onClick={() => void live.retryNow()}>
            Retry now
          </button>
        )}
        <RecordControl now={now} />
        {live.running ? (
          <button
            type="button"
            className="danger"
            data-testid="stop-live"
            disabled={live.busy && run.state === 'stopping'}
            onClick={() => void live.stop()}
          >
            Stop
          </button>
        ) : (
          <button
            type="button"
            className="secondary"
            aria-label="Dismiss"
            onClick={() => setDismissed(`${run.runId}:${run.state}`)}
          >
            Dismiss
          </button>
        )}
      </div>
      {live.running && (
        <LiveMoments
          streamId={run.streamId}
          streamName={run.streamName}
          onAir={run.state === 'live'}
          onPlayClip={onPlayClip}
        />
      )}
      {recordError}
      {run.error && (run.state === 'reconnecting' || run.state === 'failed') && (
        <ErrorNote error={run.error as AppError} testId="live-error" />
      )}
      {(run.state === 'live' || run.state === 'connecting') && live.webrtc !== null && (
        <WebRtcHealth stats={live.webrtc} />
      )}
      {(run.state === 'live' || run.state === 'connecting') && live.webrtc === null && (
        <HealthStrip
          health={live.health?.runId === run.runId ? live.health : null}
          troubleSince={live.troubleSince}
          now={now}
          pageSkips={live.encoder?.pipeSkips}
        />
      )}
      {live.running && live.encoderNote && (
        <p className="muted" role="status" data-testid="encoder-fallback">
          {live.encoderNote}
        </p>
      )}
      {(run.state === 'live' || run.state === 'connecting') && (
        <EncoderLine encoder={live.encoder} />
      )}
      {(run.state === 'live' || run.state === 'reconnecting') && (
        <StreamHealthNote streamId={run.streamId} />
      )}
    </section>
  )
}

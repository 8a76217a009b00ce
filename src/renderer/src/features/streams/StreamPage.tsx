import { useEffect, useState, type ReactNode } from 'react'
import type { SessionView, StreamView } from '../../../../shared/contract'
import type { AppError } from '../../../../shared/result'
import { useApi } from '../../lib/api'
import { noteOpened } from '../../lib/recent-streams'
import { formatDate } from '../../lib/format'
import type { Navigate } from '../../lib/route'
import { useStream, useStreamPoll } from '../../lib/use-stream'
import { ConfirmButton } from '../../components/ConfirmButton'
import { ErrorNote, Loading } from '../../components/ErrorNote'
import { useLiveRun } from '../../lib/live-run'
import { SessionsList } from '../sessions/SessionsList'
import { StreamKey } from './StreamKey'
import { StreamProfiles } from './StreamProfiles'
import { DestinationsSection } from '../destinations/DestinationsSection'
import { ViewerPeak } from '../viewers/ViewerCount'

export function StreamPage({
  id,
  navigate,
  onPlay,
  onWatch
}: {
  id: string
  navigate: Navigate
  onPlay: (s: SessionView) => void
  onWatch: (streamId: string) => void
}): ReactNode {
  const api = useApi()
  useEffect(() => noteOpened(id), [id])
  const live = useLiveRun()
  const [error, setError] = useState<AppError | null>(null)
  const [saving, setSaving] = useState(false)
  const runState = live.run?.streamId === id ? live.run.state : undefined
  const stream = useStream(id)
  // While the service says the stream is active (our run, or another encoder such as OBS), keep
  // asking: isActive drops a moment after ingest ends, and the locks below depend on it. The one
  // poller of the stream (lib/stream-store.ts) also serves its destinations and the live banner.
  useStreamPoll(id, stream.value?.isActive === true)

  // The service flips isActive as ingest starts and ends: re-read the stream when our run changes state.
  const { reload } = stream
  useEffect(() => {
    if (runState) reload()
  }, [runState, reload])

  if (stream.loading && !stream.value) return <Loading />
  if (!stream.value)
    return (
      <section className="screen">
        {stream.error && <ErrorNote error={stream.error} onRetry={stream.reload} />}
        <button type="button" className="secondary" onClick={() => navigate({ name: 'streams' })}>
          Back to streams
        </button>
      </section>
    )
  const s: StreamView = stream.value
  const isLive = s.isActive || (live.running && live.run?.streamId === id)

  const toggleRecord = async (record: boolean): Promise<void> => {
    setSaving(true)
    const r = await api.setRecord(s.id, record)
    setSaving(false)
    if (!r.ok) return setError(r.error)
    setError(null)
    stream.set(r.value)
  }
  const remove = async (): Promise<void> => {
    const r = await api.deleteStream(s.id)
    if (!r.ok) return setError(r.error)
    navigate({ name: 'streams' })
  }

  return (
    <section className="screen" aria-labelledby="stream-title" data-testid="stream-page">
      <div className="screen-head">
        <button
          type="button"
          className="link"
          aria-label="Back to streams"
          onClick={() => navigate({ name: 'streams' })}
        >
          ← Streams
        </button>
        <h1 id="stream-title" className="ellipsis" title={s.name}>
          {s.name}
        </h1>
        <span
          className={`state-pill ${isLive ? 'state-live' : 'state-idle'}`}
          data-testid="stream-state"
        >
          {isLive ? 'active' : 'idle'}
        </span>
        <span className="spacer" />
        {isLive && (
          <button
            type="button"
            className="secondary"
            data-testid="stream-watch"
            onClick={() => onWatch(s.id)}
          >
            Watch live
          </button>
        )}
        <button
          type="button"
          data-testid="stream-go-live"
          disabled={live.running}
          onClick={() => navigate({ name: 'live', streamId: s.id })}
        >
          Go live
        </button>
      </div>
      <p className="muted">Created {formatDate(s.createdAt)}</p>
      {error && <ErrorNote error={error} />}

      <div className="card">
        <StreamKey stream={s} />
        <label className="check">
          <input
            type="checkbox"
            checked={s.record}
            disabled={isLive || saving}
            data-testid="record-toggle"
            aria-describedby={isLive ? 'record-locked' : undefined}
            onChange={(e) => void toggleRecord(e.target.checked)}
          />
          Record sessions
        </label>
        {isLive && (
          <p className="muted" id="record-locked" data-testid="record-locked">
            Recording can't be switched while the stream is live: the service applies it when a
            session starts. Stop first.
          </p>
        )}
      </div>

      <StreamProfiles stream={s} live={isLive} onSaved={stream.set} />

      <DestinationsSection stream={s} live={isLive} />

      <div className="card">
        <h2>Sessions of this stream</h2>
        <ViewerPeak streamId={s.id} />
        <SessionsList streamId={s.id} onPlay={onPlay} onWatch={onWatch} refreshKey={runState} />
      </div>

      <div className="card danger-zone">
        <h2>Delete</h2>
        <p className="muted">
          Deleting removes the stream and its key. Existing recordings stay listed.
        </p>
        <ConfirmButton
          label="Delete stream"
          question={`Delete "${s.name}" for good?`}
          confirmLabel="Delete"
          disabled={isLive}
          testId="delete-stream"
          onConfirm={remove}
        />
      </div>
    </section>
  )
}

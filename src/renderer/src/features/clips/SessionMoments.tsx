// Under a recording in the player (#20): its markers on a timeline (click one to go there, or make it
// a clip), marks in and out for a clip of your own, and the session's clips with play and save.
import { useState, type ReactNode, type RefObject } from 'react'
import type { ClipView, CreateClipArgs, SessionView } from '../../../../shared/contract'
import {
  markerClipSpan,
  timelinePosition,
  wallClockAt,
  type TimedFragment
} from '../../../../shared/markers'
import type { AppError } from '../../../../shared/result'
import { ErrorNote } from '../../components/ErrorNote'
import { useApi } from '../../lib/api'
import { formatDuration } from '../../lib/format'
import { ClipActions } from './ClipStatus'
import { clipStateText } from './clip-text'
import { useClipMaker, useMarkers, useSessionClips } from './use-clips'

/** A session's stretch of wall-clock time, with room for a marker dropped just before or after. */
function sessionSpan(s: SessionView): { from: number; to: number } {
  const end = Math.max(s.lastSeen, s.createdAt + s.sourceSegmentsDuration * 1000)
  return { from: s.createdAt - 5_000, to: end + 5_000 }
}

export function SessionMoments({
  session,
  fragments,
  video,
  onPlayClip
}: {
  session: SessionView
  /** The recording's fragments with their wall-clock times (useHls), [] until loaded. */
  fragments: readonly TimedFragment[]
  video: RefObject<HTMLVideoElement | null>
  onPlayClip: (c: ClipView) => void
}): ReactNode {
  const api = useApi()
  const span = sessionSpan(session)
  const markers = useMarkers(session.parentId, span.from, span.to)
  const clips = useSessionClips(session.parentId, session.id)
  const maker = useClipMaker(() => clips.reload())
  const [marks, setMarks] = useState<{ in?: number; out?: number }>({})
  const [error, setError] = useState<AppError | null>(null)

  const total = fragments.reduce((t, f) => Math.max(t, f.start + f.duration), 0)
  const timed = fragments.some((f) => f.programDateTime !== null)
  const placed = markers.items.map((m) => ({ m, at: timelinePosition(fragments, m.at) }))

  const make = (args: Omit<CreateClipArgs, 'streamId' | 'sessionId'>): void =>
    void maker.make({ streamId: session.parentId, sessionId: session.id, ...args })
  const fromMarks = (): void => {
    if (marks.in === undefined || marks.out === undefined) return
    const startTime = wallClockAt(fragments, marks.in)
    const endTime = wallClockAt(fragments, marks.out)
    if (startTime === undefined || endTime === undefined)
      return setError({
        code: 'bad-request',
        message: 'A mark lies where the recording has no time of day (a gap between its parts).',
        hint: 'Move the mark a little and set it again.'
      })
    setError(null)
    make({ startTime, endTime })
  }
  const here = (): number => video.current?.currentTime ?? 0
  const save = (c: ClipView): void =>
    void api.downloadClip(c.id).then((r) => !r.ok && setError(r.error))
  const remove = (c: ClipView): void =>
    void api.deleteClip(c.id).then((r) => (r.ok ? clips.reload() : setError(r.error)))
  const badMarks = marks.in !== undefined && marks.out !== undefined && marks.out <= marks.in

  return (
    <section className="session-moments" aria-label="Markers and clips">
      {total > 0 && (
        <div
          className="timeline"
          data-testid="timeline"
          role="group"
          aria-label="Markers on the timeline"
        >
          {placed.map(({ m, at }) =>
            at === undefined ? null : (
              <button
                key={m.id}
                type="button"
                className="timeline-marker"
                style={{ left: `${(at / total) * 100}%` }}
                data-testid="timeline-marker"
                data-position={at.toFixed(2)}
                title={m.label ?? 'Marker'}
                aria-label={`Go to marker ${m.label ?? ''} at ${formatDuration(at)}`}
                onClick={() => {
                  if (video.current) video.current.currentTime = at
                }}
              />
            )
          )}
          {marks.in !== undefined && (
            <span
              className="timeline-mark in"
              style={{ left: `${(marks.in / total) * 100}%` }}
              aria-hidden="true"
            />
          )}
          {marks.out !== undefined && (
            <span
              className="timeline-mark out"
              style={{ left: `${(marks.out / total) * 100}%` }}
              aria-hidden="true"
            />
          )}
        </div>
      )}
      {markers.items.length > 0 && (
        <ul className="marker-list" data-testid="marker-list">
          {placed.map(({ m, at }) => (
            <li key={m.id}>
              <span className="mono">{at === undefined ? '–' : formatDuration(at)}</span>{' '}
              {m.label ?? <span className="muted">Marker</span>}
              {at === undefined && (
                <span className="muted"> (not in this recording’s media)</span>
              )}{' '}
              <button
                type="button"
                className="secondary"
                data-testid="marker-clip"
                aria-label={`Make a clip around marker ${m.label ?? formatDuration(at ?? 0)}`}
                onClick={() => make({ ...markerClipSpan(m.at), name: m.label ?? undefined })}
              >
                Clip
              </button>
            </li>
          ))}
        </ul>
      )}
      {!timed && total > 0 && (
        <p className="muted" data-testid="timeline-untimed">
          This recording does not say its time of day: markers cannot be placed on it, and clips
          from marks are not possible.
        </p>
      )}
      <div className="clip-marks">
        <button
          type="button"
          className="secondary"
          data-testid="mark-in"
          onClick={() => setMarks((m) => ({ ...m, in: here() }))}
        >
          Mark in{marks.in !== undefined ? ` (${formatDuration(marks.in)})` : ''}
        </button>
        <button
          type="button"
          className="secondary"
          data-testid="mark-out"
          onClick={() => setMarks((m) => ({ ...m, out: here() }))}
        >
          Mark out{marks.out !== undefined ? ` (${formatDuration(marks.out)})` : ''}
        </button>
        <button
          type="button"
          data-testid="clip-from-marks"
          disabled={
            !timed || marks.in === undefined || marks.out === undefined || badMarks || maker.busy
          }
          onClick={fromMarks}
        >
          Make clip
        </button>
        {badMarks && <span className="muted">The out mark must come after the in mark.</span>}
        {maker.clip && (
          <span data-testid="new-clip" data-state={maker.clip.state} aria-live="polite">
            {clipStateText(maker.clip)}
          </span>
        )}
      </div>
      {(maker.error ?? error ?? markers.error ?? clips.error) && (
        <ErrorNote
          error={(maker.error ?? error ?? markers.error ?? clips.error)!}
          testId="moments-error"
        />
      )}
      <h3 className="clips-title">Clips of this session</h3>
      {clips.items.length === 0 ? (
        <p className="muted" data-testid="clips-empty">
          No clips yet. Mark in and out, or clip around a marker.
        </p>
      ) : (
        <ul className="clip-list" data-testid="clip-list">
          {clips.items.map((c) => (
            <li key={c.id} data-testid="clip-row" data-state={c.state}>
              <span className="ellipsis" title={c.name}>
                {c.name}
              </span>
              <span className="muted">{clipStateText(c)}</span>
              <ClipActions clip={c} onPlay={onPlayClip} onSave={save} />
              <button
                type="button"
                className="secondary"
                aria-label={`Delete clip ${c.name}`}
                onClick={() => remove(c)}
              >
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

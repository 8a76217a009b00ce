import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react'
import type { SessionView } from '../../../../shared/contract'
import type { AppError } from '../../../../shared/result'
import { useApi } from '../../lib/api'
import { useNow } from '../../lib/use-now'
import { formatDate, formatDuration } from '../../lib/format'
import { CopyButton } from '../../components/CopyButton'
import { Empty, ErrorNote, Loading } from '../../components/ErrorNote'
import { isLiveSession, StatusBadge, statusOf } from './StatusBadge'
import { useSessions } from './use-sessions'
import { LocalCopy, LocalPathNote } from './LocalCopy'
import { AutoUploadSwitch } from './AutoUploadSwitch'
import { UploadCopy, UploadStrip } from './UploadCopy'
import { uploadOf, useRecordingChecks, useUploads } from './use-uploads'

/** Fixed row height is what makes windowing exact: row i sits at i * ROW_H, no measuring. */
export const ROW_H = 44
const OVERSCAN = 8
/** Start fetching the next page this many rows before the end of what is loaded. */
const PREFETCH = 60

export function SessionsList({
  streamId,
  onPlay,
  onPlayAsset,
  onWatch,
  streamNames,
  refreshKey
}: {
  streamId?: string
  onPlay: (s: SessionView) => void
  /** Plays an uploaded video (the service's asset) in the player. */
  onPlayAsset?: (assetId: string, name: string) => void
  /** A live session's Watch: the live monitor of its stream. */
  onWatch: (streamId: string) => void
  streamNames?: Map<string, string>
  /** Changes when the caller knows the list is stale (a run ended): re-read the first page. */
  refreshKey?: unknown
}): ReactNode {
  const api = useApi()
  const data = useSessions(streamId)
  const uploads = useUploads()
  const checks = useRecordingChecks(data.items)
  // Live sessions are told by their last sign of life; re-judged every few seconds.
  const now = useNow(5000, true)
  const viewport = useRef<HTMLDivElement>(null)
  const [scrollTop, setScrollTop] = useState(0)
  const [height, setHeight] = useState(480)
  const [copyError, setCopyError] = useState<AppError | null>(null)
  const [localPath, setLocalPath] = useState<string | null>(null)
  const { refresh } = data
  const refreshRef = useRef(refresh)
  refreshRef.current = refresh

  const lastKey = useRef(refreshKey)
  useEffect(() => {
    if (lastKey.current === refreshKey) return
    lastKey.current = refreshKey
    refreshRef.current()
  }, [refreshKey])

  const hasRows = data.items.length > 0
  useLayoutEffect(() => {
    const el = viewport.current
    if (!el) return
    const ro = new ResizeObserver(() => setHeight(el.clientHeight || 480))
    ro.observe(el)
    return () => ro.disconnect()
  }, [hasRows])

  const count = data.items.length
  // The headings' row sits above the rows inside the scroller: the rows begin one ROW_H down.
  const rowsTop = Math.max(0, scrollTop - ROW_H)
  const first = Math.max(0, Math.floor(rowsTop / ROW_H) - OVERSCAN)
  const last = Math.min(count - 1, Math.ceil((rowsTop + height) / ROW_H) + OVERSCAN)
  const { loadMore, hasMore, loading, setVisible } = data
  useEffect(() => {
    setVisible(first, last)
    if (hasMore && !loading && last >= count - PREFETCH) loadMore()
  }, [first, last, count, hasMore, loading, loadMore, setVisible])

  if (data.error && count === 0) return <ErrorNote error={data.error} onRetry={data.refresh} />
  if (count === 0 && data.loading) return <Loading label="Loading sessions…" />
  if (count === 0)
    return (
      <Empty>
        <p data-testid="sessions-empty">
          No sessions yet. A session appears here each time the stream goes live.
        </p>
        <button type="button" className="secondary" onClick={data.refresh}>
          Refresh
        </button>
      </Empty>
    )

  const rows: ReactNode[] = []
  for (let i = first; i <= last; i++) {
    const s = data.items[i]
    if (!s) continue
    const isLive = isLiveSession(s, now)
    const status = isLive ? 'live' : statusOf(s)
    rows.push(
      <div
        key={s.id}
        className="vrow"
        role="row"
        aria-rowindex={i + 2}
        style={{ transform: `translateY(${i * ROW_H}px)` }}
        data-testid="session-row"
        data-session-id={s.id}
        data-status={status}
      >
        <span role="cell">{formatDate(s.createdAt)}</span>
        {!streamId && (
          <span
            role="cell"
            className="ellipsis"
            title={streamNames?.get(s.parentId) ?? s.name ?? undefined}
          >
            {streamNames?.get(s.parentId) ?? s.name ?? s.parentId.slice(0, 8)}
          </span>
        )}
        <span role="cell" className="mono">
          {formatDuration(s.sourceSegmentsDuration)}
        </span>
        <span role="cell">
          <StatusBadge status={status} />
        </span>
        <span role="cell" className="row-actions">
          {isLive && (
            <button
              type="button"
              aria-label={`Watch the live session from ${formatDate(s.createdAt)}`}
              data-testid="watch-session"
              onClick={() => onWatch(s.parentId)}
            >
              Watch
            </button>
          )}
          <button
            type="button"
            disabled={status !== 'ready' || !s.recordingUrl}
            aria-label={`Play session from ${formatDate(s.createdAt)}`}
            data-testid="play-session"
            onClick={() => onPlay(s)}
          >
            Play
          </button>
          {s.recordingUrl && (
            <CopyButton
              label={`Copy HLS URL of session from ${formatDate(s.createdAt)}`}
              getText={() => ({ ok: true, value: s.recordingUrl as string })}
              onError={setCopyError}
            />
          )}
          {s.mp4Url && status === 'ready' && (
            <button
              type="button"
              className="secondary"
              aria-label={`Save MP4 of session from ${formatDate(s.createdAt)}`}
              data-testid="download-mp4"
              onClick={() =>
                void api.downloadRecording(s.id).then((r) => !r.ok && setCopyError(r.error))
              }
            >
              MP4
            </button>
          )}
          {s.localRecording && (
            <LocalCopy
              rec={s.localRecording}
              when={formatDate(s.createdAt)}
              onPath={(r) => setLocalPath(r.path)}
              onError={setCopyError}
            />
          )}
          {s.localRecording && !isLive && (
            <UploadCopy
              session={s}
              rec={s.localRecording}
              check={checks.get(s.id)}
              upload={uploadOf(uploads, s.id)}
              when={formatDate(s.createdAt)}
              onError={setCopyError}
            />
          )}
        </span>
      </div>
    )
  }

  return (
    <div className="sessions" data-testid="sessions-list">
      <div className="list-meta">
        <span data-testid="sessions-count">
          {data.total ?? count} session{(data.total ?? count) === 1 ? '' : 's'}
          {data.hasMore ? ` (${count} loaded)` : ''}
        </span>
        <AutoUploadSwitch onError={setCopyError} />
        <button
          type="button"
          className="secondary"
          onClick={data.refresh}
          data-testid="sessions-refresh"
        >
          Refresh
        </button>
      </div>
      {copyError && <ErrorNote error={copyError} />}
      {localPath && <LocalPathNote path={localPath} onClose={() => setLocalPath(null)} />}
      <UploadStrip
        sessions={data.items}
        checks={checks}
        uploads={uploads}
        onError={setCopyError}
        onPlay={onPlayAsset}
      />
      {data.error && <ErrorNote error={data.error} onRetry={data.loadMore} />}
      <div
        className="vtable"
        role="table"
        aria-label="Sessions"
        aria-rowcount={(data.total ?? count) + 1}
      >
        <div
          className={`vviewport ${streamId ? '' : 'with-stream'}`}
          ref={viewport}
          tabIndex={0}
          role="rowgroup"
          aria-label="Session rows, scroll for more"
          data-testid="sessions-viewport"
          onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
        >
          {/* In the rows' own scroller (sticky at its top): the headings get the rows' width, so the
              same columns, whether a scrollbar shows or not. */}
          <div className="vrow vhead" role="row" aria-rowindex={1}>
            <span role="columnheader">Started</span>
            {!streamId && <span role="columnheader">Stream</span>}
            <span role="columnheader">Duration</span>
            <span role="columnheader">Recording</span>
            <span role="columnheader">Actions</span>
          </div>
          <div className="vspacer" role="presentation" style={{ height: count * ROW_H }}>
            {rows}
          </div>
        </div>
      </div>
      {data.loading && <Loading label="Loading more…" />}
    </div>
  )
}

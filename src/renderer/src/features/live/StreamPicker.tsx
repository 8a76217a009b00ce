// Which stream to go live on. Preselected: the stream that is live; else the one last gone live on;
// else the one opened last; else the newest.
import { useEffect, type ReactNode } from 'react'
import { useApi } from '../../lib/api'
import { preferredStreamIds } from '../../lib/recent-streams'
import { useResult } from '../../lib/use-result'
import { ErrorNote, Loading } from '../../components/ErrorNote'

export function StreamPicker({
  value,
  onChange,
  liveStreamId,
  disabled
}: {
  value: string
  onChange: (id: string) => void
  liveStreamId: string | undefined
  disabled: boolean
}): ReactNode {
  const api = useApi()
  const streams = useResult(() => api.listStreams({ limit: 100 }), [api])

  useEffect(() => {
    const items = streams.value?.items
    if (value || !items) return
    const known = new Set(items.map((s) => s.id))
    const pick = preferredStreamIds(liveStreamId).find((id) => known.has(id)) ?? items[0]?.id
    if (pick) onChange(pick)
  }, [streams.value, value, liveStreamId, onChange])

  return (
    <>
      <label>
        Stream
        {streams.loading && !streams.value ? (
          <Loading />
        ) : (
          <select
            value={value}
            data-testid="live-stream"
            disabled={disabled}
            onChange={(e) => onChange(e.target.value)}
          >
            {streams.value?.items.length === 0 && <option value="">No streams yet</option>}
            {streams.value?.items.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        )}
      </label>
      {streams.error && <ErrorNote error={streams.error} onRetry={streams.reload} />}
      {streams.value?.items.length === 0 && (
        <p className="hint" data-testid="no-streams-hint">
          Create a stream first (Streams, New stream): it gives the ingest address to go live to.
        </p>
      )}
    </>
  )
}

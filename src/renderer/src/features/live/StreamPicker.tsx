// Which stream to go live on. Preselected: the stream that is live; else the one last gone live on;
// else the one opened last; else the newest.
import { useEffect, useMemo, type ReactNode } from 'react'
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

  // Picked while rendering, so the list never shows another stream (the browser's first option)
  // for a frame before the effect tells the screen.
  const items = streams.value?.items
  const pick = useMemo(() => {
    if (!items) return ''
    const known = new Set(items.map((s) => s.id))
    return preferredStreamIds(liveStreamId).find((id) => known.has(id)) ?? items[0]?.id ?? ''
  }, [items, liveStreamId])
  useEffect(() => {
    if (!value && pick) onChange(pick)
  }, [value, pick, onChange])

  return (
    <>
      <label>
        Stream
        {streams.loading && !streams.value ? (
          <Loading />
        ) : (
          <select
            value={value || pick}
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

// Sessions' "On this computer" list of the recordings Record made with no stream (#34 §2): when each
// began, that it has no stream, how long it plays, and the Folder / Play file every copy on this
// computer has (LocalCopy). Kept current by 'live:local-recording' (recording, then saved).
import { useCallback, useEffect, useState, type ReactNode } from 'react'
import type { LocalRecordingView } from '../../../../shared/contract'
import type { AppError } from '../../../../shared/result'
import { ErrorNote } from '../../components/ErrorNote'
import { useApi } from '../../lib/api'
import { formatDate, formatDuration } from '../../lib/format'
import { LocalCopy, LocalPathNote } from './LocalCopy'

export function RecordingsList(): ReactNode {
  const api = useApi()
  const [items, setItems] = useState<LocalRecordingView[]>([])
  const [error, setError] = useState<AppError | null>(null)
  const [localPath, setLocalPath] = useState<string | null>(null)
  const load = useCallback(() => {
    void api.listRecordings().then((r) => {
      if (!r.ok) return setError(r.error)
      setError(null)
      setItems(r.value)
    })
  }, [api])
  useEffect(load, [load])
  useEffect(
    () =>
      api.on('live:local-recording', (v) => {
        if (v.streamId === '') load()
      }),
    [api, load]
  )
  if (items.length === 0 && !error) return null
  return (
    <section
      className="recordings-local"
      aria-labelledby="recordings-title"
      data-testid="recordings-list"
    >
      <h2 id="recordings-title">On this computer: recordings with no stream</h2>
      {error && <ErrorNote error={error} onRetry={load} />}
      {localPath && <LocalPathNote path={localPath} onClose={() => setLocalPath(null)} />}
      {items.length > 0 && (
        <table className="list-table">
          <thead>
            <tr>
              <th scope="col">Started</th>
              <th scope="col">Stream</th>
              <th scope="col">Duration</th>
              <th scope="col">File</th>
            </tr>
          </thead>
          <tbody>
            {items.map((r) => (
              <tr key={r.id} data-testid="recording-row" data-state={r.state}>
                <td>{formatDate(r.startedAt)}</td>
                <td className="muted">No stream</td>
                <td className="mono">
                  {r.durationSec !== undefined ? formatDuration(r.durationSec) : '–'}
                </td>
                <td>
                  <LocalCopy
                    rec={r}
                    when={formatDate(r.startedAt)}
                    subject={`the recording from ${formatDate(r.startedAt)}`}
                    onPath={(p) => setLocalPath(p.path)}
                    onError={setError}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}

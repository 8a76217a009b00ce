import { useCallback, useEffect, useState, type ReactNode } from 'react'
import type { StreamView } from '../../../../shared/contract'
import type { AppError } from '../../../../shared/result'
import { useApi } from '../../lib/api'
import { formatDate } from '../../lib/format'
import type { Navigate } from '../../lib/route'
import { Empty, ErrorNote, Loading } from '../../components/ErrorNote'
import { CreateStreamForm } from './CreateStreamForm'

const PAGE = 20

export function StreamsScreen({ navigate }: { navigate: Navigate }): ReactNode {
  const api = useApi()
  const [items, setItems] = useState<StreamView[]>([])
  const [next, setNext] = useState<string | undefined>()
  const [loading, setLoading] = useState(true)
  const [error, setError] = useState<AppError | null>(null)
  const [creating, setCreating] = useState(false)

  const load = useCallback(
    async (cursor?: string) => {
      setLoading(true)
      const r = await api.listStreams({ cursor, limit: PAGE })
      setLoading(false)
      if (!r.ok) return setError(r.error)
      setError(null)
      setItems((prev) => (cursor ? [...prev, ...r.value.items] : r.value.items))
      setNext(r.value.next)
    },
    [api]
  )
  useEffect(() => {
    void load()
  }, [load])

  return (
    <section className="screen" aria-labelledby="streams-title">
      <div className="screen-head">
        <h1 id="streams-title">Streams</h1>
        {!creating && (
          <button type="button" data-testid="new-stream" onClick={() => setCreating(true)}>
            New stream
          </button>
        )}
      </div>
      {creating && (
        <CreateStreamForm
          onCancel={() => setCreating(false)}
          onCreated={(s) => navigate({ name: 'stream', id: s.id })}
        />
      )}
      {error && <ErrorNote error={error} onRetry={() => load()} />}
      {!error && items.length === 0 && !loading && (
        <Empty>
          <p>No streams yet. Create one to get an ingest URL and a stream key.</p>
        </Empty>
      )}
      {items.length > 0 && (
        <table className="list-table" data-testid="stream-list">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Created</th>
              <th scope="col">Status</th>
              <th scope="col">Record</th>
              <th scope="col">Profiles</th>
            </tr>
          </thead>
          <tbody>
            {items.map((s) => (
              <tr key={s.id} data-testid="stream-row" data-stream-id={s.id}>
                <td className="name-cell">
                  <button
                    type="button"
                    className="link ellipsis"
                    title={s.name}
                    onClick={() => navigate({ name: 'stream', id: s.id })}
                  >
                    {s.name}
                  </button>
                </td>
                <td>{formatDate(s.createdAt)}</td>
                <td>
                  <span className={`state-pill ${s.isActive ? 'state-live' : 'state-idle'}`}>
                    {s.isActive ? 'active' : 'idle'}
                  </span>
                </td>
                <td>{s.record ? 'on' : 'off'}</td>
                <td>{s.profiles.length ? s.profiles.map((p) => p.name).join(', ') : 'none'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {loading && <Loading />}
      {next && !loading && (
        <button type="button" className="secondary" onClick={() => load(next)}>
          Load more streams
        </button>
      )}
    </section>
  )
}

import { useState, type ReactNode } from 'react'
import type { ConnectionView } from '../../../../shared/contract'
import { useApi } from '../../lib/api'
import { useResult } from '../../lib/use-result'
import type { Navigate } from '../../lib/route'
import { ErrorNote, Loading } from '../../components/ErrorNote'
import { ConfirmButton } from '../../components/ConfirmButton'
import { AddConnectionForm } from './AddConnectionForm'
import { useConnectionStatus } from './use-connection-status'
import { localProblemText } from './connection-text'
import type { AppError } from '../../../../shared/result'

const KIND_LABEL: Record<ConnectionView['kind'], string> = {
  local: 'Local studio',
  livepeer: 'Livepeer Studio',
  custom: 'Custom service'
}

// `intro` sits under the screen's heading (the first-run guide's invitation): the App passes it in, so
// this feature does not import another.
export function ConnectionScreen({
  navigate,
  intro
}: {
  navigate: Navigate
  intro?: ReactNode
}): ReactNode {
  const api = useApi()
  const status = useConnectionStatus()
  const list = useResult(() => api.listConnections(), [api])
  const [actionError, setActionError] = useState<AppError | null>(null)
  const local = status.value?.local

  const refresh = (): void => {
    list.reload()
    status.reload()
  }
  const use = async (id: string): Promise<void> => {
    const r = await api.setActiveConnection(id)
    setActionError(r.ok ? null : r.error)
    refresh()
  }
  const remove = async (id: string): Promise<void> => {
    const r = await api.removeConnection(id)
    setActionError(r.ok ? null : r.error)
    refresh()
  }

  return (
    <section aria-labelledby="conn-title" className="screen">
      <h1 id="conn-title">Connection</h1>
      {intro}
      <div className="card" data-testid="local-studio">
        <h2>Local studio</h2>
        {status.loading && !status.value && <Loading />}
        {status.error && <ErrorNote error={status.error} onRetry={status.reload} />}
        {local && (
          <>
            <p>
              <span className={`state-pill state-${local.state}`} data-testid="local-state">
                {local.state}
              </span>{' '}
              {local.state === 'ready' && 'Runs on this computer: no account or network needed.'}
              {local.state === 'starting' && 'Starting the built-in streaming service…'}
            </p>
            {local.api && <p className="mono">API: {local.api}</p>}
            {local.rtmp && <p className="mono">Ingest: {local.rtmp}</p>}
            {local.moved?.map((m) => (
              <p key={m.what} className="notice" role="status" data-testid="local-moved">
                {m.what === 'ingest' ? 'The ingest address changed' : 'The API address changed'}:{' '}
                {m.from} was taken by another program, so the local studio now uses{' '}
                <span className="mono">{m.to}</span>
                {m.what === 'ingest'
                  ? '. Point OBS or any other encoder there; Onair itself follows on its own.'
                  : '. Links to the old address no longer work.'}
              </p>
            ))}
            {local.state === 'failed' && (
              <ErrorNote
                error={{
                  code: 'studio-failed',
                  message: localProblemText(local.error),
                  hint: 'Check the ffmpeg path under About, then try again.'
                }}
                // Asking for the ingest address makes the core start the studio again.
                onRetry={() => void api.getIngest().then(refresh)}
              />
            )}
            {local.state === 'ready' && status.value?.active?.kind === 'local' && (
              <button type="button" onClick={() => navigate({ name: 'streams' })}>
                Open streams
              </button>
            )}
          </>
        )}
      </div>

      <div className="card">
        <h2>Connections</h2>
        {list.loading && !list.value && <Loading />}
        {list.error && <ErrorNote error={list.error} onRetry={list.reload} />}
        {actionError && <ErrorNote error={actionError} />}
        {list.value && (
          <ul className="conn-list" data-testid="connection-list">
            {list.value.map((c) => (
              <li key={c.id} data-testid="connection-row" data-kind={c.kind} data-active={c.active}>
                <div>
                  <strong>{c.name}</strong> <span className="muted">{KIND_LABEL[c.kind]}</span>
                  <div className="mono muted">{c.baseUrl}</div>
                </div>
                <div className="actions">
                  {c.active ? (
                    <span className="state-pill state-ready">Active</span>
                  ) : (
                    <button type="button" aria-label={`Use ${c.name}`} onClick={() => use(c.id)}>
                      Use
                    </button>
                  )}
                  {c.kind !== 'local' && (
                    <ConfirmButton
                      label="Remove"
                      question={`Remove ${c.name} and its key?`}
                      confirmLabel="Remove"
                      onConfirm={() => remove(c.id)}
                    />
                  )}
                </div>
              </li>
            ))}
          </ul>
        )}
      </div>
      <AddConnectionForm onAdded={refresh} />
    </section>
  )
}

import { useState, type ReactNode } from 'react'
import type { DestinationView, StreamView } from '../../../../shared/contract'
import { SOURCE_RENDITION } from '../../../../shared/destinations'
import type { AppError } from '../../../../shared/result'
import { useApi } from '../../lib/api'
import { ConfirmButton } from '../../components/ConfirmButton'
import { ErrorNote, Loading } from '../../components/ErrorNote'
import { AddDestinationForm } from './AddDestinationForm'
import { useDestinations } from './use-destinations'

const STATE_TEXT: Record<DestinationView['state'], string> = {
  idle: 'ready',
  starting: 'starting',
  live: 'live',
  retrying: 'retrying',
  disabled: 'disabled'
}

/**
 * The stream page's Destinations: where the service forwards this stream (YouTube, Twitch...). They
 * stay editable while live, because the service applies a change to the running broadcast.
 */
export function DestinationsSection({
  stream,
  live
}: {
  stream: StreamView
  live: boolean
}): ReactNode {
  const api = useApi()
  const d = useDestinations(stream.id, live)
  const [adding, setAdding] = useState(false)
  const [busy, setBusy] = useState<string | null>(null)
  // The switch shows what was asked for at once; the service's answer (or an error) settles it.
  const [asked, setAsked] = useState<{ id: string; enabled: boolean } | null>(null)
  const [error, setError] = useState<AppError | null>(null)

  const act = async (
    targetId: string,
    call: () => ReturnType<typeof api.listDestinations>
  ): Promise<void> => {
    setBusy(targetId)
    const r = await call()
    setBusy(null)
    setAsked(null)
    if (!r.ok) return setError(r.error)
    setError(null)
    d.set(r.value)
  }

  const list = d.view?.destinations ?? []
  return (
    <section
      className="card destinations"
      data-testid="destinations"
      aria-labelledby="destinations-title"
    >
      <div className="destinations-head">
        <h2 id="destinations-title">Destinations</h2>
        <span className="spacer" />
        {!adding && (
          <button
            type="button"
            className="secondary"
            data-testid="add-destination"
            onClick={() => setAdding(true)}
          >
            Add destination
          </button>
        )}
      </div>
      <p className="muted">
        While this stream is live, the service forwards it to each destination: Livepeer Studio from
        its servers; the local studio from this computer, which then uploads the stream once more
        for each destination.
      </p>
      {live && (
        <p className="notice" data-testid="destinations-live-note">
          The stream is live: a change here applies to the running broadcast.
        </p>
      )}
      {d.loading && !d.view && <Loading label="Loading destinations…" />}
      {d.error && !d.view && <ErrorNote error={d.error} onRetry={() => void d.reload()} />}
      {d.view && list.length === 0 && !adding && (
        <p className="muted" data-testid="no-destinations">
          No destinations yet.
        </p>
      )}
      {list.length > 0 && (
        <ul className="destination-list" aria-label="Destinations of this stream">
          {list.map((t) => (
            <li
              key={`${t.id}:${t.profile}`}
              data-testid="destination"
              data-state={t.state}
              data-name={t.name}
            >
              <div className="destination-main">
                <strong className="destination-name">{t.name}</strong>
                <span className="muted" data-testid="destination-rendition">
                  {t.profile === SOURCE_RENDITION ? 'source rendition' : `${t.profile} rendition`}
                  {t.videoOnly ? ', video only' : ''}
                </span>
                <span
                  className={`state-pill destination-state state-${t.state}`}
                  data-testid="destination-state"
                >
                  {STATE_TEXT[t.state]}
                </span>
              </div>
              {t.state === 'retrying' && t.reason && (
                <p className="destination-reason" data-testid="destination-reason">
                  {t.reason}
                </p>
              )}
              <div className="actions">
                <label className="check">
                  <input
                    type="checkbox"
                    checked={asked?.id === t.id ? asked.enabled : !t.disabled}
                    disabled={busy === t.id}
                    data-testid="destination-enabled"
                    aria-label={`Send to ${t.name}`}
                    onChange={(e) => {
                      const enabled = e.target.checked
                      setAsked({ id: t.id, enabled })
                      void act(t.id, () => api.setDestinationEnabled(stream.id, t.id, enabled))
                    }}
                  />
                  Enabled
                </label>
                <ConfirmButton
                  label="Delete"
                  question={`Delete "${t.name}"?`}
                  confirmLabel="Delete"
                  testId="destination-delete"
                  disabled={busy === t.id}
                  onConfirm={() => act(t.id, () => api.removeDestination(stream.id, t.id))}
                />
              </div>
            </li>
          ))}
        </ul>
      )}
      {error && <ErrorNote error={error} testId="destinations-error" />}
      {adding && (
        <AddDestinationForm
          stream={stream}
          onCancel={() => setAdding(false)}
          onAdded={(view) => {
            d.set(view)
            setAdding(false)
          }}
        />
      )}
    </section>
  )
}

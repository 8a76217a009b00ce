// One webhook's last deliveries (the service's webhook log), newest first: the event, when, the
// receiver's answer, and Resend.
import { useState, type ReactNode } from 'react'
import type { AppError } from '../../../../shared/result'
import type { WebhookDelivery } from '../../../../shared/webhooks'
import { useApi } from '../../lib/api'
import { formatDate } from '../../lib/format'
import { Empty, ErrorNote, Loading } from '../../components/ErrorNote'
import { useDeliveries } from './use-webhooks'

/** "200 OK", "503 Service Unavailable", or why nothing answered. */
export function answerOf(d: WebhookDelivery): string {
  if (d.status === undefined) return 'no answer'
  return d.statusText ? `${d.status} ${d.statusText}` : String(d.status)
}

export function Deliveries({ webhookId }: { webhookId: string }): ReactNode {
  const api = useApi()
  const list = useDeliveries(webhookId)
  const [error, setError] = useState<AppError | null>(null)
  const [sending, setSending] = useState<string | null>(null)

  const resend = async (d: WebhookDelivery): Promise<void> => {
    setSending(d.id)
    setError(null)
    const r = await api.resendWebhookDelivery(webhookId, d.id)
    setSending(null)
    if (!r.ok) setError(r.error)
    list.reload()
  }

  return (
    <div className="webhook-deliveries" aria-label="Last deliveries">
      <div className="list-meta">
        <span>Last deliveries</span>
        <button
          type="button"
          className="secondary"
          data-testid="deliveries-refresh"
          onClick={list.reload}
        >
          Refresh
        </button>
      </div>
      {error && <ErrorNote error={error} />}
      {list.error ? (
        <ErrorNote error={list.error} onRetry={list.reload} />
      ) : !list.value ? (
        <Loading label="Loading deliveries…" />
      ) : list.value.length === 0 ? (
        <Empty>
          <p data-testid="deliveries-empty">
            Nothing sent yet: a delivery appears here when one of its events happens.
          </p>
        </Empty>
      ) : (
        <table className="list-table">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Event</th>
              <th scope="col">Answer</th>
              <th scope="col">Took</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.value.map((d) => (
              <tr
                key={d.id}
                data-testid="webhook-delivery"
                data-success={d.success ? 'true' : 'false'}
              >
                <td>{formatDate(d.createdAt)}</td>
                <td className="mono" data-testid="delivery-event">
                  {d.event}
                </td>
                <td>
                  <span className={`badge ${d.success ? 'badge-ready' : 'badge-failed'}`}>
                    {answerOf(d)}
                  </span>
                </td>
                <td className="mono">{d.durationMs !== undefined ? `${d.durationMs} ms` : '—'}</td>
                <td>
                  <button
                    type="button"
                    className="secondary"
                    data-testid="delivery-resend"
                    disabled={sending !== null}
                    aria-label={`Resend ${d.event} from ${formatDate(d.createdAt)}`}
                    onClick={() => void resend(d)}
                  >
                    {sending === d.id ? 'Sending…' : 'Resend'}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  )
}

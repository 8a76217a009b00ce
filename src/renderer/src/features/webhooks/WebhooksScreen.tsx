// Webhooks (#34 §7): where the service POSTs your streams' events. Add one (name, address, events) and
// see its signing secret once; list them with the secret masked, as stream keys are; each one's last
// deliveries with the receiver's answer, resend one; delete.
import { useState, type ReactNode } from 'react'
import type { AppError } from '../../../../shared/result'
import {
  WEBHOOK_EVENTS,
  type AddedWebhook,
  type WebhookEvent,
  type WebhookView
} from '../../../../shared/webhooks'
import { useApi } from '../../lib/api'
import { formatDate } from '../../lib/format'
import { ConfirmButton } from '../../components/ConfirmButton'
import { CopyButton } from '../../components/CopyButton'
import { Empty, ErrorNote, Loading } from '../../components/ErrorNote'
import { Field } from '../../components/Field'
import { Deliveries } from './Deliveries'
import { useWebhooks } from './use-webhooks'
import '../../styles/webhooks.css'

const DEFAULT_EVENTS: WebhookEvent[] = ['stream.started', 'stream.idle', 'recording.ready']
const URL_SHAPE = /^https?:\/\/[^\s/]+/i

export function WebhooksScreen(): ReactNode {
  const list = useWebhooks()
  const [added, setAdded] = useState<AddedWebhook | null>(null)
  return (
    <section className="screen webhooks-screen" aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      <p className="muted">
        The service sends your streams&apos; events (went live, went idle, recording ready…) to
        these addresses as they happen, each signed with the webhook&apos;s secret in its
        Livepeer-Signature header (HMAC-SHA256 of the body).
      </p>
      {added && <NewSecret added={added} onDone={() => setAdded(null)} />}
      <AddWebhookForm
        onAdded={(a) => {
          setAdded(a)
          list.reload()
        }}
      />
      <h2>Your webhooks</h2>
      {list.error ? (
        <ErrorNote error={list.error} onRetry={list.reload} />
      ) : !list.value ? (
        <Loading label="Loading webhooks…" />
      ) : list.value.length === 0 ? (
        <Empty>
          <p data-testid="webhooks-empty">No webhooks yet. Add one above.</p>
        </Empty>
      ) : (
        <ul className="webhook-list">
          {list.value.map((w) => (
            <WebhookRow key={w.id} webhook={w} onDeleted={list.reload} />
          ))}
        </ul>
      )}
    </section>
  )
}

/** The secret, this once: the service never returns it and Onair keeps no copy. */
function NewSecret({ added, onDone }: { added: AddedWebhook; onDone: () => void }): ReactNode {
  const [error, setError] = useState<AppError | null>(null)
  return (
    <div className="card notice webhook-secret" role="status" data-testid="webhook-secret-card">
      <p>
        <strong>{added.webhook.name}</strong> signs its deliveries with this secret. Copy it now
        into the receiving service: it is not shown again.
      </p>
      <p className="secret-line">
        <code className="mono" data-testid="webhook-secret">
          {added.secret}
        </code>
        <CopyButton
          label="Copy the webhook's secret"
          getText={() => ({ ok: true, value: added.secret })}
          onError={setError}
        />
        <button type="button" data-testid="webhook-secret-done" onClick={onDone}>
          Done
        </button>
      </p>
      {error && <ErrorNote error={error} />}
    </div>
  )
}

function AddWebhookForm({ onAdded }: { onAdded: (a: AddedWebhook) => void }): ReactNode {
  const api = useApi()
  const [name, setName] = useState('')
  const [url, setUrl] = useState('')
  const [events, setEvents] = useState<Set<WebhookEvent>>(new Set(DEFAULT_EVENTS))
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<AppError | null>(null)
  const [tried, setTried] = useState(false)
  const nameIssue = tried && !name.trim() ? 'A name, to tell it from the others.' : null
  const urlIssue =
    tried && !URL_SHAPE.test(url.trim())
      ? 'An address starting with http:// or https://, e.g. https://example.com/onair.'
      : null
  const eventsIssue = tried && events.size === 0 ? 'At least one event.' : null

  const submit = async (): Promise<void> => {
    setTried(true)
    if (!name.trim() || !URL_SHAPE.test(url.trim()) || events.size === 0) return
    setBusy(true)
    setError(null)
    const r = await api.addWebhook({
      name: name.trim(),
      url: url.trim(),
      events: WEBHOOK_EVENTS.filter((e) => events.has(e))
    })
    setBusy(false)
    if (!r.ok) return setError(r.error)
    setName('')
    setUrl('')
    setTried(false)
    onAdded(r.value)
  }

  return (
    <form
      className="card form webhook-form"
      aria-label="Add a webhook"
      onSubmit={(e) => {
        e.preventDefault()
        void submit()
      }}
    >
      <div className="webhook-fields">
        <Field label="Name" issue={nameIssue}>
          {(c) => (
            <input
              {...c}
              value={name}
              maxLength={200}
              data-testid="webhook-name"
              onChange={(e) => setName(e.target.value)}
            />
          )}
        </Field>
        <Field label="Address (URL)" issue={urlIssue}>
          {(c) => (
            <input
              {...c}
              value={url}
              inputMode="url"
              placeholder="https://example.com/onair"
              data-testid="webhook-url"
              onChange={(e) => setUrl(e.target.value)}
            />
          )}
        </Field>
      </div>
      <fieldset
        className="webhook-events"
        aria-describedby={eventsIssue ? 'events-issue' : undefined}
      >
        <legend>Events</legend>
        {WEBHOOK_EVENTS.map((ev) => (
          <label className="check" key={ev}>
            <input
              type="checkbox"
              checked={events.has(ev)}
              data-testid={`webhook-event-${ev}`}
              onChange={(e) =>
                setEvents((s) => {
                  const next = new Set(s)
                  if (e.target.checked) next.add(ev)
                  else next.delete(ev)
                  return next
                })
              }
            />
            <span className="mono">{ev}</span>
          </label>
        ))}
        {eventsIssue && (
          <span className="field-issue" id="events-issue">
            {eventsIssue}
          </span>
        )}
      </fieldset>
      {error && <ErrorNote error={error} testId="webhook-add-error" />}
      <div className="actions">
        <button type="submit" disabled={busy} data-testid="webhook-add">
          {busy ? 'Adding…' : 'Add webhook'}
        </button>
      </div>
    </form>
  )
}

function WebhookRow({
  webhook: w,
  onDeleted
}: {
  webhook: WebhookView
  onDeleted: () => void
}): ReactNode {
  const api = useApi()
  const [open, setOpen] = useState(false)
  const [error, setError] = useState<AppError | null>(null)
  return (
    <li className="card webhook-row" data-testid="webhook-row" data-webhook-id={w.id}>
      <div className="webhook-head">
        <strong className="ellipsis" title={w.name}>
          {w.name}
        </strong>
        <span className="mono ellipsis webhook-url" title={w.url}>
          {w.url}
        </span>
        <span className="spacer" />
        <button
          type="button"
          className="secondary"
          aria-expanded={open}
          data-testid="webhook-deliveries"
          onClick={() => setOpen((o) => !o)}
        >
          {open ? 'Hide deliveries' : 'Deliveries'}
        </button>
        <ConfirmButton
          label="Delete"
          question={`Delete ${w.name}? Its deliveries stop at once.`}
          confirmLabel="Delete"
          testId="webhook-delete"
          onConfirm={async () => {
            const r = await api.deleteWebhook(w.id)
            if (r.ok) onDeleted()
            else setError(r.error)
          }}
        />
      </div>
      <dl className="kv webhook-kv">
        <dt>Events</dt>
        <dd className="mono">{w.events.join(', ')}</dd>
        <dt>Secret</dt>
        <dd>
          <span className="mono" aria-label="Secret, hidden">
            ••••••••••••
          </span>
          <span className="muted">shown once, when it was added</span>
        </dd>
        <dt>Last sent</dt>
        <dd data-testid="webhook-last">
          {w.lastTriggeredAt ? formatDate(w.lastTriggeredAt) : 'nothing yet'}
          {w.lastFailure && (
            <span className="bad-text">
              last failure {formatDate(w.lastFailure.at)}
              {w.lastFailure.statusCode ? `: HTTP ${w.lastFailure.statusCode}` : ''}
              {w.lastFailure.error ? `: ${w.lastFailure.error}` : ''}
            </span>
          )}
        </dd>
      </dl>
      {error && <ErrorNote error={error} />}
      {open && <Deliveries webhookId={w.id} />}
    </li>
  )
}

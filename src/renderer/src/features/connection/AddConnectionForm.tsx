import { useId, useState, type FormEvent, type ReactNode } from 'react'
import type { ConnectionView } from '../../../../shared/contract'
import type { AppError } from '../../../../shared/result'
import { useApi } from '../../lib/api'
import { ErrorNote } from '../../components/ErrorNote'
import { Field } from '../../components/Field'

const LIVEPEER_URL = 'https://livepeer.studio/api'

/**
 * Adds a Livepeer Studio (or compatible) connection. The core checks the key with a real call before it
 * stores it in the keychain, so a rejected key saves nothing. The key field is a password field and is
 * emptied once saved: the renderer never gets the key back.
 */
export function AddConnectionForm({
  onAdded
}: {
  onAdded: (c: ConnectionView) => void
}): ReactNode {
  const api = useApi()
  const [kind, setKind] = useState<'livepeer' | 'custom'>('livepeer')
  const [name, setName] = useState('')
  const [baseUrl, setBaseUrl] = useState('')
  const [apiKey, setApiKey] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<AppError | null>(null)
  const errorId = useId()

  const check = (): AppError | null => {
    if (kind === 'custom') {
      if (!baseUrl.trim())
        return {
          code: 'bad-request',
          field: 'baseUrl',
          message: 'API URL is required for a custom service.'
        }
      try {
        const u = new URL(baseUrl.trim())
        if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme')
      } catch {
        return {
          code: 'bad-request',
          field: 'baseUrl',
          message: 'API URL must be an http:// or https:// address, e.g. http://127.0.0.1:8080/api.'
        }
      }
    }
    if (!apiKey.trim())
      return { code: 'bad-request', field: 'apiKey', message: 'API key is required.' }
    return null
  }

  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault()
    const bad = check()
    setError(bad)
    if (bad) return
    setBusy(true)
    const r = await api.addConnection({
      kind,
      name: name.trim() || undefined,
      baseUrl: kind === 'custom' ? baseUrl.trim() : undefined,
      apiKey: apiKey.trim()
    })
    setBusy(false)
    if (!r.ok) return setError(r.error)
    setApiKey('')
    setName('')
    setBaseUrl('')
    onAdded(r.value)
  }

  return (
    <form className="card form narrow" onSubmit={submit} aria-label="Add a connection" noValidate>
      <h2>Add a connection</h2>
      <label>
        Service
        <select
          value={kind}
          data-testid="connection-kind"
          onChange={(e) => setKind(e.target.value as 'livepeer' | 'custom')}
        >
          <option value="livepeer">Livepeer Studio</option>
          <option value="custom">Custom (Livepeer-Studio-compatible)</option>
        </select>
      </label>
      <label>
        Name (optional)
        <input value={name} onChange={(e) => setName(e.target.value)} placeholder="My studio" />
      </label>
      <Field label="API URL" describedBy={error?.field === 'baseUrl' ? errorId : undefined}>
        {(control) =>
          kind === 'livepeer' ? (
            <input {...control} value={LIVEPEER_URL} readOnly aria-readonly="true" />
          ) : (
            <input
              {...control}
              value={baseUrl}
              data-testid="connection-url"
              onChange={(e) => setBaseUrl(e.target.value)}
              placeholder="http://127.0.0.1:8080/api"
            />
          )
        }
      </Field>
      <Field label="API key" describedBy={error?.field === 'apiKey' ? errorId : undefined}>
        {(control) => (
          <input
            {...control}
            type="password"
            autoComplete="off"
            spellCheck={false}
            value={apiKey}
            data-testid="connection-key"
            onChange={(e) => setApiKey(e.target.value)}
          />
        )}
      </Field>
      <p className="hint">
        The key is checked with the service first, then kept in your OS keychain only.
      </p>
      {error && (
        <ErrorNote
          id={errorId}
          testId="add-connection-error"
          error={
            error.code === 'key-rejected'
              ? { ...error, message: `Key rejected: ${error.message}` }
              : error.code === 'network'
                ? { ...error, message: `Network error: ${error.message}` }
                : error
          }
        />
      )}
      <div className="actions">
        <button type="submit" disabled={busy} data-testid="connection-save">
          {busy ? 'Checking key…' : 'Check and save'}
        </button>
      </div>
    </form>
  )
}

import { useState, type ReactNode } from 'react'
import type { StreamView } from '../../../../shared/contract'
import type { AppError } from '../../../../shared/result'
import { useApi } from '../../lib/api'
import { CopyButton } from '../../components/CopyButton'
import { ErrorNote } from '../../components/ErrorNote'

/** Ingest URL and key: the key stays masked until the user asks, and is fetched only then. */
export function StreamKey({ stream }: { stream: StreamView }): ReactNode {
  const api = useApi()
  const [revealed, setRevealed] = useState<string | null>(null)
  const [error, setError] = useState<AppError | null>(null)

  const toggle = async (): Promise<void> => {
    if (revealed) return setRevealed(null)
    const r = await api.revealStreamKey(stream.id)
    if (!r.ok) return setError(r.error)
    setError(null)
    setRevealed(r.value)
  }
  return (
    <dl className="kv">
      <dt>Ingest URL</dt>
      <dd>
        <code data-testid="ingest-url">{stream.ingestUrl}</code>
        <CopyButton
          label="Copy ingest URL"
          getText={() => ({ ok: true, value: stream.ingestUrl })}
        />
      </dd>
      <dt>Stream key</dt>
      <dd>
        <code data-testid="stream-key" data-masked={revealed ? 'false' : 'true'}>
          {revealed ?? stream.streamKeyMasked}
        </code>
        <button
          type="button"
          className="secondary"
          data-testid="reveal-key"
          aria-pressed={revealed !== null}
          onClick={toggle}
        >
          {revealed ? 'Hide' : 'Reveal'}
        </button>
        <CopyButton
          label="Copy stream key"
          testId="copy-key"
          getText={() => api.revealStreamKey(stream.id)}
          onError={setError}
        />
      </dd>
      <dt>Playback URL</dt>
      <dd>
        <code data-testid="playback-url">{stream.playbackUrl}</code>
        <CopyButton
          label="Copy playback URL"
          getText={() => ({ ok: true, value: stream.playbackUrl })}
        />
      </dd>
      {error && (
        <dd>
          <ErrorNote error={error} />
        </dd>
      )}
    </dl>
  )
}

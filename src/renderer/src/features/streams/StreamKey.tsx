import { useState, type ReactNode } from 'react'
import type { StreamView } from '../../../../shared/contract'
import type { AppError } from '../../../../shared/result'
import { useApi } from '../../lib/api'
import { CopyButton } from '../../components/CopyButton'
import { ErrorNote } from '../../components/ErrorNote'

/** A URL that is no secret: shown as it is, with its copy button. */
function CopyableUrl({
  title,
  copyLabel,
  url,
  testId
}: {
  title: string
  copyLabel: string
  url: string
  testId: string
}): ReactNode {
  return (
    <>
      <dt>{title}</dt>
      <dd>
        <code data-testid={testId}>{url}</code>
        <CopyButton label={copyLabel} getText={() => ({ ok: true, value: url })} />
      </dd>
    </>
  )
}

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
      <CopyableUrl
        title="Ingest URL"
        copyLabel="Copy ingest URL"
        url={stream.ingestUrl}
        testId="ingest-url"
      />
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
      <CopyableUrl
        title="Playback URL"
        copyLabel="Copy playback URL"
        url={stream.playbackUrl}
        testId="playback-url"
      />
      {error && (
        <dd>
          <ErrorNote error={error} />
        </dd>
      )}
    </dl>
  )
}

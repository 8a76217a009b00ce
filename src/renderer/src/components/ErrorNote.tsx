import type { ReactNode } from 'react'
import type { AppError } from '../../../shared/result'

/** An error with its way out: what happened, what to do, and a button when trying again can help. */
export function ErrorNote({
  error,
  onRetry,
  retryLabel = 'Try again',
  testId,
  id
}: {
  error: AppError
  onRetry?: () => void
  retryLabel?: string
  testId?: string
  /** For a field whose problem this is (its aria-describedby). */
  id?: string
}): ReactNode {
  return (
    <div
      className="error-note"
      role="alert"
      id={id}
      data-testid={testId ?? 'error'}
      data-code={error.code}
    >
      <p className="error-message">{error.message}</p>
      {error.hint && <p className="error-hint">{error.hint}</p>}
      {onRetry && (
        <button type="button" onClick={onRetry}>
          {retryLabel}
        </button>
      )}
    </div>
  )
}

export function Loading({ label = 'Loading…' }: { label?: string }): ReactNode {
  return (
    <p className="loading" role="status" aria-live="polite">
      {label}
    </p>
  )
}

export function Empty({ children }: { children: ReactNode }): ReactNode {
  return <div className="empty">{children}</div>
}

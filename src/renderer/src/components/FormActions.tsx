import type { ReactNode } from 'react'
import type { AppError } from '../../../shared/result'
import { ErrorNote } from './ErrorNote'

/** The end of a form: what the service said, the submit button (its busy words while sending), Cancel. */
export function FormActions({
  label,
  busyLabel,
  busy,
  error,
  testId,
  errorTestId,
  onCancel
}: {
  label: string
  busyLabel: string
  busy: boolean
  error: AppError | null
  testId: string
  errorTestId: string
  onCancel: () => void
}): ReactNode {
  return (
    <>
      {error && <ErrorNote error={error} testId={errorTestId} />}
      <div className="actions">
        <button type="submit" disabled={busy} data-testid={testId}>
          {busy ? busyLabel : label}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </>
  )
}

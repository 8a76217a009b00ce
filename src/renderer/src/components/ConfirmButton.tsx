import { useState, type ReactNode } from 'react'

/** A destructive action that asks once more in place, so the question sits next to what it is about. */
export function ConfirmButton({
  label,
  question,
  confirmLabel,
  onConfirm,
  disabled,
  testId
}: {
  label: string
  question: string
  confirmLabel: string
  onConfirm: () => void | Promise<void>
  disabled?: boolean
  testId?: string
}): ReactNode {
  const [asking, setAsking] = useState(false)
  const [busy, setBusy] = useState(false)
  if (!asking)
    return (
      <button
        type="button"
        className="danger"
        disabled={disabled}
        data-testid={testId}
        onClick={() => setAsking(true)}
      >
        {label}
      </button>
    )
  return (
    <span className="confirm" role="group" aria-label={question}>
      <span>{question}</span>
      <button
        type="button"
        className="danger"
        disabled={busy}
        data-testid={testId ? `${testId}-confirm` : undefined}
        onClick={async () => {
          setBusy(true)
          try {
            await onConfirm()
          } finally {
            setBusy(false)
            setAsking(false)
          }
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" className="secondary" autoFocus onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  )
}

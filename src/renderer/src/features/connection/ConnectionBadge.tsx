import type { ReactNode } from 'react'
import { useConnectionStatus } from './use-connection-status'

/** Always-visible hint of where the app is talking to, and whether the local studio is up. */
export function ConnectionBadge({ onOpen }: { onOpen: () => void }): ReactNode {
  const { value, error } = useConnectionStatus()
  let text = 'Connecting…'
  let tone = 'muted'
  if (error) {
    text = 'Connection unknown'
    tone = 'bad'
  } else if (value) {
    const a = value.active
    if (!a) {
      text = 'No connection'
      tone = 'bad'
    } else if (a.kind === 'local') {
      text = `Local studio: ${value.local.state}`
      tone =
        value.local.state === 'ready' ? 'good' : value.local.state === 'failed' ? 'bad' : 'muted'
    } else {
      text = a.name
      tone = 'good'
    }
  }
  return (
    <button
      type="button"
      className={`conn-badge tone-${tone}`}
      data-testid="connection-badge"
      onClick={onOpen}
      aria-label={`Connection: ${text}. Open connection settings`}
    >
      <span className="dot" aria-hidden="true" />
      {text}
    </button>
  )
}

// The first start: until the guide has been finished or skipped (DeviceSettings.setupGuide), the
// screen Onair opens on offers it. It is not a modal: the app works around it, and Skip ends it.
import { useState, type ReactNode } from 'react'
import type { AppError } from '../../../../shared/result'
import { useApi } from '../../lib/api'
import { useResult } from '../../lib/use-result'
import { ErrorNote } from '../../components/ErrorNote'
import { SetupGuide, markGuide } from './SetupGuide'

export function SetupInvite(): ReactNode {
  const api = useApi()
  const settings = useResult(() => api.getSettings(), [api])
  const [open, setOpen] = useState(false)
  const [gone, setGone] = useState(false)
  const [error, setError] = useState<AppError | null>(null)
  if (gone || !settings.value || settings.value.setupGuide) return null
  return (
    <section
      className="card setup-invite"
      aria-labelledby="setup-invite-title"
      data-testid="setup-invite"
    >
      <h2 id="setup-invite-title">New here? Set up for this computer and this connection</h2>
      <p>
        A one-minute test measures your upload and what this computer&apos;s encoder holds, then
        recommends the size, frame rate and bitrate to stream at.
      </p>
      <div className="setup-actions">
        <button type="button" onClick={() => setOpen(true)} data-testid="setup-open">
          Run the setup test
        </button>
        <button
          type="button"
          className="secondary"
          onClick={() =>
            void markGuide(api, 'skipped').then((e) => (e ? setError(e) : setGone(true)))
          }
        >
          Not now
        </button>
      </div>
      {error && <ErrorNote error={error} />}
      {open && (
        <SetupGuide
          onClose={() => {
            setOpen(false)
            settings.reload()
          }}
        />
      )}
    </section>
  )
}

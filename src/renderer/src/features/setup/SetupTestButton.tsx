// "Run the setup test" from the Output settings: the first-run guide again, whenever the creator wants.
import { useState, type ReactNode } from 'react'
import type { OutputSettings } from '../../../../shared/contract'
import { SetupGuide } from './SetupGuide'

export function SetupTestButton({
  onApplied
}: {
  onApplied: (o: Partial<OutputSettings>) => void
}): ReactNode {
  const [open, setOpen] = useState(false)
  return (
    <>
      <button
        type="button"
        className="secondary"
        onClick={() => setOpen(true)}
        data-testid="output-setup-test"
      >
        Run the setup test
      </button>
      {open && <SetupGuide onClose={() => setOpen(false)} onApplied={onApplied} />}
    </>
  )
}

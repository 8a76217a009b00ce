import type { ReactNode } from 'react'
import { useViewers } from './use-viewers'
import { unavailableText } from './viewers-text'

const watching = (n: number): string => `${n.toLocaleString()} watching`

/** The live bar's "12 watching", while the run is running. Says nothing when the service cannot. */
export function ViewerCount({ streamId }: { streamId: string }): ReactNode {
  const v = useViewers(streamId, true)
  if (!v) return null
  if (v.now === null)
    return (
      <span
        className="viewers muted"
        data-testid="live-viewers"
        title={v.unavailable && unavailableText(v.unavailable)}
      >
        Viewers unknown
      </span>
    )
  return (
    <span className="viewers" data-testid="live-viewers" aria-live="off">
      {watching(v.now)}
    </span>
  )
}

/** The stream page's "Most watching when last live: 3", once Onair has been live on it. */
export function ViewerPeak({ streamId }: { streamId: string }): ReactNode {
  const v = useViewers(streamId, false)
  if (v?.peak === null || v?.peak === undefined) return null
  return (
    <p className="muted" data-testid="viewer-peak">
      Most watching when last live from Onair: {v.peak.toLocaleString()}
    </p>
  )
}

import type { ReactNode } from 'react'
import { destinationsSummary } from '../../../../shared/destinations'
import { useDestinations } from './use-destinations'

/**
 * The live banner's "+ 2 destinations (1 retrying)", after "Live on <stream>". Reads the stream's
 * destinations every few seconds while mounted (the banner mounts it only while the run is running);
 * the full list with each reason is on the stream page.
 */
export function DestinationsSummary({ streamId }: { streamId: string }): ReactNode {
  const d = useDestinations(streamId, true)
  const list = d.view?.destinations ?? []
  const text = destinationsSummary(list.map((t) => t.state))
  if (!text) return null
  const retrying = list.filter((t) => t.state === 'retrying')
  return (
    <span
      className={`destinations-summary${retrying.length ? ' has-trouble' : ''}`}
      data-testid="live-destinations"
      // The names and reasons on hover: the sentence itself only counts (the stream page has the rest).
      title={list.map((t) => `${t.name}: ${t.state}${t.reason ? ` (${t.reason})` : ''}`).join('\n')}
    >
      {text}
    </span>
  )
}

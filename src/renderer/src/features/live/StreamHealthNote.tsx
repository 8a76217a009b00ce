import type { ReactNode } from 'react'
import { streamHealthInWords } from '../../../../shared/stream-health'
import { useStream, useStreamPoll } from '../../lib/use-stream'

/**
 * The service's verdict on the live stream (its isHealthy, issues and health conditions), in the creator's words
 * (shared/stream-health.ts): read from the stream's one poller (lib/stream-store.ts), the same read
 * the destinations' summary and the stream page use, so it costs no request of its own. Says
 * nothing while the stream is fine or the service has no verdict yet.
 */
export function StreamHealthNote({ streamId }: { streamId: string }): ReactNode {
  const { value: s } = useStream(streamId)
  useStreamPoll(streamId, true)
  if (!s?.isActive) return null
  const words = streamHealthInWords({
    isHealthy: s.isHealthy,
    issues: s.issues,
    conditions: s.healthConditions,
    renditions: s.profiles.map((p) => p.name)
  })
  if (words.level !== 'trouble') return null
  return (
    <div className="warning stream-health" role="status" data-testid="stream-health">
      {words.sentences.map((line) => (
        <p key={line}>{line}</p>
      ))}
    </div>
  )
}

// The health strip of a Low latency (WebRTC) run: what getStats() says the page sends, what the
// congestion controller thinks the link carries, and why the encoder holds back, if it does.
import type { ReactNode } from 'react'
import { formatBitrate } from '../../lib/format'
import type { WebRtcStats } from './engine/whip-publisher'
import { webRtcLimit } from './webrtc-limit'

export function WebRtcHealth({ stats }: { stats: WebRtcStats | null }): ReactNode {
  if (!stats) return <p className="muted">WebRTC: connecting…</p>
  const limit = webRtcLimit(stats)
  return (
    <div className="health" data-testid="webrtc-health" data-size={stats.size} role="status">
      <span data-testid="webrtc-out" data-kbps={stats.outKbps}>
        WebRTC {formatBitrate(stats.outKbps * 1000)} out
      </span>
      {stats.availableKbps !== undefined && (
        <span data-testid="webrtc-available" data-kbps={stats.availableKbps}>
          {' '}
          · link carries about {formatBitrate(stats.availableKbps * 1000)}
        </span>
      )}
      <span> · {stats.fps} fps</span>
      {stats.width && stats.height ? (
        <span>
          {' '}
          · {stats.width}×{stats.height}
        </span>
      ) : null}
      <span data-testid="webrtc-limited" data-reason={stats.limitation} data-cause={limit?.cause}>
        {limit ? ` · limited by ${limit.words}` : ''}
      </span>
    </div>
  )
}

import type { ReactNode } from 'react'
import type { LiveHealthEvent } from '../../../../shared/contract'

const LEVEL = ['fine', 'watch', 'struggling', 'failing to keep up'] as const
/** Trouble shorter than this is normal jitter; longer is worth telling the creator about. */
export const SUSTAINED_MS = 5000

export function HealthStrip({
  health,
  troubleSince,
  now
}: {
  health: LiveHealthEvent | null
  troubleSince: number | null
  now: number
}): ReactNode {
  if (!health)
    return (
      <p className="health muted" data-testid="health-strip">
        Waiting for encoder stats…
      </p>
    )
  const sustained = troubleSince !== null && now - troubleSince > SUSTAINED_MS
  return (
    <div className="health-wrap">
      <dl className="health" data-testid="health-strip" aria-label="Stream health">
        <div>
          <dt>Bitrate</dt>
          <dd data-testid="health-kbps">{Math.round(health.kbps)} kbps</dd>
        </div>
        <div>
          <dt>FPS</dt>
          <dd data-testid="health-fps">{health.fps.toFixed(0)}</dd>
        </div>
        <div>
          <dt>Dropped</dt>
          <dd data-testid="health-dropped">{health.droppedFrames}</dd>
        </div>
        <div>
          <dt>Speed</dt>
          <dd data-testid="health-speed">{health.speed.toFixed(2)}×</dd>
        </div>
        <div>
          <dt>Network</dt>
          <dd data-testid="health-congestion" data-level={health.congestion}>
            <span className={`congestion c${health.congestion}`} aria-hidden="true">
              {[0, 1, 2, 3].map((i) => (
                <i key={i} className={i <= health.congestion ? 'on' : ''} />
              ))}
            </span>
            {LEVEL[health.congestion]}
          </dd>
        </div>
      </dl>
      {sustained && (
        <p className="warning" role="alert" data-testid="health-warning">
          The stream has been struggling for {Math.round((now - (troubleSince ?? now)) / 1000)} s:
          the encoder or the network cannot keep up. Lower the bitrate or resolution, or close other
          apps.
        </p>
      )}
    </div>
  )
}

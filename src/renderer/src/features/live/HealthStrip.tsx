import type { ReactNode } from 'react'
import type { LiveHealthEvent } from '../../../../shared/contract'
import { formatBitrate } from '../../lib/format'
import { encoderText } from './encoder-text'
import { recoveringText, skippedText, sustainedText, uplinkAlertText } from './health-text'
import type { EncoderStats } from './engine/pusher'

const LEVEL = ['fine', 'watch', 'struggling', 'failing to keep up'] as const
/** Signal bars, as on a phone: four when fine, one when failing, so the bars and the word agree. */
const BARS = 4
/** Trouble shorter than this is normal jitter; longer is worth telling the creator about. */
export const SUSTAINED_MS = 5000

export function HealthStrip({
  health,
  troubleSince,
  now,
  pageSkips
}: {
  health: LiveHealthEvent | null
  troubleSince: number | null
  now: number
  /** Onair's encoder: frames this computer skipped before handing them over (raw-pusher.ts). */
  pageSkips?: number | undefined
}): ReactNode {
  if (!health)
    return (
      <p className="health muted" data-testid="health-strip">
        Waiting for encoder stats…
      </p>
    )
  const sustained = troubleSince !== null && now - troubleSince > SUSTAINED_MS
  const up = health.uplink
  // The upload's trouble is told at once: main has already acted on it (a lower bitrate, a drop).
  const uplinkNow = up !== undefined && up.state === 'limited' && health.shortfall !== undefined
  // Rates one way, as everywhere in the app: "2.4 / 2.628 Mbps".
  const sent = formatBitrate(health.kbps * 1000)
  const target = formatBitrate(health.targetKbps * 1000)
  return (
    <div className="health-wrap">
      <dl className="health" data-testid="health-strip" aria-label="Stream health">
        <div>
          <dt>Bitrate</dt>
          <dd data-testid="health-kbps" aria-label={`${sent} of ${target}`}>
            {sent.replace(' Mbps', '')} / {target}
          </dd>
        </div>
        <div>
          <dt>Frame rate</dt>
          <dd
            data-testid="health-fps"
            aria-label={`${Math.round(health.fps)} of ${health.targetFps} fps`}
          >
            {Math.round(health.fps)} / {health.targetFps} fps
          </dd>
        </div>
        {up && (
          <div>
            <dt>Waiting to send</dt>
            <dd
              data-testid="health-queued"
              aria-label={`${(up.queuedMs / 1000).toFixed(1)} seconds waiting to be sent`}
            >
              {(up.queuedMs / 1000).toFixed(1)} s
            </dd>
          </div>
        )}
        <div>
          <dt>Dropped</dt>
          <dd data-testid="health-dropped" data-cause={up?.cause ?? ''}>
            {up ? `${(up.droppedMs / 1000).toFixed(1)} s` : health.droppedFrames}
          </dd>
        </div>
        {(pageSkips !== undefined || up?.encoderSkipped !== undefined) && (
          <div>
            <dt>Skipped</dt>
            <dd
              data-testid="health-skipped"
              data-page={pageSkips ?? 0}
              data-encoder={up?.encoderSkipped ?? 0}
              aria-label={skippedText(pageSkips ?? 0, up?.encoderSkipped ?? 0)}
              title={skippedText(pageSkips ?? 0, up?.encoderSkipped ?? 0)}
            >
              {(pageSkips ?? 0) + (up?.encoderSkipped ?? 0)}
            </dd>
          </div>
        )}
        {up?.cpuPercent !== undefined && (
          <div>
            <dt>CPU</dt>
            <dd
              data-testid="health-cpu"
              aria-label={`This computer's processor is ${up.cpuPercent} percent busy`}
            >
              {up.cpuPercent} %
            </dd>
          </div>
        )}
        <div>
          <dt>Speed</dt>
          <dd data-testid="health-speed">{health.speed.toFixed(2)}×</dd>
        </div>
        <div>
          <dt>Health</dt>
          <dd data-testid="health-congestion" data-level={health.congestion}>
            <span
              className={`congestion c${health.congestion}`}
              aria-hidden="true"
              data-testid="health-bars"
              data-lit={BARS - health.congestion}
            >
              {Array.from({ length: BARS }, (_, i) => (
                <i key={i} className={i < BARS - health.congestion ? 'on' : ''} />
              ))}
            </span>
            {LEVEL[health.congestion]}
          </dd>
        </div>
      </dl>
      {uplinkNow && health.shortfall && (
        <p className="warning" role="alert" data-testid="health-uplink">
          {uplinkAlertText(health.shortfall)}
        </p>
      )}
      {up && up.state === 'recovering' && (
        <p className="muted" role="status" data-testid="health-uplink-recovering">
          {recoveringText(up.videoTargetKbps, up.maxVideoKbps)}
        </p>
      )}
      {sustained && !uplinkNow && (
        <p className="warning" role="alert" data-testid="health-warning">
          {sustainedText(Math.round((now - (troubleSince ?? now)) / 1000), health.shortfall)}
        </p>
      )}
    </div>
  )
}

/** The encoder in use while live; its picture size and rate change when it steps down or up. */
export function EncoderLine({ encoder }: { encoder: EncoderStats | null }): ReactNode {
  if (!encoder) return null
  return (
    <p
      className="muted"
      data-testid="health-encoder"
      data-path={encoder.path}
      data-encoder={encoder.encoder ?? ''}
      data-width={encoder.width}
      data-height={encoder.height}
      data-fps={encoder.fps}
      data-target={encoder.targetKbps}
      data-measured={encoder.measuredKbps ?? ''}
      data-measured-for={encoder.measuredForKbps ?? ''}
      data-measured-fps={encoder.measuredFps ?? ''}
      data-backlog={encoder.backlogBytes ?? ''}
      data-lag={encoder.lagMs ?? ''}
      data-audio-behind={encoder.audioBehindMs ?? ''}
      data-audio-jumps={encoder.audioJumps ?? ''}
      data-audio-filled={encoder.audioFilledMs ?? ''}
      data-audio-in={encoder.audioIn ?? ''}
      data-budget-skips={encoder.budgetSkips ?? ''}
      data-queue-skips={encoder.queueSkips ?? ''}
      data-pipe-skips={encoder.pipeSkips ?? ''}
      data-copy-ms={encoder.copyMs ?? ''}
      data-call-ms={encoder.callMs ?? ''}
    >
      Encoder: {encoderText(encoder)}
    </p>
  )
}

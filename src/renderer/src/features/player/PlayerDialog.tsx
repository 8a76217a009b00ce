import { useRef, type ReactNode } from 'react'
import type { SessionView } from '../../../../shared/contract'
import type { Profile } from '../../../../shared/profiles'
import { formatBitrate, formatDate } from '../../lib/format'
import { ErrorNote, Loading } from '../../components/ErrorNote'
import { useNow } from '../../lib/use-now'
import { useDialog } from '../../components/use-dialog'
import { useHls, type Rendition } from './use-hls'

/**
 * "360p (640×360), 800 kbps": the bitrate is the profile's own when the session says which profile
 * the rendition is (the playlist's BANDWIDTH adds audio and headroom on top of it).
 */
export const renditionLabel = (r: Rendition, profiles: readonly Profile[] = []): string => {
  // The source (recorded as it arrived) is never a profile, even at a profile's size.
  const source = r.name === 'source'
  const p = source
    ? undefined
    : (profiles.find((x) => r.name !== undefined && x.name === r.name) ??
      profiles.find((x) => x.width === r.width && x.height === r.height))
  const name = source ? 'Source' : r.height ? `${r.height}p` : (r.name ?? `Level ${r.index + 1}`)
  const size = r.width ? ` (${r.width}×${r.height})` : ''
  return `${name}${size}, ${formatBitrate(p?.bitrate ?? r.bitrate)}`
}

/** What the player shows: a session's recording, or a stream's live output (the live monitor). */
export type PlayerSource =
  | { kind: 'recording'; session: SessionView }
  | { kind: 'live'; streamName: string; url: string; profiles: Profile[] }

/**
 * A recording, or the live monitor, in an overlay: video, quality menu, the rendition playing now,
 * and for live how far behind live it is. Escape closes it.
 */
export function PlayerDialog({
  source,
  onClose
}: {
  source: PlayerSource
  onClose: () => void
}): ReactNode {
  const video = useRef<HTMLVideoElement>(null)
  const closeButton = useRef<HTMLButtonElement>(null)
  const live = source.kind === 'live'
  const url = live ? source.url : (source.session.recordingUrl ?? '')
  const profiles = live ? source.profiles : source.session.profiles
  const hls = useHls(video, url, { live })
  // Live: re-read how far behind live the picture is twice a second.
  useNow(500, live)
  const behind = live ? hls.behindLive() : null

  const box = useRef<HTMLDivElement>(null)
  // Focus moves into the dialog, stays there, and goes back to the Play button that opened it.
  useDialog(box, closeButton, onClose)

  return (
    <div className="overlay" role="presentation" onClick={onClose}>
      <div
        className="dialog player"
        ref={box}
        role="dialog"
        aria-modal="true"
        aria-labelledby="player-title"
        data-testid={live ? 'live-monitor' : 'player'}
        onClick={(e) => e.stopPropagation()}
      >
        <div className="screen-head">
          <h2 id="player-title">
            {live
              ? `Live monitor: ${source.streamName}`
              : `Recording from ${formatDate(source.session.createdAt)}`}
          </h2>
          <span className="spacer" />
          <button type="button" ref={closeButton} className="secondary" onClick={onClose}>
            Close
          </button>
        </div>
        <video ref={video} controls muted playsInline data-testid="player-video" />
        {hls.loading && (
          <Loading label={live ? 'Waiting for the live stream…' : 'Loading recording…'} />
        )}
        {hls.error && <ErrorNote error={hls.error} onRetry={hls.retry} testId="player-error" />}
        <div className="player-bar">
          <label>
            Quality
            <select
              value={hls.selected}
              data-testid="quality-menu"
              disabled={hls.renditions.length === 0}
              onChange={(e) => hls.select(Number(e.target.value))}
            >
              <option value={-1}>Auto</option>
              {hls.renditions.map((r) => (
                <option key={r.index} value={r.index}>
                  {renditionLabel(r, profiles)}
                </option>
              ))}
            </select>
          </label>
          <span data-testid="rendition-now" aria-live="polite">
            {hls.playing
              ? `Playing ${renditionLabel(hls.playing, profiles)}`
              : hls.error
                ? 'Not playing'
                : 'Choosing a rendition…'}
          </span>
          {live && (
            <span data-testid="live-latency" data-seconds={behind ?? ''}>
              {behind === null ? 'Live' : `Live · ${behind.toFixed(1)} s behind`}
            </span>
          )}
          {hls.renditions.length === 1 && (
            <span className="muted">
              Single rendition: {live ? 'this stream is' : 'this session was'} not transcoded.
            </span>
          )}
        </div>
      </div>
    </div>
  )
}

import { useRef, type ReactNode } from 'react'
import type { SessionView } from '../../../../shared/contract'
import type { Profile } from '../../../../shared/profiles'
import { formatBitrate, formatDate } from '../../lib/format'
import { ErrorNote, Loading } from '../../components/ErrorNote'
import { useDialog } from '../../components/use-dialog'
import { useHls, type Rendition } from './use-hls'

/**
 * "360p (640×360), 800 kbps": the bitrate is the profile's own when the session says which profile
 * the rendition is (the playlist's BANDWIDTH adds audio and headroom on top of it).
 */
export const renditionLabel = (r: Rendition, profiles: readonly Profile[] = []): string => {
  const p =
    profiles.find((x) => r.name !== undefined && x.name === r.name) ??
    profiles.find((x) => x.width === r.width && x.height === r.height)
  const name = r.height ? `${r.height}p` : (r.name ?? `Level ${r.index + 1}`)
  const size = r.width ? ` (${r.width}×${r.height})` : ''
  return `${name}${size}, ${formatBitrate(p?.bitrate ?? r.bitrate)}`
}

/** A recording in an overlay: video, quality menu, the rendition playing now. Escape closes it. */
export function PlayerDialog({
  session,
  onClose
}: {
  session: SessionView
  onClose: () => void
}): ReactNode {
  const video = useRef<HTMLVideoElement>(null)
  const closeButton = useRef<HTMLButtonElement>(null)
  const hls = useHls(video, session.recordingUrl ?? '')

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
        data-testid="player"
        onClick={(e) => e.stopPropagation()}
      >
        <div className="screen-head">
          <h2 id="player-title">Recording from {formatDate(session.createdAt)}</h2>
          <span className="spacer" />
          <button type="button" ref={closeButton} className="secondary" onClick={onClose}>
            Close
          </button>
        </div>
        <video ref={video} controls muted playsInline data-testid="player-video" />
        {hls.loading && <Loading label="Loading recording…" />}
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
                  {renditionLabel(r, session.profiles)}
                </option>
              ))}
            </select>
          </label>
          <span data-testid="rendition-now" aria-live="polite">
            {hls.playing
              ? `Playing ${renditionLabel(hls.playing, session.profiles)}`
              : hls.error
                ? 'Not playing'
                : 'Choosing a rendition…'}
          </span>
          {hls.renditions.length === 1 && (
            <span className="muted">Single rendition: this session was not transcoded.</span>
          )}
        </div>
      </div>
    </div>
  )
}

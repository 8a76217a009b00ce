import { useRef, useState, type ReactNode } from 'react'
import type { ClipView, SessionView } from '../../../../shared/contract'
import type { Profile } from '../../../../shared/profiles'
import { formatBitrate, formatDate } from '../../lib/format'
import { ErrorNote, Loading } from '../../components/ErrorNote'
import { useNow } from '../../lib/use-now'
import { useDialog } from '../../components/use-dialog'
import { useApi } from '../../lib/api'
import type { AppError } from '../../../../shared/result'
import { useHls, type Rendition } from './use-hls'
import { useLiveRun } from '../../lib/live-run'
import { SessionMoments } from '../clips/SessionMoments'
import { clipFailureText } from '../clips/clip-text'
import { useWhep } from './use-whep'
import { useResult } from '../../lib/use-result'

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
  const name = source ? 'Source' : r.height ? `${r.height}p` : r.name || `Level ${r.index + 1}`
  const size = r.width ? ` (${r.width}×${r.height})` : ''
  // A lone media playlist (a clip's, an uploaded video's) says no bitrate: none is shown.
  const bitrate = p?.bitrate ?? r.bitrate
  return bitrate ? `${name}${size}, ${formatBitrate(bitrate)}` : `${name}${size}`
}

/**
 * Saving the recording: its MP4 (the service's own file: the source) or any rendition of its ladder
 * (remuxed to MP4 by the app, no re-encode), each through the app's one download path.
 */
function RecordingDownload({
  session,
  renditions,
  profiles
}: {
  session: SessionView
  renditions: readonly Rendition[]
  profiles: readonly Profile[]
}): ReactNode {
  const api = useApi()
  const hasMp4 = !!session.mp4Url && session.recordingStatus === 'ready'
  const [choice, setChoice] = useState('')
  const [saving, setSaving] = useState(false)
  const [error, setError] = useState<AppError | null>(null)
  const options = [
    ...(hasMp4 ? [{ value: MP4, label: 'Source (the MP4 the service keeps)' }] : []),
    ...renditions.map((r) => ({ value: r.url, label: renditionLabel(r, profiles) }))
  ]
  if (options.length === 0) return null
  const picked = options.some((o) => o.value === choice) ? choice : options[0]!.value
  const save = async (): Promise<void> => {
    setSaving(true)
    setError(null)
    const r = await api.downloadRecording(session.id, picked === MP4 ? undefined : picked)
    setSaving(false)
    if (!r.ok) setError(r.error)
  }
  return (
    <div className="player-download">
      <label>
        Download
        <select
          value={picked}
          data-testid="download-choice"
          onChange={(e) => setChoice(e.target.value)}
        >
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        className="secondary"
        data-testid="player-download"
        disabled={saving}
        onClick={() => void save()}
      >
        {saving ? 'Saving…' : 'Save MP4'}
      </button>
      {error && <ErrorNote error={error} testId="player-download-error" />}
    </div>
  )
}

/** The download choice that is the session's own MP4 (every other choice is a rendition's playlist). */
const MP4 = 'mp4'

/**
 * What the player shows: a session's recording, a clip, an uploaded video (an asset, its playback
 * read from the service: GET /asset/{id}), or a stream's live output (the live monitor).
 */
export type PlayerSource =
  | { kind: 'recording'; session: SessionView }
  | { kind: 'clip'; clip: ClipView }
  | { kind: 'asset'; assetId: string; name: string }
  | {
      kind: 'live'
      streamId: string
      streamName: string
      url: string
      profiles: Profile[]
      /** Plays by WHEP first when the service offers it (the playback info's WebRTC source). */
      playbackId?: string
    }

/**
 * A recording, or the live monitor, in an overlay: video, quality menu, the rendition playing now,
 * and for live how far behind live it is. Escape closes it.
 */
export function PlayerDialog({
  source,
  onClose,
  onPlayClip
}: {
  source: PlayerSource
  onClose: () => void
  /** Plays one of a recording's clips (in this same dialog). */
  onPlayClip?: (c: ClipView) => void
}): ReactNode {
  const video = useRef<HTMLVideoElement>(null)
  const closeButton = useRef<HTMLButtonElement>(null)
  const live = source.kind === 'live'
  const api = useApi()
  // An uploaded video: where it plays is the service's answer about the asset (GET /asset/{id}).
  const assetId = source.kind === 'asset' ? source.assetId : ''
  const asset = useResult(
    () =>
      assetId ? api.getClip(assetId) : Promise.resolve({ ok: true as const, value: undefined }),
    [api, assetId]
  )
  const url = live
    ? source.url
    : source.kind === 'clip'
      ? (source.clip.playbackUrl ?? '')
      : source.kind === 'asset'
        ? (asset.value?.playbackUrl ?? '')
        : (source.session.recordingUrl ?? '')
  const profiles = live
    ? source.profiles
    : source.kind === 'recording'
      ? source.session.profiles
      : []
  // Live: WebRTC (WHEP) where the service offers it, HLS otherwise.
  const whep = useWhep(video, live ? source.playbackId : undefined)
  const byHls = !live || whep.kind === 'unavailable'
  const hls = useHls(video, byHls ? url : '', { live })
  // Live: re-read how far behind live the picture is twice a second.
  useNow(500, live)
  // The broadcaster's pushed media clock, when this app is the one broadcasting this stream.
  const { run, health } = useLiveRun()
  const epoch =
    live && run?.streamId === source.streamId && health?.runId === run.runId
      ? health.mediaEpoch
      : undefined
  const behind = live ? hls.behindLive(epoch) : null
  // Titled with the stream's name (cut with an ellipsis when long; whole in the tooltip).
  const title = live
    ? `Live monitor: ${source.streamName}`
    : source.kind === 'clip'
      ? `Clip: ${source.clip.name}`
      : source.kind === 'asset'
        ? `Video: ${source.name}`
        : `${source.session.name || 'Recording'}: recorded ${formatDate(source.session.createdAt)}`
  const [clipError, setClipError] = useState<AppError | null>(null)
  const [soundOn, setSoundOn] = useState(false)

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
        data-testid={
          live
            ? 'live-monitor'
            : source.kind === 'clip'
              ? 'clip-player'
              : source.kind === 'asset'
                ? 'asset-player'
                : 'player'
        }
        onClick={(e) => e.stopPropagation()}
      >
        <div className="screen-head">
          <h2 id="player-title" className="ellipsis" title={title}>
            {title}
          </h2>
          <span className="spacer" />
          <button type="button" ref={closeButton} className="secondary" onClick={onClose}>
            Close
          </button>
        </div>
        <video ref={video} controls playsInline data-testid="player-video" />
        {hls.autoplay === 'muted' && !soundOn && (
          <button
            type="button"
            className="sound-on"
            data-testid="player-sound"
            onClick={() => {
              if (video.current) video.current.muted = false
              setSoundOn(true)
            }}
          >
            Muted by the browser: click for sound
          </button>
        )}
        {hls.loading && byHls && (
          <Loading
            label={
              live
                ? 'Waiting for the live stream…'
                : source.kind === 'asset'
                  ? 'Loading video…'
                  : 'Loading recording…'
            }
          />
        )}
        {hls.error && <ErrorNote error={hls.error} onRetry={hls.retry} testId="player-error" />}
        {asset.error && (
          <ErrorNote error={asset.error} onRetry={asset.reload} testId="player-error" />
        )}
        {asset.value && asset.value.state !== 'ready' && (
          <p className="muted" data-testid="player-asset-state">
            {asset.value.state === 'failed'
              ? `This video could not be processed: ${clipFailureText(asset.value.failure)}`
              : 'This video is still being processed by the service.'}
          </p>
        )}
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
            <span
              data-testid="monitor-transport"
              data-transport={whep.kind === 'playing' ? 'webrtc' : byHls ? 'hls' : 'trying'}
            >
              {whep.kind === 'playing'
                ? 'By WebRTC (WHEP)'
                : whep.kind === 'trying'
                  ? 'Trying WebRTC…'
                  : `By HLS (${whep.why})`}
            </span>
          )}
          {live && byHls && (
            <span data-testid="live-latency" data-seconds={behind ?? ''}>
              {behind === null ? 'Live' : `Live · ${behind.toFixed(1)} s behind`}
            </span>
          )}
          {source.kind === 'clip' && source.clip.downloadUrl && (
            <button
              type="button"
              className="secondary"
              data-testid="player-clip-save"
              onClick={() =>
                void api
                  .downloadClip(source.clip.id)
                  .then((r) => setClipError(r.ok ? null : r.error))
              }
            >
              Save MP4
            </button>
          )}
          {source.kind === 'recording' && (
            <RecordingDownload
              session={source.session}
              renditions={hls.renditions}
              profiles={profiles}
            />
          )}
          {hls.renditions.length === 1 && (source.kind === 'recording' || live) && (
            <span className="muted">
              Single rendition: {live ? 'this stream is' : 'this session was'} not transcoded.
            </span>
          )}
        </div>
        {clipError && <ErrorNote error={clipError} testId="player-clip-error" />}
        {source.kind === 'recording' && (
          <SessionMoments
            session={source.session}
            fragments={hls.fragments}
            video={video}
            onPlayClip={(c) => onPlayClip?.(c)}
          />
        )}
      </div>
    </div>
  )
}

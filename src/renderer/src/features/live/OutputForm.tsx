import { useEffect, useState } from 'react'
import type { ReactNode } from 'react'
import {
  X264_PRESETS,
  type EncoderChoice,
  type EncoderInfo,
  type OutputSettings,
  type VideoEncoderId,
  type X264Preset
} from '../../../../shared/contract'
import { useApi } from '../../lib/api'
import { defaultEncoderChoice, type EncoderSupport } from './engine/encoder-plan'
import { unavailableText } from './encoder-text'
import { browserEncoderSupport } from './engine/webcodecs-pusher'
import { SetupTestButton } from '../setup/SetupTestButton'

export const RESOLUTIONS = [
  { label: '1080p (1920×1080)', width: 1920, height: 1080 },
  { label: '720p (1280×720)', width: 1280, height: 720 },
  { label: '480p (854×480)', width: 854, height: 480 },
  { label: '360p (640×360)', width: 640, height: 360 }
]

export function outputIssue(o: OutputSettings): string | null {
  if (
    !Number.isInteger(o.videoBitrateKbps) ||
    o.videoBitrateKbps < 200 ||
    o.videoBitrateKbps > 20000
  )
    return 'Video bitrate must be a whole number from 200 to 20000 kbps.'
  return null
}

export function OutputForm({
  value,
  onChange,
  disabled
}: {
  value: OutputSettings
  onChange: (o: OutputSettings) => void
  disabled: boolean
}): ReactNode {
  const res = `${value.width}x${value.height}`
  const issue = outputIssue(value)
  const support = useEncoderSupport(value)
  const encoders = useAppEncoders()
  // WebRTC sends the page's own encoding (its peer connection encodes); RTMP goes through Onair's
  // encoder unless the browser's is chosen.
  const rtmp = value.transport !== 'webrtc'
  const chosen = value.videoEncoder ?? 'x264'
  return (
    <fieldset className="output output-grid" disabled={disabled}>
      <legend>Output</legend>
      <label>
        Resolution
        <select
          value={res}
          data-testid="output-resolution"
          onChange={(e) => {
            const [w, h] = e.target.value.split('x').map(Number)
            onChange({ ...value, width: w ?? value.width, height: h ?? value.height })
          }}
        >
          {RESOLUTIONS.map((r) => (
            <option key={r.label} value={`${r.width}x${r.height}`}>
              {r.label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Frame rate
        <select
          value={value.fps}
          data-testid="output-fps"
          onChange={(e) => onChange({ ...value, fps: Number(e.target.value) })}
        >
          {[24, 25, 30, 50, 60].map((f) => (
            <option key={f} value={f}>
              {f} fps
            </option>
          ))}
        </select>
      </label>
      <label>
        Video bitrate (kbps)
        <input
          inputMode="numeric"
          value={Number.isNaN(value.videoBitrateKbps) ? '' : value.videoBitrateKbps}
          data-testid="output-bitrate"
          aria-invalid={issue ? true : undefined}
          aria-describedby={issue ? 'output-issue' : undefined}
          onChange={(e) => onChange({ ...value, videoBitrateKbps: Number(e.target.value) })}
        />
      </label>
      <label>
        Send by
        <select
          value={value.transport ?? 'rtmp'}
          data-testid="output-transport"
          onChange={(e) =>
            onChange({ ...value, transport: e.target.value === 'webrtc' ? 'webrtc' : 'rtmp' })
          }
        >
          <option value="rtmp">RTMP (destinations, every service)</option>
          <option value="webrtc">Low latency (WebRTC)</option>
        </select>
      </label>
      {value.transport === 'webrtc' && (
        <p className="muted" data-testid="output-transport-note">
          WebRTC sends straight from this page, about a second behind, and adapts its rate to the
          upload. The service still records it and sends it on to your destinations. Record on this
          computer encodes its copy a second time, here, at the Output's bitrate.
        </p>
      )}
      {rtmp && <AppEncoderSelect value={value} onChange={onChange} encoders={encoders} />}
      {rtmp && chosen === 'x264' && (
        <label>
          x264 preset
          <select
            value={value.x264Preset ?? 'veryfast'}
            data-testid="output-x264-preset"
            aria-describedby="x264-preset-note"
            onChange={(e) => onChange({ ...value, x264Preset: e.target.value as X264Preset })}
          >
            {X264_PRESETS.map((p) => (
              <option key={p} value={p}>
                {p === 'veryfast' ? 'veryfast (default)' : p}
              </option>
            ))}
          </select>
        </label>
      )}
      {(!rtmp || chosen === 'browser') && (
        <EncoderSelect value={value} onChange={onChange} support={support} />
      )}
      <p className="muted output-keyframes" id="x264-preset-note">
        Keyframe every {value.keyframeIntervalSec} s,{' '}
        {rtmp && chosen !== 'browser' ? '2 B-frames (as OBS).' : 'no B-frames.'}
        {rtmp && chosen === 'x264' && ' Faster presets use less CPU, slower ones look better.'}
      </p>
      {issue && (
        <p className="field-issue" role="alert" id="output-issue">
          {issue}
        </p>
      )}
      <p className="output-setup-test">
        <SetupTestButton onApplied={(o) => onChange({ ...value, ...o })} />
      </p>
    </fieldset>
  )
}

/** The encoders Onair's encoder process can start here (main probes them once); [] while asked. */
function useAppEncoders(): EncoderInfo[] | undefined {
  const api = useApi()
  const [list, setList] = useState<EncoderInfo[]>()
  useEffect(() => {
    let alive = true
    void api.listEncoders().then((r) => alive && setList(r.ok ? r.value : []))
    return () => {
      alive = false
    }
  }, [api])
  return list
}

/**
 * Onair's encoders (x264, and each hardware one: those this machine cannot start disabled, their
 * reason in the title and under the select when chosen), and the browser's (WebCodecs).
 */
function AppEncoderSelect({
  value,
  onChange,
  encoders
}: {
  value: OutputSettings
  onChange: (o: OutputSettings) => void
  encoders: EncoderInfo[] | undefined
}): ReactNode {
  if (!encoders) return <p className="muted">Encoder: checking what this computer has…</p>
  const chosen = value.videoEncoder ?? 'auto'
  const info = encoders.find((e) => e.id === chosen)
  const unavailable = info && !info.available ? info : undefined
  return (
    <>
      <label>
        Encoder
        <select
          value={chosen}
          data-testid="output-video-encoder"
          aria-describedby={unavailable ? 'video-encoder-issue' : undefined}
          onChange={(e) =>
            onChange({
              ...value,
              videoEncoder:
                e.target.value === 'auto'
                  ? undefined
                  : (e.target.value as VideoEncoderId | 'browser')
            })
          }
        >
          <option value="auto">Automatic (x264 with 4 or more CPU cores, else the browser)</option>
          {encoders.map((e) => (
            <option
              key={e.id}
              value={e.id}
              disabled={!e.available}
              title={e.available ? undefined : `Not available here: ${unavailableText(e)}`}
              data-reason={e.available ? '' : unavailableText(e)}
            >
              {e.available ? e.label : `${e.label} (not available here)`}
            </option>
          ))}
          <option value="browser">Browser (WebCodecs)</option>
        </select>
      </label>
      {unavailable && (
        <p
          className="field-issue"
          id="video-encoder-issue"
          data-testid="output-video-encoder-issue"
        >
          {unavailable.label} cannot start here: {unavailableText(unavailable)}. Onair uses x264
          instead.
        </p>
      )}
    </>
  )
}

/** What the system can encode at this size; undefined while the browser is being asked. */
function useEncoderSupport(o: OutputSettings): EncoderSupport | undefined {
  const [support, setSupport] = useState<{ key: string; value: EncoderSupport }>()
  const key = `${o.width}x${o.height}@${o.fps}`
  useEffect(() => {
    let alive = true
    void browserEncoderSupport(o).then((value) => alive && setSupport({ key, value }))
    return () => {
      alive = false
    }
    // Only the size and rate change the answer (the bitrate does not).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key])
  return support?.key === key ? support.value : undefined
}

function EncoderSelect({
  value,
  onChange,
  support
}: {
  value: OutputSettings
  onChange: (o: OutputSettings) => void
  support: EncoderSupport | undefined
}): ReactNode {
  if (!support) return <p className="muted">Encoder: checking what this system has…</p>
  if (!support.software && !support.hardware)
    return (
      <p className="muted" data-testid="output-encoder-fallback">
        Encoder: the browser&apos;s (MediaRecorder): this system has no WebCodecs H.264 encoder, so
        the bitrate cannot be held or changed while live.
      </p>
    )
  const shown: EncoderChoice =
    value.encoder === 'hardware' && !support.hardware
      ? 'software'
      : (value.encoder ?? defaultEncoderChoice(support))
  return (
    <label>
      Browser encoder
      <select
        value={shown}
        data-testid="output-encoder"
        onChange={(e) => onChange({ ...value, encoder: e.target.value as EncoderChoice })}
      >
        <option value="hardware" disabled={!support.hardware}>
          {support.hardware ? 'Hardware' : 'Hardware (none on this system for H.264)'}
        </option>
        <option value="software" disabled={!support.software}>
          Software
        </option>
      </select>
    </label>
  )
}

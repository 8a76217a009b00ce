// The audio panel (#34 §5), opened from the mixer on the Go live screen: each source's chain, side by
// side, as OBS's Advanced Audio Properties and its Gain, Compressor and Limiter filters: gain (dB),
// the compressor, the limiter, the sync offset and monitoring, with the source's meter (after its
// chain and volume) to watch what each change does. Saved in the settings (DeviceSettings.audio), heard
// at once (the mixer's setSourceAudio). A video file on air has its chain here too, saved with its
// source in the scenes (setSourceSound). The Camera and Screen sources show it over their own mix
// (MixerHost), with their sources only.
import { useEffect, useRef, useState, type ReactNode } from 'react'
import {
  AUDIO_RANGES,
  AUDIO_SOURCES,
  AUDIO_SOURCE_LABELS,
  MONITORING,
  MONITORING_LABELS,
  setSourceAudio,
  syncOffsetProblem,
  type AudioSettings,
  type Monitoring,
  type SourceAudio
} from '../../../../shared/audio'
import { Field } from '../../components/Field'
import { LevelMeter } from '../../components/LevelMeter'
import { useDialog } from '../../components/use-dialog'
import type { AudioMix, MixerHost } from './mixer'

interface Props {
  host: MixerHost
  audio: AudioSettings
  onAudio: (audio: AudioSettings) => void
  onClose: () => void
}

export function AudioPanel({ host, audio, onAudio, onClose }: Props): ReactNode {
  const box = useRef<HTMLDivElement>(null)
  const close = useRef<HTMLButtonElement>(null)
  useDialog(box, close, onClose)
  const outputs = useOutputs()
  const [sinkError, setSinkError] = useState<string | null>(null)
  const { mix } = host
  const sources = host.sources ?? AUDIO_SOURCES
  const videos = mix.states().filter((ch) => ch.video)
  const monitored = [
    ...sources.map((id) => audio.sources[id]),
    ...videos.map((ch) => mix.sourceAudio(ch.id))
  ].filter((a) => a.monitoring !== 'off')
  return (
    <div className="overlay" role="presentation">
      <div
        className="dialog audio-panel"
        ref={box}
        role="dialog"
        aria-modal="true"
        aria-labelledby="audio-panel-title"
        data-testid="audio-panel"
      >
        <div className="audio-panel-head">
          <h2 id="audio-panel-title">Audio</h2>
          <label className="audio-monitor-device">
            Monitor on
            <select
              value={audio.monitorDeviceId ?? ''}
              data-testid="audio-monitor-device"
              onChange={(e) => {
                const id = e.target.value || undefined
                const { monitorDeviceId: _, ...rest } = audio
                onAudio(id ? { ...rest, monitorDeviceId: id } : rest)
                void mix.setMonitorDevice(id).then(setSinkError)
              }}
            >
              <option value="">System default output</option>
              {outputs.map((d) => (
                <option key={d.deviceId} value={d.deviceId}>
                  {d.label || 'Output device'}
                </option>
              ))}
            </select>
          </label>
          <span className="spacer" />
          <button type="button" className="secondary" ref={close} onClick={onClose}>
            Close
          </button>
        </div>
        {sinkError && (
          <p className="field-issue" role="alert" data-testid="audio-sink-error">
            {sinkError}
          </p>
        )}
        {monitored.length > 0 && (
          <p className="muted small" data-testid="audio-monitor-note">
            Monitoring plays on this computer: use headphones, or the speakers feed the microphone
            back into the broadcast.
          </p>
        )}
        <div className="audio-sources">
          {sources.map((id) => (
            <SourceChain
              key={id}
              id={id}
              name={AUDIO_SOURCE_LABELS[id]}
              mix={mix}
              value={audio.sources[id]}
              onChange={(next) => onAudio(setSourceAudio(audio, id, next))}
            />
          ))}
          {videos.map((ch) => (
            <SourceChain
              key={ch.id}
              id={ch.id}
              name={ch.label}
              mix={mix}
              value={mix.sourceAudio(ch.id)}
              onChange={(next) => host.setSourceSound(ch.id, next)}
            />
          ))}
        </div>
      </div>
    </div>
  )
}

/** The output devices (for monitoring), once the browser names them. */
function useOutputs(): MediaDeviceInfo[] {
  const [outputs, setOutputs] = useState<MediaDeviceInfo[]>([])
  useEffect(() => {
    let live = true
    void navigator.mediaDevices
      ?.enumerateDevices()
      .then((all) => {
        if (live)
          setOutputs(all.filter((d) => d.kind === 'audiooutput' && d.deviceId !== 'default'))
      })
      .catch(() => undefined)
    return () => {
      live = false
    }
  }, [])
  return outputs
}

function SourceChain({
  id,
  name,
  mix,
  value,
  onChange
}: {
  /** 'mic', 'screen' or a video source's id. */
  id: string
  name: string
  mix: AudioMix
  value: SourceAudio
  onChange: (next: SourceAudio) => void
}): ReactNode {
  const c = value.compressor
  const l = value.limiter
  const R = AUDIO_RANGES
  const field = (
    key: string,
    label: string,
    v: number,
    range: { min: number; max: number },
    step: number,
    commit: (n: number) => void,
    problem?: (n: number) => string | null
  ): ReactNode => (
    <NumberField
      testId={`audio-${id}-${key}`}
      label={label}
      name={`${name} ${label.toLowerCase()}`}
      value={v}
      range={range}
      step={step}
      onCommit={commit}
      problem={problem}
    />
  )
  const comp = (patch: Partial<SourceAudio['compressor']>): void =>
    onChange({ ...value, compressor: { ...c, ...patch } })
  const lim = (patch: Partial<SourceAudio['limiter']>): void =>
    onChange({ ...value, limiter: { ...l, ...patch } })
  return (
    <section
      className="audio-source"
      aria-labelledby={`audio-${id}-name`}
      data-testid={`audio-source-${id}`}
    >
      <h3 id={`audio-${id}-name`}>{name}</h3>
      <LevelMeter
        labelledBy={`audio-${id}-name`}
        testId={`audio-meter-${id}`}
        read={() => mix.peak(id)}
        label={name}
      />
      <div className="audio-grid">
        {field('gain', 'Gain (dB)', value.gainDb, R.gainDb, 0.5, (gainDb) =>
          onChange({ ...value, gainDb })
        )}
        {field(
          'sync',
          'Sync offset (ms)',
          value.syncOffsetMs,
          R.syncOffsetMs,
          1,
          (syncOffsetMs) => onChange({ ...value, syncOffsetMs }),
          syncOffsetProblem
        )}
        <label className="audio-field">
          Monitoring
          <select
            value={value.monitoring}
            aria-label={`${name} monitoring`}
            data-testid={`audio-${id}-monitoring`}
            onChange={(e) => onChange({ ...value, monitoring: e.target.value as Monitoring })}
          >
            {MONITORING.map((m) => (
              <option key={m} value={m}>
                {MONITORING_LABELS[m]}
              </option>
            ))}
          </select>
        </label>
      </div>
      <fieldset className="audio-stage">
        <legend>
          <label className="check">
            <input
              type="checkbox"
              checked={c.enabled}
              aria-label={`${name} compressor`}
              data-testid={`audio-${id}-compressor`}
              onChange={(e) => comp({ enabled: e.target.checked })}
            />
            Compressor
          </label>
        </legend>
        <div className="audio-grid">
          {field('comp-threshold', 'Threshold (dB)', c.thresholdDb, R.thresholdDb, 1, (n) =>
            comp({ thresholdDb: n })
          )}
          {field('comp-ratio', 'Ratio (:1)', c.ratio, R.ratio, 0.5, (n) => comp({ ratio: n }))}
          {field('comp-attack', 'Attack (ms)', c.attackMs, R.attackMs, 1, (n) =>
            comp({ attackMs: n })
          )}
          {field('comp-release', 'Release (ms)', c.releaseMs, R.releaseMs, 1, (n) =>
            comp({ releaseMs: n })
          )}
          {field('comp-makeup', 'Makeup (dB)', c.makeupDb, R.makeupDb, 0.5, (n) =>
            comp({ makeupDb: n })
          )}
        </div>
      </fieldset>
      <fieldset className="audio-stage">
        <legend>
          <label className="check">
            <input
              type="checkbox"
              checked={l.enabled}
              aria-label={`${name} limiter`}
              data-testid={`audio-${id}-limiter`}
              onChange={(e) => lim({ enabled: e.target.checked })}
            />
            Limiter
          </label>
        </legend>
        <div className="audio-grid">
          {field('lim-ceiling', 'Ceiling (dBFS)', l.ceilingDb, R.ceilingDb, 0.5, (n) =>
            lim({ ceilingDb: n })
          )}
          {field('lim-release', 'Release (ms)', l.releaseMs, R.releaseMs, 1, (n) =>
            lim({ releaseMs: n })
          )}
        </div>
      </fieldset>
    </section>
  )
}

/**
 * A number typed in: taken once it is a number in range (or passes `problem`), else the field says
 * why and keeps the last good value. The text is the field's own while it is typed ("-" on the way to
 * "-6" is not refused).
 */
function NumberField({
  testId,
  label,
  name,
  value,
  range,
  step,
  onCommit,
  problem
}: {
  testId: string
  label: string
  /** The accessible name: the source's name and the label. */
  name: string
  value: number
  range: { min: number; max: number }
  step: number
  onCommit: (n: number) => void
  problem?: (n: number) => string | null
}): ReactNode {
  const [text, setText] = useState(String(value))
  const [error, setError] = useState<string | null>(null)
  // A change from elsewhere (a reload, another field's reset) shows here, unless it is what is typed.
  useEffect(() => {
    setText((t) => (Number(t) === value ? t : String(value)))
  }, [value])
  const check = (n: number): string | null =>
    problem
      ? problem(n)
      : !Number.isFinite(n)
        ? 'Type a number.'
        : n < range.min || n > range.max
          ? `From ${range.min} to ${range.max}.`
          : null
  return (
    <Field label={label} issue={error} issueTestId={`${testId}-error`} className="audio-field">
      {(control) => (
        <input
          {...control}
          type="number"
          inputMode="decimal"
          step={step}
          min={range.min}
          max={range.max}
          value={text}
          aria-label={name}
          data-testid={testId}
          onChange={(e) => {
            setText(e.target.value)
            const n = e.target.value.trim() === '' ? NaN : Number(e.target.value)
            const why = check(n)
            setError(why)
            if (!why) onCommit(n)
          }}
          onBlur={() => {
            if (!error) setText(String(value))
          }}
        />
      )}
    </Field>
  )
}

// The audio mixer: a meter, a gain and a mute per source, and the master meter with its clip light.
// Meters are the app's one meter (LevelMeter: dBFS, peak hold, a clip light that stays until cleared).
// Levels and mutes are the scene's (a video file's and an added screen's, their source's): a change
// goes through the program (heard at once) into the scenes, saved with them. "Audio settings" opens each source's chain (AudioPanel: gain, compressor, limiter,
// sync offset, monitoring), saved once for the source.
// The Camera and Screen sources (features/live/source-mix.ts) show the same mixer over their own mix
// (a MixerHost): only their channel, its level and mute kept in the audio settings (no scene keeps them).
// Under it, the microphone's own settings (#20): the browser's processing switches with what the
// browser applied, the noise gate (its threshold drawn on the microphone's meter) and push-to-talk.
import { useEffect, useReducer, useState, type ReactNode } from 'react'
import { setChannel, setSourceSound } from '../../../../shared/scenes'
import {
  GATE_DB,
  PROCESSING_KEYS,
  PROCESSING_LABELS,
  dbToLinear,
  linearToDb,
  meterFraction,
  type AudioSettings,
  type MicSettings
} from '../../../../shared/audio'
import { displayAccelerator } from '../../../../shared/hotkeys'
import type { SceneProgram } from './program'
import type { MixerHost } from './mixer'
import { LevelMeter } from '../../components/LevelMeter'
import { AudioPanel } from './AudioPanel'
import { useHotkeySettings } from '../../lib/use-hotkeys'
import { ErrorNote } from '../../components/ErrorNote'

/** A scene program's mixer: levels and mutes are the scene's, a video's are its source's. */
export const sceneMixer = (program: SceneProgram): MixerHost => ({
  mix: program.mix,
  setLevel: (ch, patch) =>
    program.edit((s) =>
      ch.id === 'mic' || ch.id === 'screen'
        ? setChannel(s, ch.id, patch)
        : setSourceSound(s, ch.id, patch)
    ),
  setSourceSound: (id, audio) => program.edit((s) => setSourceSound(s, id, { audio }))
})

interface MixerProps {
  host: MixerHost
  /** The microphone's switches, gate and push-to-talk (saved in the settings). */
  mic: MicSettings
  onMic: (mic: MicSettings) => void
  /** Each source's gain, compressor, limiter, sync offset and monitoring (saved in the settings). */
  audio: AudioSettings
  onAudio: (audio: AudioSettings) => void
}

export function MixerPanel({ host, mic, onMic, audio, onAudio }: MixerProps): ReactNode {
  const [, rerender] = useReducer((n: number) => n + 1, 0)
  const { mix } = host
  useEffect(() => mix.onChange(rerender), [mix])
  const [panel, setPanel] = useState(false)
  const level = host.setLevel
  // A camera's or a screen's mixer shows its own channel only (a video file's is always a scene's).
  const shown = (id: string): boolean =>
    !host.sources || !(id === 'mic' || id === 'screen') || host.sources.includes(id)
  const channels = mix.states().filter((ch) => shown(ch.id))

  return (
    <div className="mixer" role="group" aria-label="Audio mix" data-testid="mixer">
      {channels.map((ch) => (
        <div
          className="mixer-row"
          key={ch.id}
          data-testid={
            ch.video
              ? ch.kind === 'screen'
                ? 'channel-added-screen'
                : 'channel-video'
              : `channel-${ch.id}`
          }
          data-source={ch.id}
        >
          <span className="mixer-name" id={`ch-${ch.id}`}>
            {ch.label}
          </span>
          <LevelMeter
            labelledBy={`ch-${ch.id}`}
            testId={`meter-${ch.id}`}
            label={ch.label}
            read={() => mix.peak(ch.id)}
            {...(ch.id === 'mic' && mic.gate.enabled
              ? {
                  // The gate compares the level before the chain and volume; the meter shows it after.
                  marker: meterFraction(
                    linearToDb(
                      dbToLinear(mic.gate.thresholdDb + audio.sources.mic.gainDb) * ch.gain
                    )
                  ),
                  markerLabel: `Noise gate threshold: ${mic.gate.thresholdDb} dB`
                }
              : {})}
          />
          <input
            type="range"
            min={0}
            max={200}
            step={1}
            value={Math.round(ch.gain * 100)}
            aria-label={`${ch.label} volume`}
            aria-valuetext={`${Math.round(ch.gain * 100)} percent`}
            data-testid={`gain-${ch.id}`}
            onChange={(e) => level(ch, { gain: Number(e.target.value) / 100 })}
          />
          <button
            type="button"
            className={ch.muted ? 'danger mute' : 'secondary mute'}
            aria-pressed={ch.muted}
            data-testid={`mute-${ch.id}`}
            onClick={() => level(ch, { muted: !ch.muted })}
          >
            {ch.muted ? 'Muted' : 'Mute'}
          </button>
          {!ch.present && (
            <span className="muted small">
              {ch.kind === 'video'
                ? 'no sound (pick the file, or it has none)'
                : ch.kind === 'screen'
                  ? 'no sound (share it again)'
                  : 'not connected'}
            </span>
          )}
        </div>
      ))}
      <div className="mixer-row master">
        <span className="mixer-name" id="ch-master">
          Master
        </span>
        <LevelMeter
          labelledBy="ch-master"
          testId="meter-master"
          label="Master"
          read={() => mix.peak('master')}
        />
        <button
          type="button"
          className="secondary"
          aria-haspopup="dialog"
          data-testid="open-audio-panel"
          onClick={() => {
            mix.resume()
            setPanel(true)
          }}
        >
          Audio settings
        </button>
      </div>
      {shown('mic') && (
        <MicOptions host={host} mic={mic} onMic={onMic} audio={audio} onAudio={onAudio} />
      )}
      {panel && (
        <AudioPanel host={host} audio={audio} onAudio={onAudio} onClose={() => setPanel(false)} />
      )}
    </div>
  )
}

/** The microphone's processing switches, noise gate and push-to-talk. */
function MicOptions({ host, mic, onMic }: MixerProps): ReactNode {
  const state = host.mix.micState()
  const { view } = useHotkeySettings()
  const keyName = (action: 'push-to-talk' | 'push-to-mute'): string | null => {
    const k = view?.settings.bindings[action]
    return k && view ? displayAccelerator(k, view.status.os) : null
  }
  const talkKey = keyName('push-to-talk')
  const muteKey = keyName('push-to-mute')
  const applied = state.applied
  return (
    <fieldset className="mic-options" data-testid="mic-options">
      <legend>Microphone</legend>
      <div className="mic-switches">
        {PROCESSING_KEYS.map((k) => (
          <label className="check" key={k}>
            <input
              type="checkbox"
              checked={mic.processing[k]}
              data-testid={`mic-${k}`}
              onChange={(e) =>
                onMic({ ...mic, processing: { ...mic.processing, [k]: e.target.checked } })
              }
            />
            {PROCESSING_LABELS[k]}
          </label>
        ))}
      </div>
      <p className="muted small" data-testid="mic-applied" aria-live="polite">
        {applied
          ? `The browser applied: ${PROCESSING_KEYS.map(
              (k) =>
                `${PROCESSING_LABELS[k].toLowerCase()} ${
                  applied[k] === undefined ? 'not reported' : applied[k] ? 'on' : 'off'
                }${applied[k] !== undefined && applied[k] !== mic.processing[k] ? ' (it cannot switch this)' : ''}`
            ).join(', ')}.`
          : 'No microphone is open.'}
        {PROCESSING_KEYS.map((k) => (
          <span key={k} hidden data-testid={`applied-${k}`} data-value={String(applied?.[k])} />
        ))}
      </p>
      <div className="gate-row">
        <label className="check">
          <input
            type="checkbox"
            checked={mic.gate.enabled}
            data-testid="gate-enabled"
            onChange={(e) => onMic({ ...mic, gate: { ...mic.gate, enabled: e.target.checked } })}
          />
          Noise gate
        </label>
        <label className="gate-threshold">
          Threshold
          <input
            type="range"
            min={GATE_DB.min}
            max={GATE_DB.max}
            step={1}
            value={mic.gate.thresholdDb}
            disabled={!mic.gate.enabled}
            data-testid="gate-threshold"
            aria-valuetext={`${mic.gate.thresholdDb} decibels`}
            onChange={(e) =>
              onMic({ ...mic, gate: { ...mic.gate, thresholdDb: Number(e.target.value) } })
            }
          />
          <span className="mono small">{mic.gate.thresholdDb} dB</span>
        </label>
        {mic.gate.enabled && !state.gate.error && (
          <span
            className={state.gate.open ? 'gate-pill open' : 'gate-pill'}
            data-testid="gate-state"
            data-open={String(state.gate.open)}
          >
            {state.gate.open ? 'Open' : 'Shut'}
          </span>
        )}
      </div>
      {state.gate.error && (
        <ErrorNote
          error={{
            code: 'media',
            message: state.gate.error,
            hint: 'The microphone is not gated; the rest of the mix works.'
          }}
          testId="gate-error"
        />
      )}
      <div className="talk-row">
        <label className="check">
          <input
            type="checkbox"
            checked={mic.pushToTalk}
            data-testid="push-to-talk"
            onChange={(e) => onMic({ ...mic, pushToTalk: e.target.checked })}
          />
          Push to talk
        </label>
        <span
          className={state.talking ? 'talk-pill open' : 'talk-pill'}
          data-testid="talk-state"
          data-talking={String(state.talking)}
        >
          {state.talking ? 'Mic open' : 'Mic shut'}
        </span>
      </div>
      <p className="muted small" data-testid="talk-hint">
        {mic.pushToTalk
          ? talkKey
            ? `The microphone is open only while you hold ${talkKey}.`
            : 'Choose a push-to-talk key on the Keys screen: until then the microphone stays shut.'
          : muteKey
            ? `Hold ${muteKey} to shut the microphone for a moment.`
            : 'Push to talk and push to mute keys are chosen on the Keys screen.'}{' '}
        {(mic.pushToTalk || muteKey) &&
          'Held keys work while Onair is in front: in the background a key cannot be told held.'}
      </p>
    </fieldset>
  )
}

// What to broadcast (a scene, the camera, a screen, the test pattern) and, for the camera and scenes,
// which camera and microphone. A remembered device that is not plugged in now still shows, so the
// picker tells the truth.
import type { Dispatch, ReactNode, SetStateAction } from 'react'
import type { CaptureKind } from '../../../../shared/contract'
import type { SourceChoice } from './use-source'

const SOURCES: { kind: CaptureKind; label: string }[] = [
  { kind: 'scene', label: 'Scene: camera, screen, images and titles' },
  { kind: 'camera', label: 'Camera + microphone' },
  { kind: 'screen', label: 'Screen' },
  { kind: 'test-pattern', label: 'Test pattern' }
]

const missing = (id: string | undefined, list: MediaDeviceInfo[]): boolean =>
  !!id && !list.some((d) => d.deviceId === id)

function DeviceSelect({
  label,
  testId,
  value,
  devices,
  onChange
}: {
  label: 'Camera' | 'Microphone'
  testId: string
  value: string | undefined
  devices: MediaDeviceInfo[]
  onChange: (id: string | undefined) => void
}): ReactNode {
  const noun = label.toLowerCase()
  return (
    <label>
      {label}
      <select
        aria-label={label}
        data-testid={testId}
        value={value ?? ''}
        onChange={(e) => onChange(e.target.value || undefined)}
      >
        <option value="">Default {noun}</option>
        {missing(value, devices) && (
          <option value={value}>Remembered {noun} (not connected)</option>
        )}
        {devices.map((d, i) => (
          <option key={d.deviceId || i} value={d.deviceId}>
            {d.label || `${label} ${i + 1}`}
          </option>
        ))}
      </select>
    </label>
  )
}

export function SourcePicker({
  choice,
  setChoice,
  devices,
  disabled,
  screenOpen,
  onChooseScreen
}: {
  choice: SourceChoice | null
  setChoice: Dispatch<SetStateAction<SourceChoice | null>>
  devices: { video: MediaDeviceInfo[]; audio: MediaDeviceInfo[] }
  disabled: boolean
  /** A screen is being captured now (the button then offers another). */
  screenOpen: boolean
  onChooseScreen: () => void
}): ReactNode {
  return (
    <fieldset disabled={disabled}>
      <legend>Source</legend>
      {SOURCES.map((s) => (
        <label className="check" key={s.kind}>
          <input
            type="radio"
            name="source"
            value={s.kind}
            data-testid={`source-${s.kind}`}
            checked={choice?.kind === s.kind}
            onChange={() => setChoice((c) => ({ ...c, kind: s.kind }))}
          />
          {s.label}
        </label>
      ))}
      {(choice?.kind === 'camera' || choice?.kind === 'scene') && (
        <>
          <DeviceSelect
            label="Camera"
            testId="camera-select"
            value={choice.videoDeviceId}
            devices={devices.video}
            onChange={(videoDeviceId) => setChoice({ ...choice, videoDeviceId })}
          />
          <DeviceSelect
            label="Microphone"
            testId="mic-select"
            value={choice.audioDeviceId}
            devices={devices.audio}
            onChange={(audioDeviceId) => setChoice({ ...choice, audioDeviceId })}
          />
        </>
      )}
      {choice?.kind === 'screen' && (
        <button type="button" className="secondary" onClick={onChooseScreen}>
          {screenOpen ? 'Choose another screen' : 'Choose screen'}
        </button>
      )}
    </fieldset>
  )
}

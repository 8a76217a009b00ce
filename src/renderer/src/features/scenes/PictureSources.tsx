// The scenes panel's camera and screen rows, and Add camera with its device picker. Each camera is a
// source with its own device (the one chosen in the settings by default), each screen or window one
// with its own share; both are renamed and removed like the other sources. A view: every change is a
// reducer of shared/scenes.ts, handed to onChange.
import { useEffect, useState, type ReactNode } from 'react'
import {
  CAMERA_ID,
  LIMITS,
  SCREEN_ID,
  addCamera,
  canAddCamera,
  renameSource,
  setCameraDevice,
  type CameraSource,
  type SceneItem,
  type ScenesState,
  type ScreenSource
} from '../../../../shared/scenes'
import { listDevices } from '../../lib/capture'

type Change = (update: (state: ScenesState) => ScenesState) => void

/** The cameras this computer has (labels once the page may use a camera), kept up to date. */
export function useCameraList(): MediaDeviceInfo[] {
  const [cameras, setCameras] = useState<MediaDeviceInfo[]>([])
  useEffect(() => {
    const md = navigator.mediaDevices
    if (!md) return
    let live = true
    const read = (): void =>
      void listDevices().then(
        (d) => live && setCameras(d.video),
        () => undefined
      )
    read()
    md.addEventListener('devicechange', read)
    return () => {
      live = false
      md.removeEventListener('devicechange', read)
    }
  }, [])
  return cameras
}

const cameraLabel = (d: MediaDeviceInfo, i: number): string => d.label || `Camera ${i + 1}`

/** The device picker: the camera chosen in the settings, or one of the computer's cameras. */
function DeviceSelect(props: {
  value: string | null
  cameras: MediaDeviceInfo[]
  label: string
  testId: string
  onPick: (deviceId: string | null) => void
}): ReactNode {
  const { value, cameras } = props
  const known = value === null || cameras.some((d) => d.deviceId === value)
  return (
    <select
      value={value ?? ''}
      aria-label={props.label}
      data-testid={props.testId}
      onChange={(e) => props.onPick(e.target.value || null)}
    >
      <option value="">The camera in Devices</option>
      {cameras.map((d, i) => (
        <option key={d.deviceId} value={d.deviceId}>
          {cameraLabel(d, i)}
        </option>
      ))}
      {!known && <option value={value}>A camera not connected now</option>}
    </select>
  )
}

export interface PictureRowProps {
  item: SceneItem
  source: CameraSource | ScreenSource
  cameras: MediaDeviceInfo[]
  onChange: Change
  onVisible: (visible: boolean) => void
  onRemove: () => void
  sharing: boolean
  onShare: () => void
  onStopShare: () => void
}

/** A camera or a screen in the active scene: shown or not, its name, its device or share, Remove. */
export function PictureRow(props: PictureRowProps): ReactNode {
  const { item, source, onChange } = props
  const first = source.id === CAMERA_ID || source.id === SCREEN_ID
  const testId = first ? undefined : `${source.kind}-source`
  return (
    <li data-testid={testId} data-source-id={source.id}>
      <label className="check">
        <input
          type="checkbox"
          checked={item.visible}
          aria-label={`Show ${source.name}`}
          data-testid={first ? `show-${source.kind}` : undefined}
          onChange={(e) => props.onVisible(e.target.checked)}
        />
      </label>
      <input
        className="source-name"
        value={source.name}
        maxLength={LIMITS.nameLength}
        aria-label={`Name of ${source.name}`}
        data-testid="source-name"
        onChange={(e) => onChange((s) => renameSource(s, source.id, e.target.value))}
        onBlur={(e) => onChange((s) => renameSource(s, source.id, e.target.value, true))}
      />
      <span className="source-actions">
        {source.kind === 'camera' ? (
          <DeviceSelect
            value={source.videoDeviceId}
            cameras={props.cameras}
            label={`Device of ${source.name}`}
            testId="camera-device"
            onPick={(id) => onChange((s) => setCameraDevice(s, source.id, id))}
          />
        ) : (
          <>
            <button
              type="button"
              className="secondary"
              data-testid={first ? 'share-screen' : 'share-this-screen'}
              onClick={props.onShare}
            >
              {props.sharing ? 'Share another' : 'Choose screen or window'}
            </button>
            {props.sharing && (
              <button
                type="button"
                className="secondary"
                data-testid={first ? 'stop-screen' : 'stop-this-screen'}
                onClick={props.onStopShare}
              >
                Stop sharing
              </button>
            )}
          </>
        )}
        {!first && (
          <button
            type="button"
            className="secondary"
            onClick={props.onRemove}
            aria-label={`Remove ${source.name}`}
          >
            Remove
          </button>
        )}
      </span>
    </li>
  )
}

/** Add camera: a device picker (the computer's cameras by label), then Add. */
export function AddCamera(props: {
  state: ScenesState
  cameras: MediaDeviceInfo[]
  full: boolean
  onChange: Change
}): ReactNode {
  const { cameras } = props
  const [picking, setPicking] = useState(false)
  const [device, setDevice] = useState<string | null>(null)
  const room = !props.full && canAddCamera(props.state)
  if (!picking)
    return (
      <button
        type="button"
        className="secondary"
        data-testid="add-camera"
        disabled={!room}
        title={room ? undefined : `Scenes can use ${LIMITS.cameras} cameras at most.`}
        onClick={() => {
          // The first camera not already a source, else the one in the settings.
          const used = new Set(
            props.state.sources.flatMap((s) => (s.kind === 'camera' ? [s.videoDeviceId] : []))
          )
          setDevice(cameras.find((d) => !used.has(d.deviceId))?.deviceId ?? null)
          setPicking(true)
        }}
      >
        Add camera…
      </button>
    )
  const index = cameras.findIndex((d) => d.deviceId === device)
  const name = index >= 0 ? cameraLabel(cameras[index]!, index) : 'Camera'
  return (
    <span className="add-camera" role="group" aria-label="Add a camera">
      <DeviceSelect
        value={device}
        cameras={cameras}
        label="Camera to add"
        testId="add-camera-device"
        onPick={setDevice}
      />
      <button
        type="button"
        data-testid="add-camera-confirm"
        onClick={() => {
          props.onChange((s) => addCamera(s, { name, videoDeviceId: device }))
          setPicking(false)
        }}
      >
        Add
      </button>
      <button type="button" className="secondary" onClick={() => setPicking(false)}>
        Cancel
      </button>
    </span>
  )
}

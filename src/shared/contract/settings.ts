// Values: what "Go live" can capture (CAPTURE_KINDS, a table main's validator of saveSettings
// checks against), and the types of the device settings kept across starts (not secret).
import type { AudioSettings, MicSettings } from '../audio'
import type { ScenesState } from '../scenes'
import type { OutputSettings } from './live'

/** What "Go live" captures: a scene, the camera, a screen, or the test pattern. */
export const CAPTURE_KINDS = ['scene', 'camera', 'screen', 'test-pattern'] as const
export type CaptureKind = (typeof CAPTURE_KINDS)[number]

export interface DeviceSettings {
  videoDeviceId?: string
  audioDeviceId?: string
  output?: Partial<OutputSettings>
  sourceKind?: CaptureKind
  /**
   * The creator's scenes (shared/scenes.ts), read back through readScenes. Images are only named
   * here (content-addressed files, saveSceneImage / readSceneImage), never held.
   */
  scenes?: ScenesState
  /** Record on this computer: the switch's last position (default on) and the folder (default: Videos/Onair). */
  localRecording?: { enabled?: boolean; folder?: string }
  /** The first-run guide (the setup test): finished or skipped; absent, it opens on the first start. */
  setupGuide?: 'done' | 'skipped'
  /** The microphone's processing switches, noise gate and push-to-talk (shared/audio.ts, readMic). */
  mic?: MicSettings
  /** Each source's gain, compressor, limiter, sync offset and monitoring (shared/audio.ts, readAudio). */
  audio?: AudioSettings
}

// The Go live screen's remembered choices (source, devices, output, scenes): read once when the screen
// opens, saved a moment after the last change. A drag or a typed title is one save, not one per event;
// a save still pending when the screen goes (the creator navigates away, or closes the window) is made
// at once.
import { useCallback, useEffect, useRef, useState } from 'react'
import type { DeviceSettings, OutputSettings } from '../../../../shared/contract'
import { DEFAULT_OUTPUT } from '../../../../shared/output'
import { type ScenesState } from '../../../../shared/scenes'
import { readScenes } from '../../../../shared/scenes-saved'
import {
  DEFAULT_AUDIO,
  DEFAULT_MIC,
  readAudio,
  readMic,
  type AudioSettings,
  type MicSettings
} from '../../../../shared/audio'
import { useApi } from '../../lib/api'
import type { SourceChoice } from './use-source'
import type { RecordChoice } from './RecordSwitch'

const SAVE_AFTER_MS = 400

export function useGoLiveSettings() {
  const api = useApi()
  const [choice, setChoice] = useState<SourceChoice | null>(null)
  const [output, setOutput] = useState<OutputSettings>(DEFAULT_OUTPUT)
  const [scenes, setScenes] = useState<ScenesState | null>(null)
  // Record on this computer is on unless the creator switched it off.
  const [record, setRecord] = useState<RecordChoice>({ enabled: true })
  // The microphone's switches, gate and push-to-talk: the creator's, on every scene.
  const [mic, setMic] = useState<MicSettings>(DEFAULT_MIC)
  // Each source's chain (gain, compressor, limiter, sync offset, monitoring): the creator's, on every scene.
  const [audio, setAudio] = useState<AudioSettings>(DEFAULT_AUDIO)
  const loaded = useRef(false)

  // Remembered choices first, so the camera opens once, on the device the creator used last time.
  useEffect(() => {
    void api.getSettings().then((r) => {
      const s: DeviceSettings = r.ok ? r.value : {}
      const out = { ...DEFAULT_OUTPUT, ...s.output, keyframeIntervalSec: 2 }
      setOutput(out)
      setScenes(readScenes(s.scenes, out.width / out.height))
      setMic(readMic(s.mic))
      setAudio(readAudio(s.audio))
      setRecord({
        enabled: s.localRecording?.enabled ?? true,
        folder: s.localRecording?.folder
      })
      setChoice({
        kind: s.sourceKind ?? 'camera',
        videoDeviceId: s.videoDeviceId,
        audioDeviceId: s.audioDeviceId
      })
      loaded.current = true
    })
  }, [api])

  const pendingSave = useRef<(() => void) | null>(null)
  useEffect(() => {
    if (!loaded.current || !choice) return
    const save = (): void => {
      pendingSave.current = null
      void api.saveSettings({
        sourceKind: choice.kind,
        videoDeviceId: choice.videoDeviceId,
        audioDeviceId: choice.audioDeviceId,
        output,
        mic,
        audio,
        ...(scenes ? { scenes } : {}),
        localRecording: record.folder
          ? { enabled: record.enabled, folder: record.folder }
          : { enabled: record.enabled }
      })
    }
    pendingSave.current = save
    const t = setTimeout(save, SAVE_AFTER_MS)
    return () => clearTimeout(t)
  }, [api, choice, output, scenes, record, mic, audio])
  useEffect(() => {
    // The window closing (or the page reloading) unmounts nothing: the pending save is made on
    // pagehide instead, so a change made just before Onair is closed is kept.
    const flush = (): void => pendingSave.current?.()
    addEventListener('pagehide', flush)
    return () => {
      removeEventListener('pagehide', flush)
      flush()
    }
  }, [])

  /** Applies a scenes reducer (shared/scenes.ts) to the scenes as they are then. */
  const changeScenes = useCallback(
    (update: (s: ScenesState) => ScenesState) => setScenes((s) => (s ? update(s) : s)),
    []
  )

  return {
    choice,
    setChoice,
    output,
    setOutput,
    scenes,
    changeScenes,
    record,
    setRecord,
    mic,
    setMic,
    audio,
    setAudio
  }
}

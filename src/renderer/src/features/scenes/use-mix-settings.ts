// The saved microphone and source settings (shared/audio.ts), applied to a mix as they change: the
// noise gate, push-to-talk, each source's chain and the monitoring output. One place for the Scene
// source's mix (use-scene-program.ts) and the Camera and Screen sources' (features/live).
import { useEffect } from 'react'
import { AUDIO_SOURCES, type AudioSettings, type MicSettings } from '../../../../shared/audio'
import type { AudioMix } from './mixer'

export function useMixSettings(mix: AudioMix | null, mic: MicSettings, audio: AudioSettings): void {
  const { enabled: gateOn, thresholdDb } = mic.gate
  useEffect(() => {
    mix?.setGate({ enabled: gateOn, thresholdDb })
  }, [mix, gateOn, thresholdDb])
  useEffect(() => {
    mix?.setTalk({ pushToTalk: mic.pushToTalk })
  }, [mix, mic.pushToTalk])
  useEffect(() => {
    if (!mix) return
    for (const id of AUDIO_SOURCES)
      if (mix.sourceAudio(id) !== audio.sources[id]) mix.setSourceAudio(id, audio.sources[id])
  }, [mix, audio.sources])
  const monitorDevice = audio.monitorDeviceId
  useEffect(() => {
    if (mix && monitorDevice) void mix.setMonitorDevice(monitorDevice)
  }, [mix, monitorDevice])
}

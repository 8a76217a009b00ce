// The Camera and Screen sources' sound through the same mix as a scene's (#34 §5): the camera's
// microphone, or the screen's own sound where the system gives it, goes through the mix's chain (gate,
// talk keys, sync offset, gain, compressor, limiter, volume and mute, monitoring) before the encoder.
// What is sent is the capture's picture with the mix's track; the chain's settings are the source's,
// the same saved ones as in the Scene source. With no scene to keep them, the volume and the mute are
// kept in the audio settings (AudioSettings.levels, per source): whatever sets them on the mix (the
// mixer, the live bar's Mute mic, the mute key) is saved, and they are back when the source opens.
import { useEffect, useRef } from 'react'
import type { CaptureKind } from '../../../../shared/contract'
import {
  DEFAULT_LEVEL,
  readAudio,
  setSourceLevel,
  type AudioSettings,
  type AudioSourceId
} from '../../../../shared/audio'
import type { OnairApi } from '../../../../shared/contract'
import { useHotkey } from '../../lib/use-hotkeys'
import type { HotkeyEvent } from '../../lib/hotkeys'
import { AudioMix, type MixerHost } from '../scenes/mixer'

/** The channel a source's sound goes to. */
const channelOf = (kind: 'camera' | 'screen'): AudioSourceId =>
  kind === 'camera' ? 'mic' : 'screen'

export interface MixedSource {
  /** What is sent: the capture's video and the mix's audio track. */
  stream: MediaStream
  /** The capture as opened (its tracks stop when the source is let go). */
  source: MediaStream
  mix: AudioMix
}

/** Puts a camera's or a screen's capture through a new mix. */
export function mixSource(kind: 'camera' | 'screen', source: MediaStream): MixedSource {
  const mix = new AudioMix()
  mix.setInput(channelOf(kind), source)
  return { stream: new MediaStream([...source.getVideoTracks(), mix.track]), source, mix }
}

/** The mixer over a camera's or a screen's mix: its one channel, levels held by the mix. */
export function sourceMixer(kind: CaptureKind, mix: AudioMix): MixerHost {
  return {
    mix,
    sources: [kind === 'screen' ? 'screen' : 'mic'],
    setLevel: (ch, patch) => {
      if (ch.id === 'mic' || ch.id === 'screen')
        mix.setLevel(ch.id, { gain: ch.gain, muted: ch.muted, ...patch })
    },
    // A camera or a screen has no video file.
    setSourceSound: () => undefined
  }
}

/** Mixes whose saved volume and mute were put on them (once: after that the mix's are the newest). */
const restored = new WeakSet<AudioMix>()
/** Mixes the Go live screen keeps (useKeptLevel mounted): it saves their changes with its own settings. */
const keptOnScreen = new WeakSet<AudioMix>()

/**
 * Keeps a camera's or a screen's volume and mute with the audio settings: the saved ones are put on
 * a mix the first time it is seen (a source just opened), and every change on the mix, from any
 * screen (the live bar's Mute mic, the mute key), is saved, also one made while this was not shown.
 */
export function useKeptLevel(
  mix: AudioMix | null,
  kind: CaptureKind | undefined,
  audio: AudioSettings,
  onAudio: (audio: AudioSettings) => void
): void {
  const id = kind === 'camera' || kind === 'screen' ? channelOf(kind) : null
  const latest = useRef(audio)
  latest.current = audio
  const saved = id ? (audio.levels?.[id] ?? DEFAULT_LEVEL) : null
  useEffect(() => {
    if (!mix || !id || restored.has(mix)) return
    restored.add(mix)
    const level = latest.current.levels?.[id]
    if (level) mix.setLevel(id, level)
  }, [mix, id])
  useEffect(() => {
    if (!mix || !id) return
    keptOnScreen.add(mix)
    const keep = (): void => {
      const ch = mix.states().find((c) => c.id === id)
      const was = latest.current.levels?.[id] ?? DEFAULT_LEVEL
      if (ch && (ch.gain !== was.gain || ch.muted !== was.muted))
        onAudio(setSourceLevel(latest.current, id, ch))
    }
    keep()
    const off = mix.onChange(keep)
    return () => {
      keptOnScreen.delete(mix)
      off()
    }
  }, [mix, id, onAudio, saved?.gain, saved?.muted])
}

/**
 * Saves a camera's or a screen's volume and mute changed while the Go live screen is not shown (the
 * live bar's Mute mic, the mute key, on any screen): they are kept as if made there, also when the app
 * is closed before that screen is opened again. While it is shown, its useKeptLevel saves them with
 * the rest of its settings (one writer, so neither overwrites the other's newer values).
 */
export function useLevelSavedAnywhere(
  mix: AudioMix | null,
  kind: CaptureKind | undefined,
  api: Pick<OnairApi, 'getSettings' | 'saveSettings'>
): void {
  useEffect(() => {
    const id = kind === 'camera' || kind === 'screen' ? channelOf(kind) : null
    if (!mix || !id) return
    // The mix also tells of its gate and talk keys: only a new volume or mute is looked up and saved.
    let seen = mix.states().find((c) => c.id === id)
    return mix.onChange(() => {
      const ch = mix.states().find((c) => c.id === id)
      if (!ch || (seen && ch.gain === seen.gain && ch.muted === seen.muted)) return
      seen = ch
      if (keptOnScreen.has(mix)) return
      void api.getSettings().then((r) => {
        if (!r.ok || keptOnScreen.has(mix)) return
        const audio = readAudio(r.value.audio)
        const was = audio.levels?.[id] ?? DEFAULT_LEVEL
        if (was.gain === ch.gain && was.muted === ch.muted) return
        void api.saveSettings({ ...r.value, audio: setSourceLevel(audio, id, ch) })
      })
    })
  }, [mix, kind, api])
}

/** Mutes or unmutes the microphone of a camera's mix. */
export function muteMic(mix: AudioMix, muted: boolean): void {
  const mic = mix.states().find((c) => c.id === 'mic')
  if (mic) mix.setLevel('mic', { gain: mic.gain, muted })
}

/** The mute and talk keys on a camera's mix (a scene's are use-program-hotkeys.ts'). */
export function useMixHotkeys(mix: AudioMix | null): void {
  const act = (e: HotkeyEvent): boolean => {
    if (!mix) return false
    if (e.action === 'mic-mute') {
      if (e.phase === 'down') muteMic(mix, !mix.states().find((c) => c.id === 'mic')?.muted)
    } else if (e.action === 'push-to-talk') mix.setTalk({ talkHeld: e.phase === 'down' })
    else if (e.action === 'push-to-mute') mix.setTalk({ muteHeld: e.phase === 'down' })
    else return false
    return true
  }
  useHotkey('mic-mute', act)
  useHotkey('push-to-talk', act)
  useHotkey('push-to-mute', act)
}

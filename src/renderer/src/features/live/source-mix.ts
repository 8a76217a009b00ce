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
  setSourceLevel,
  type AudioSettings,
  type AudioSourceId
} from '../../../../shared/audio'
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
    const keep = (): void => {
      const ch = mix.states().find((c) => c.id === id)
      const was = latest.current.levels?.[id] ?? DEFAULT_LEVEL
      if (ch && (ch.gain !== was.gain || ch.muted !== was.muted))
        onAudio(setSourceLevel(latest.current, id, ch))
    }
    keep()
    return mix.onChange(keep)
  }, [mix, id, onAudio, saved?.gain, saved?.muted])
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

// The keys that act on a scene program (#20): scene 1-9 puts that scene on air, mic-mute mutes or
// unmutes the microphone in the scene on air (saved with it, like the mixer's Mute), push-to-talk and
// push-to-mute open or shut the microphone's talk stage while held (never saved). In studio mode a
// scene key puts the scene in the preview and transition sends the preview to program. Used by the Go live
// screen's stage and by the live bar's program status, so the keys work on every screen while live.
import {
  activeScene,
  setChannel,
  switchScene,
  transitionToProgram
} from '../../../../shared/scenes'
import { SCENE_ACTIONS, sceneNumber } from '../../../../shared/hotkeys'
import { useHotkey } from '../../lib/use-hotkeys'
import type { HotkeyEvent } from '../../lib/hotkeys'
import type { SceneProgram } from './program'

/** What a key does to a program; false when it does nothing (no such scene). */
export function actOnProgram(program: SceneProgram, e: HotkeyEvent): boolean {
  const n = sceneNumber(e.action)
  if (n !== null) {
    const target = program.scenes?.scenes[n - 1]
    if (!target || e.phase !== 'down') return false
    program.mix.resume()
    program.edit((s) => switchScene(s, target.id))
    return true
  }
  switch (e.action) {
    case 'transition':
      if (e.phase !== 'down' || !program.scenes?.studio) return false
      program.mix.resume()
      program.edit(transitionToProgram)
      return true
    case 'mic-mute':
      if (e.phase === 'down')
        program.edit((s) => setChannel(s, 'mic', { muted: !activeScene(s).mix.mic.muted }))
      return true
    case 'push-to-talk':
      program.mix.setTalk({ talkHeld: e.phase === 'down' })
      return true
    case 'push-to-mute':
      program.mix.setTalk({ muteHeld: e.phase === 'down' })
      return true
    default:
      return false
  }
}

export function useProgramHotkeys(program: SceneProgram | null): void {
  const act = (e: HotkeyEvent): boolean => !!program && actOnProgram(program, e)
  for (const action of SCENE_ACTIONS) {
    // A fixed list, in a fixed order: the hooks are the same on every render.
    // eslint-disable-next-line react-hooks/rules-of-hooks
    useHotkey(action, act)
  }
  useHotkey('transition', act)
  useHotkey('mic-mute', act)
  useHotkey('push-to-talk', act)
  useHotkey('push-to-mute', act)
}

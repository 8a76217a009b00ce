// In the live banner, for a scene broadcast: which scene is on air and whether the microphone is
// muted, with the mute at hand on every screen (muting is instant, and seen where the creator looks),
// and beside it the talk keys' state (#34 §5): push-to-talk held shut or open, push-to-mute held.
import { useEffect, useReducer, type ReactNode } from 'react'
import { setChannel } from '../../../../shared/scenes'
import type { SceneProgram } from './program'
import { useProgramHotkeys } from './use-program-hotkeys'

export function ProgramStatus({ program }: { program: SceneProgram }): ReactNode {
  const [, rerender] = useReducer((n: number) => n + 1, 0)
  // The scene, mute and talk keys work on every screen while the program is live.
  useProgramHotkeys(program)
  useEffect(() => {
    const offMix = program.mix.onChange(rerender)
    const offProgram = program.onChange(rerender)
    return () => {
      offMix()
      offProgram()
    }
  }, [program])
  const mic = program.mix.states().find((c) => c.id === 'mic')
  const muted = !!mic?.muted
  const talk = program.mix.micState()
  const talkShown = talk.pushToTalk || talk.muteHeld
  return (
    <span className="program-status" data-testid="program-status">
      {program.sceneName && (
        <span className="scene-pill" data-testid="live-scene">
          Scene: {program.sceneName}
        </span>
      )}
      {muted && (
        <span className="muted-pill" data-testid="mic-muted" role="status">
          Mic muted
        </span>
      )}
      <button
        type="button"
        className="secondary"
        aria-pressed={muted}
        data-testid="banner-mute-mic"
        onClick={() => program.edit((s) => setChannel(s, 'mic', { muted: !muted }))}
      >
        {muted ? 'Unmute mic' : 'Mute mic'}
      </button>
      {talkShown && (
        <span
          className={talk.talking ? 'talk-pill open' : 'talk-pill'}
          role="status"
          data-testid="banner-ptt"
          data-talking={String(talk.talking)}
        >
          {talk.muteHeld
            ? 'Push to mute: held shut'
            : talk.talking
              ? 'Push to talk: open'
              : 'Push to talk: held shut'}
        </span>
      )}
    </span>
  )
}

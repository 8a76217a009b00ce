// The microphone in the live bar: whether it is muted, the mute at hand on every screen (muting is
// instant, and seen where the creator looks), and beside it the talk keys' state (#34 §5): push-to-talk
// held shut or open, push-to-mute held. A scene's (ProgramStatus) and a camera's (features/live).
import { useEffect, useReducer, type ReactNode } from 'react'
import type { AudioMix } from './mixer'

export function MicStatus({
  mix,
  onMute
}: {
  mix: AudioMix
  /** Mutes or unmutes the microphone (a scene keeps it with the scene). */
  onMute: (muted: boolean) => void
}): ReactNode {
  const [, rerender] = useReducer((n: number) => n + 1, 0)
  useEffect(() => mix.onChange(rerender), [mix])
  const muted = !!mix.states().find((c) => c.id === 'mic')?.muted
  const talk = mix.micState()
  const talkShown = talk.pushToTalk || talk.muteHeld
  return (
    <>
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
        onClick={() => onMute(!muted)}
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
    </>
  )
}

// In the live banner, for a scene broadcast: which scene is on air, and the microphone's mute and talk
// keys (MicStatus), the mute saved with the scene on air.
import { useEffect, useReducer, type ReactNode } from 'react'
import { setChannel } from '../../../../shared/scenes'
import { MicStatus } from './MicStatus'
import type { SceneProgram } from './program'
import { useProgramHotkeys } from './use-program-hotkeys'

export function ProgramStatus({ program }: { program: SceneProgram }): ReactNode {
  const [, rerender] = useReducer((n: number) => n + 1, 0)
  // The scene, mute and talk keys work on every screen while the program is live.
  useProgramHotkeys(program)
  useEffect(() => program.onChange(rerender), [program])
  return (
    <span className="program-status" data-testid="program-status">
      {program.sceneName && (
        <span className="scene-pill" data-testid="live-scene">
          Scene: {program.sceneName}
        </span>
      )}
      <MicStatus
        mix={program.mix}
        onMute={(muted) => program.edit((s) => setChannel(s, 'mic', { muted }))}
      />
    </span>
  )
}

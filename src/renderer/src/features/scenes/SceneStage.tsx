// The Go live screen's picture column for a scene: the preview (the output itself, with its edit
// boxes), the scene tabs and Alt+1..9, the compositor's figures, each capture's error and the mixer.
import { useEffect, type ReactNode } from 'react'
import type { AppError } from '../../../../shared/result'
import {
  activeScene,
  layersOf,
  moveItem,
  switchScene,
  type ScenesState
} from '../../../../shared/scenes'
import { ErrorNote } from '../../components/ErrorNote'
import { ComposeStats } from './ComposeStats'
import { MixerPanel } from './MixerPanel'
import type { SceneProgram } from './program'
import { ScenePreview } from './ScenePreview'
import { SceneTabs } from './SceneTabs'
import type { SceneErrors } from './use-scene-program'

export function SceneStage({
  program,
  scenes,
  aspect,
  onChange,
  errors,
  onShareScreen,
  onRetry
}: {
  program: SceneProgram
  scenes: ScenesState
  aspect: number
  onChange: (update: (s: ScenesState) => ScenesState) => void
  errors: SceneErrors
  onShareScreen: () => void
  onRetry: () => void
}): ReactNode {
  const onSwitch = (id: string): void => {
    program.mix.resume()
    onChange((s) => switchScene(s, id))
  }
  useSceneHotkeys(scenes, onSwitch)
  return (
    <>
      <ScenePreview
        program={program}
        layers={layersOf(scenes, activeScene(scenes))}
        aspect={aspect}
        editable
        onMove={(itemId, rect) => onChange((s) => moveItem(s, itemId, rect))}
      />
      <SceneTabs state={scenes} onSwitch={onSwitch} />
      <ComposeStats program={program} />
      {(['camera', 'mic', 'screen', 'program'] as const).map((k) => {
        const error: AppError | undefined = errors[k]
        return (
          error && (
            <ErrorNote
              key={k}
              error={error}
              onRetry={k === 'screen' ? onShareScreen : onRetry}
              testId={`scene-error-${k}`}
            />
          )
        )
      })}
      <MixerPanel program={program} />
    </>
  )
}

/** Alt+1..9 switches scenes, live or not, from anywhere on the screen. */
function useSceneHotkeys(scenes: ScenesState, onSwitch: (id: string) => void): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (!e.altKey || e.ctrlKey || e.metaKey) return
      const n = Number(e.key)
      const target = Number.isInteger(n) && n >= 1 ? scenes.scenes[n - 1] : undefined
      if (!target) return
      e.preventDefault()
      onSwitch(target.id)
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [scenes])
}

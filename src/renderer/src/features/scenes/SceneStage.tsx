// The Go live screen's picture column for a scene: the preview (the output itself, with its edit
// boxes), the scene tabs and their keys (use-program-hotkeys.ts), the compositor's figures, each
// capture's error and the mixer.
import type { ReactNode } from 'react'
import type { AppError } from '../../../../shared/result'
import {
  activeScene,
  layersOf,
  moveItem,
  onAirScene,
  switchScene,
  transitionToProgram,
  type ScenesState
} from '../../../../shared/scenes'
import { ErrorNote } from '../../components/ErrorNote'
import { ComposeStats } from './ComposeStats'
import { MixerPanel, sceneMixer } from './MixerPanel'
import type { SceneProgram } from './program'
import { ScenePreview } from './ScenePreview'
import { SceneTabs } from './SceneTabs'
import type { SceneErrors } from './use-scene-program'
import { useProgramHotkeys } from './use-program-hotkeys'
import { useStudioPreview } from './studio-preview'
import type { AudioSettings, MicSettings } from '../../../../shared/audio'

export function SceneStage({
  program,
  scenes,
  aspect,
  onChange,
  mic,
  onMic,
  audio,
  onAudio,
  errors,
  onShareScreen,
  onRetry
}: {
  program: SceneProgram
  scenes: ScenesState
  aspect: number
  onChange: (update: (s: ScenesState) => ScenesState) => void
  /** The microphone's switches, gate and push-to-talk (saved in the settings). */
  mic: MicSettings
  onMic: (mic: MicSettings) => void
  /** Each source's chain (saved in the settings). */
  audio: AudioSettings
  onAudio: (audio: AudioSettings) => void
  errors: SceneErrors
  onShareScreen: () => void
  onRetry: () => void
}): ReactNode {
  const onSwitch = (id: string): void => {
    program.mix.resume()
    onChange((s) => switchScene(s, id))
  }
  useProgramHotkeys(program)
  const preview = useStudioPreview(program, scenes)
  const editor = (
    <ScenePreview
      canvas={preview?.canvas ?? program.compositor.canvas}
      {...(preview && {
        label: 'Studio mode preview: the next scene, not sent',
        testId: 'studio-preview-canvas'
      })}
      layers={layersOf(scenes, activeScene(scenes))}
      aspect={aspect}
      editable
      onMove={(itemId, rect) => onChange((s) => moveItem(s, itemId, rect))}
    />
  )
  return (
    <>
      {preview ? (
        <div className="studio-mode" data-testid="studio-mode-stage">
          <section aria-label="Preview">
            <h3>Preview: {activeScene(scenes).name}</h3>
            {editor}
          </section>
          <section aria-label="Program">
            <h3>Program (on air): {onAirScene(scenes).name}</h3>
            <ScenePreview
              canvas={program.compositor.canvas}
              layers={[]}
              aspect={aspect}
              editable={false}
              onMove={() => {}}
            />
          </section>
          <button
            type="button"
            className="studio-transition"
            data-testid="studio-transition"
            title={`Send the preview to program (${scenes.transition.kind === 'cut' ? 'cut' : `dissolve ${scenes.transition.durationMs} ms`})`}
            onClick={() => {
              program.mix.resume()
              onChange(transitionToProgram)
            }}
          >
            Transition
          </button>
        </div>
      ) : (
        editor
      )}
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
      <MixerPanel
        host={sceneMixer(program)}
        mic={mic}
        onMic={onMic}
        audio={audio}
        onAudio={onAudio}
      />
    </>
  )
}

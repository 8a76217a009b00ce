// The scenes as tabs under the preview: a click (or Alt+1..9) puts one on the output.
import type { ReactNode } from 'react'
import type { ScenesState } from '../../../../shared/scenes'

export function SceneTabs({
  state,
  onSwitch
}: {
  state: ScenesState
  onSwitch: (id: string) => void
}): ReactNode {
  return (
    <div className="scene-tabs" role="group" aria-label="Scenes" data-testid="scene-tabs">
      {state.scenes.map((s, i) => (
        <button
          key={s.id}
          type="button"
          className={s.id === state.activeId ? 'scene-tab active' : 'scene-tab'}
          aria-pressed={s.id === state.activeId}
          data-testid="scene-tab"
          title={i < 9 ? `${s.name} (Alt+${i + 1})` : s.name}
          onClick={() => onSwitch(s.id)}
        >
          {s.name}
        </button>
      ))}
    </div>
  )
}

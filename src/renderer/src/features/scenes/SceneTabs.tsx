// The scenes as tabs under the preview: a click (or the scene's key, Alt+1..9 unless chosen otherwise
// on the Keys screen) puts one on the output.
import type { ReactNode } from 'react'
import type { ScenesState } from '../../../../shared/scenes'
import { displayAccelerator, type HotkeyAction } from '../../../../shared/hotkeys'
import { useHotkeySettings } from '../../lib/use-hotkeys'

export function SceneTabs({
  state,
  onSwitch
}: {
  state: ScenesState
  onSwitch: (id: string) => void
}): ReactNode {
  const { view } = useHotkeySettings()
  const keyOf = (i: number): string | null => {
    const k = i < 9 ? view?.settings.bindings[`scene-${i + 1}` as HotkeyAction] : null
    return k && view ? displayAccelerator(k, view.status.os) : null
  }
  return (
    <div className="scene-tabs" role="group" aria-label="Scenes" data-testid="scene-tabs">
      {state.scenes.map((s, i) => (
        <button
          key={s.id}
          type="button"
          className={s.id === state.activeId ? 'scene-tab active' : 'scene-tab'}
          aria-pressed={s.id === state.activeId}
          data-testid="scene-tab"
          title={keyOf(i) ? `${s.name} (${keyOf(i)})` : s.name}
          onClick={() => onSwitch(s.id)}
        >
          {s.name}
        </button>
      ))}
    </div>
  )
}

// Studio mode's preview (#34 §3): a second canvas drawing the scene being prepared from the program's
// own captures and pictures. It is never sent: the program's canvas stays the output, so the monitor,
// the local copy and the broadcast follow the program only.
import { useEffect, useState } from 'react'
import { activeScene, type ScenesState } from '../../../../shared/scenes'
import { Compositor, framesKey } from './compositor'
import type { SceneProgram } from './program'

/** Draws from the program's frame sources without switching their conversion (the program does). */
class PreviewCompositor extends Compositor {
  override updateActive(): void {}
}

/** The preview's compositor while studio mode is on (null when off), showing the active scene. */
export function useStudioPreview(program: SceneProgram, scenes: ScenesState): Compositor | null {
  const [preview, setPreview] = useState<Compositor | null>(null)
  const on = scenes.studio
  useEffect(() => {
    if (!on) return
    const main = program.compositor
    // A preview at most 640 wide at 15 fps: enough to judge, a fraction of the program's cost.
    const scale = Math.min(1, 640 / main.width)
    const even = (n: number): number => Math.max(2, 2 * Math.round((n * scale) / 2))
    const p = new PreviewCompositor(even(main.width), even(main.height), 15)
    const follow = (): void => {
      p.frames = main.frames
      p.images = main.images
    }
    follow()
    const off = program.onChange(follow)
    p.start()
    setPreview(p)
    return () => {
      off()
      main.alsoShows = () => false
      main.updateActive()
      p.dispose()
      setPreview(null)
    }
  }, [program, on])
  useEffect(() => {
    if (!preview) return
    const scene = activeScene(scenes)
    // Each camera named by its device, as the program draws it.
    const layers = program.layersOf(scenes, scene)
    preview.setScene({ id: scene.id, layers }, null)
    const keys = new Set<string | null>(layers.map((l) => framesKey(l.source)))
    program.compositor.alsoShows = (key) => keys.has(key)
    program.compositor.updateActive()
  }, [preview, program, scenes, program.devicesCamera])
  return preview
}

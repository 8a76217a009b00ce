// One line under the preview: how the compositor keeps up (frames a second, draw time per frame, the
// camera's own frame rate). A creator sees at once whether the machine copes with the scene; the
// benchmark reads the same figures from the data attributes.
import { useEffect, useRef, useState, type ReactNode } from 'react'
import type { CompositorStats } from './compositor'
import type { SceneProgram } from './program'

export function ComposeStats({ program }: { program: SceneProgram }): ReactNode {
  const [now, setNow] = useState<CompositorStats | null>(null)
  const last = useRef<{ at: number; s: CompositorStats } | null>(null)
  const [rates, setRates] = useState<{ fps: number; camera: number } | null>(null)

  useEffect(() => {
    const read = (): void => {
      const s = program.compositor.stats()
      const at = performance.now()
      const prev = last.current
      if (prev && at > prev.at) {
        const secs = (at - prev.at) / 1000
        setRates({
          fps: (s.ticks - prev.s.ticks) / secs,
          camera: (s.cameraDistinct - prev.s.cameraDistinct) / secs
        })
      }
      last.current = { at, s }
      setNow(s)
    }
    read()
    const t = setInterval(read, 1000)
    return () => clearInterval(t)
  }, [program])

  if (!now) return null
  return (
    <p
      className="muted small compose-stats"
      data-testid="compose-stats"
      data-ticks={now.ticks}
      data-camera-distinct={now.cameraDistinct}
      data-camera-serial={now.cameraSerial}
      data-camera-width={program.compositor.camera?.width ?? 0}
      data-cost-p50={now.costP50.toFixed(2)}
      data-cost-p95={now.costP95.toFixed(2)}
      data-late={now.late}
    >
      Composing {rates ? Math.round(rates.fps) : '…'} fps, {now.costP50.toFixed(1)} ms a frame (95%:{' '}
      {now.costP95.toFixed(1)} ms)
      {rates && program.compositor.camera ? `, camera ${Math.round(rates.camera)} fps` : ''}
    </p>
  )
}

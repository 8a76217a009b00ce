// The preview is the compositor's own canvas: what is shown is what is sent. Over it, one box per
// visible source: drag to move (it snaps to edges, margins and centre lines), drag a corner to resize
// (pictures keep their shape), arrow keys nudge the focused one.
import {
  useEffect,
  useRef,
  useState,
  type KeyboardEvent,
  type PointerEvent,
  type ReactNode
} from 'react'
import {
  CORNERS,
  moveRect,
  resizeRect,
  snapRect,
  type Corner,
  type Rect
} from '../../../../shared/scene-layout'
import {
  CAMERA_ID,
  SCREEN_ID,
  type Layer,
  type SceneSource,
  type SceneSourceKind
} from '../../../../shared/scenes'

/** Each kind's label, and the name its box has for the tests (a text is a "title" to the creator). */
const BOX: Record<SceneSourceKind, { label: string; testId: string }> = {
  camera: { label: 'Camera', testId: 'box-camera' },
  screen: { label: 'Screen', testId: 'box-screen' },
  image: { label: 'Image', testId: 'box-image' },
  text: { label: 'Title', testId: 'box-title' },
  video: { label: 'Video', testId: 'box-video' },
  browser: { label: 'Browser', testId: 'box-browser' }
}

/** A box's label: its kind's, or the name of a camera or screen added beside the first ones. */
const labelOf = (source: SceneSource): string =>
  (source.kind === 'camera' || source.kind === 'screen') &&
  source.id !== CAMERA_ID &&
  source.id !== SCREEN_ID
    ? source.name
    : BOX[source.kind].label

interface Drag {
  id: string
  handle: Corner | 'move'
  start: Rect
  x: number
  y: number
}

export function ScenePreview({
  canvas,
  label = 'Scene preview: the picture as it is sent',
  testId = 'scene-canvas',
  layers,
  aspect,
  onMove,
  editable
}: {
  /** The compositor's canvas shown (the program's: what is sent; studio mode's preview: what is next). */
  canvas: HTMLCanvasElement
  label?: string
  testId?: string
  /** The active scene's visible items (layersOf): one box each. */
  layers: Layer[]
  aspect: number
  /** An item's new place, on every step of a drag (the settings save is debounced). */
  onMove: (itemId: string, rect: Rect) => void
  editable: boolean
}): ReactNode {
  const host = useRef<HTMLDivElement>(null)
  const overlay = useRef<HTMLDivElement>(null)
  const drag = useRef<Drag | null>(null)
  const [guides, setGuides] = useState<string[]>([])
  const [selected, setSelected] = useState<string | null>(null)

  useEffect(() => {
    canvas.className = 'scene-canvas'
    canvas.dataset.testid = testId
    canvas.setAttribute('role', 'img')
    canvas.setAttribute('aria-label', label)
    host.current?.prepend(canvas)
    return () => canvas.remove()
  }, [canvas, label, testId])

  const rectOf = (id: string): Rect | undefined => layers.find((l) => l.itemId === id)?.rect

  const down = (e: PointerEvent<HTMLElement>, id: string, handle: Drag['handle']): void => {
    if (!editable || e.button !== 0) return
    const start = rectOf(id)
    if (!start) return
    e.preventDefault()
    e.stopPropagation()
    setSelected(id)
    ;(e.currentTarget as HTMLElement).setPointerCapture(e.pointerId)
    drag.current = { id, handle, start, x: e.clientX, y: e.clientY }
  }

  const next = (e: PointerEvent<HTMLElement>): { rect: Rect; guides: string[] } | null => {
    const d = drag.current
    const box = overlay.current?.getBoundingClientRect()
    if (!d || !box?.width) return null
    const dx = (e.clientX - d.x) / box.width
    const dy = (e.clientY - d.y) / box.height
    if (d.handle === 'move') return snapRect(moveRect(d.start, dx, dy), aspect)
    const kind = layers.find((l) => l.itemId === d.id)?.source.kind
    return { rect: resizeRect(d.start, d.handle, dx, dy, kind !== 'text'), guides: [] }
  }

  const move = (e: PointerEvent<HTMLElement>): void => {
    const r = next(e)
    if (!r || !drag.current) return
    setGuides(r.guides)
    onMove(drag.current.id, r.rect)
  }

  const up = (e: PointerEvent<HTMLElement>): void => {
    const r = next(e)
    const d = drag.current
    drag.current = null
    setGuides([])
    if (r && d) onMove(d.id, r.rect)
  }

  const key = (e: KeyboardEvent<HTMLElement>, id: string): void => {
    const step = e.shiftKey ? 0.05 : 0.01
    const delta: Record<string, [number, number]> = {
      ArrowLeft: [-step, 0],
      ArrowRight: [step, 0],
      ArrowUp: [0, -step],
      ArrowDown: [0, step]
    }
    const d = delta[e.key]
    const start = rectOf(id)
    if (!d || !start || !editable) return
    e.preventDefault()
    onMove(id, moveRect(start, d[0], d[1]))
  }

  const pct = (v: number): string => `${v * 100}%`

  return (
    <div className="scene-stage" ref={host}>
      <div
        className="scene-overlay"
        ref={overlay}
        data-testid="scene-overlay"
        onPointerDown={() => setSelected(null)}
      >
        {layers.map(({ itemId, rect, source }) => (
          <div
            key={itemId}
            className={`scene-box kind-${source.kind}${selected === itemId ? ' selected' : ''}`}
            data-testid={BOX[source.kind].testId}
            data-source={itemId}
            style={{
              left: pct(rect.x),
              top: pct(rect.y),
              width: pct(rect.w),
              height: pct(rect.h)
            }}
            tabIndex={editable ? 0 : -1}
            role="group"
            aria-label={`${labelOf(source)}: drag to move, arrow keys to nudge`}
            onFocus={() => setSelected(itemId)}
            onKeyDown={(e) => key(e, itemId)}
            onPointerDown={(e) => down(e, itemId, 'move')}
            onPointerMove={move}
            onPointerUp={up}
            onPointerCancel={up}
          >
            <span className="scene-box-label">{labelOf(source)}</span>
            {editable &&
              CORNERS.map((c) => (
                <span
                  key={c}
                  className={`scene-handle ${c}`}
                  data-testid={`handle-${c}`}
                  aria-hidden="true"
                  onPointerDown={(e) => down(e, itemId, c)}
                  onPointerMove={move}
                  onPointerUp={up}
                  onPointerCancel={up}
                />
              ))}
          </div>
        ))}
        {guides.map((g) => {
          const [axis, at] = g.split(':') as ['x' | 'y', string]
          return (
            <span
              key={g}
              className={`scene-guide guide-${axis}`}
              style={axis === 'x' ? { left: pct(Number(at)) } : { top: pct(Number(at)) }}
            />
          )
        })}
      </div>
    </div>
  )
}

// Layout math for scenes, in output-relative units: a Rect is a fraction of the canvas (x, y, w, h in
// 0..1), so a scene keeps its look when the output size changes. Pure functions: the compositor draws
// with them, the editor drags with them, the unit tests check them.

export interface Rect {
  x: number
  y: number
  w: number
  h: number
}

export type Corner = 'top-left' | 'top-right' | 'bottom-left' | 'bottom-right'
export const CORNERS: readonly Corner[] = ['top-left', 'top-right', 'bottom-left', 'bottom-right']

export const FULL: Rect = { x: 0, y: 0, w: 1, h: 1 }

/** Space kept between a corner picture and the canvas edge, as a fraction of the canvas height. */
export const PIP_MARGIN = 0.04
/** Smallest width a source can be resized to (fraction of the canvas width). */
export const MIN_SIZE = 0.05
/** How close (fraction of the canvas) an edge must come to a guide to snap onto it. */
export const SNAP_DISTANCE = 0.015

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v))

/**
 * Where a picture of aspect `sourceAspect` (width/height in pixels) sits inside `box` on a canvas of
 * aspect `canvasAspect`, kept whole and centred (letterboxed or pillarboxed): nothing is stretched.
 */
export function fitContain(box: Rect, sourceAspect: number, canvasAspect: number): Rect {
  const boxAspect = (box.w * canvasAspect) / box.h
  if (!(sourceAspect > 0) || Math.abs(boxAspect - sourceAspect) < 1e-6) return { ...box }
  if (sourceAspect > boxAspect) {
    const h = (box.w * canvasAspect) / sourceAspect
    return { x: box.x, y: box.y + (box.h - h) / 2, w: box.w, h }
  }
  const w = (box.h * sourceAspect) / canvasAspect
  return { x: box.x + (box.w - w) / 2, y: box.y, w, h: box.h }
}

/**
 * A picture-in-picture box: `size` is its width as a fraction of the canvas width, its height follows
 * from the source's aspect; the margin is the same number of pixels from both edges.
 */
export function pipRect(
  corner: Corner,
  size: number,
  canvasAspect: number,
  sourceAspect = 16 / 9
): Rect {
  const w = clamp(size, MIN_SIZE, 1)
  const h = Math.min(1, (w * canvasAspect) / sourceAspect)
  const my = PIP_MARGIN
  const mx = PIP_MARGIN / canvasAspect
  const x = corner.endsWith('left') ? mx : 1 - mx - w
  const y = corner.startsWith('top') ? my : 1 - my - h
  return { x: clamp(x, 0, 1 - w), y: clamp(y, 0, 1 - h), w, h }
}

/** Two boxes, left and right halves, each a little inset so the pictures do not touch. */
export function sideBySideRects(): [Rect, Rect] {
  const gap = 0.01
  return [
    { x: 0, y: 0, w: 0.5 - gap, h: 1 },
    { x: 0.5 + gap, y: 0, w: 0.5 - gap, h: 1 }
  ]
}

/** Moves a rect by (dx, dy), kept wholly on the canvas. */
export function moveRect(r: Rect, dx: number, dy: number): Rect {
  return { ...r, x: clamp(r.x + dx, 0, 1 - r.w), y: clamp(r.y + dy, 0, 1 - r.h) }
}

/**
 * Resizes a rect by dragging one of its corners by (dx, dy); the opposite corner stays put. With
 * `keepAspect` the rect keeps its width/height ratio (the horizontal drag decides) and so does the
 * picture in it; the result stays on the canvas and no smaller than MIN_SIZE.
 */
export function resizeRect(
  r: Rect,
  handle: Corner,
  dx: number,
  dy: number,
  keepAspect = true
): Rect {
  const left = handle.endsWith('left')
  const top = handle.startsWith('top')
  // The anchor: the corner opposite the handle.
  const ax = left ? r.x + r.w : r.x
  const ay = top ? r.y + r.h : r.y
  const room = { w: left ? ax : 1 - ax, h: top ? ay : 1 - ay }
  let w = clamp(r.w + (left ? -dx : dx), MIN_SIZE, room.w)
  let h: number
  if (keepAspect) {
    const ratio = r.h / r.w
    h = w * ratio
    if (h > room.h) {
      h = room.h
      w = h / ratio
    }
    if (h < MIN_SIZE * ratio) h = MIN_SIZE * ratio
  } else {
    h = clamp(r.h + (top ? -dy : dy), MIN_SIZE, room.h)
  }
  return { x: left ? ax - w : ax, y: top ? ay - h : ay, w, h }
}

export interface Snapped {
  rect: Rect
  /** The guides an edge or centre snapped to: 'x:0', 'x:0.5', 'y:1'... (for drawing them). */
  guides: string[]
}

/**
 * Snaps a moved rect to the canvas edges, the corner-picture margins and the centre lines, each axis
 * on its own: whichever of its left edge, centre or right edge is nearest a guide within
 * SNAP_DISTANCE moves onto it. The size never changes.
 */
export function snapRect(r: Rect, canvasAspect: number, distance = SNAP_DISTANCE): Snapped {
  const guides: string[] = []
  const mx = PIP_MARGIN / canvasAspect
  const snapAxis = (pos: number, size: number, margin: number, axis: 'x' | 'y'): number => {
    const lines = [0, margin, 0.5, 1 - margin, 1]
    let best: { pos: number; d: number; line: number } | null = null
    for (const line of lines) {
      for (const [edge, offset] of [
        [pos, 0],
        [pos + size / 2, size / 2],
        [pos + size, size]
      ] as const) {
        const d = Math.abs(edge - line)
        if (d <= distance && (!best || d < best.d)) best = { pos: line - offset, d, line }
      }
    }
    if (!best) return pos
    guides.push(`${axis}:${Math.round(best.line * 1000) / 1000}`)
    return clamp(best.pos, 0, 1 - size)
  }
  const x = snapAxis(r.x, r.w, mx, 'x')
  const y = snapAxis(r.y, r.h, PIP_MARGIN, 'y')
  return { rect: { ...r, x, y }, guides }
}

/** Output pixels of a rect, rounded (drawing on whole pixels keeps edges sharp). */
export function toPixels(r: Rect, width: number, height: number): Rect {
  const x = Math.round(r.x * width)
  const y = Math.round(r.y * height)
  return {
    x,
    y,
    w: Math.round((r.x + r.w) * width) - x,
    h: Math.round((r.y + r.h) * height) - y
  }
}

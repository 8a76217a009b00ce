import { describe, expect, it } from 'vitest'
import {
  CORNERS,
  MIN_SIZE,
  PIP_MARGIN,
  fitContain,
  moveRect,
  pipRect,
  resizeRect,
  sideBySideRects,
  snapRect,
  toPixels,
  type Rect
} from '../../../src/shared/scene-layout'

const W = 1280
const H = 720
const A = W / H
/** The aspect ratio of a rect in output pixels. */
const aspect = (r: Rect): number => (r.w * W) / (r.h * H)
const close = (a: number, b: number, eps = 1e-9): boolean => Math.abs(a - b) < eps

describe('fitContain: a picture is never stretched', () => {
  it('letterboxes a 4:3 camera in a 16:9 box and centres it', () => {
    const r = fitContain({ x: 0, y: 0, w: 1, h: 1 }, 4 / 3, A)
    expect(aspect(r)).toBeCloseTo(4 / 3, 9)
    expect(r.h).toBe(1)
    expect(r.x).toBeCloseTo((1 - r.w) / 2, 9)
  })

  it('pillarboxes a wide screen in a half-width box', () => {
    const [left] = sideBySideRects()
    const r = fitContain(left, 16 / 9, A)
    expect(aspect(r)).toBeCloseTo(16 / 9, 9)
    expect(r.w).toBeCloseTo(left.w, 9)
    expect(r.y + r.h / 2).toBeCloseTo(0.5, 9) // vertically centred
  })

  it('gives the box back when the aspect already matches (or is unknown)', () => {
    const box = { x: 0.1, y: 0.2, w: 0.3, h: 0.3 }
    expect(fitContain(box, (0.3 * A) / 0.3, A)).toEqual(box)
    expect(fitContain(box, 0, A)).toEqual(box)
  })
})

describe('pipRect: the camera in a corner', () => {
  it.each(CORNERS)('%s: same pixel margin from both edges, camera aspect kept', (corner) => {
    const r = pipRect(corner, 0.25, A)
    expect(aspect(r)).toBeCloseTo(16 / 9, 9)
    expect(r.w).toBe(0.25)
    const left = r.x * W
    const right = (1 - r.x - r.w) * W
    const top = r.y * H
    const bottom = (1 - r.y - r.h) * H
    const margin = PIP_MARGIN * H
    expect(Math.min(left, right)).toBeCloseTo(margin, 6)
    expect(Math.min(top, bottom)).toBeCloseTo(margin, 6)
    // In its own corner: its centre is in that quarter of the canvas.
    expect(r.x + r.w / 2 < 0.5).toBe(corner.endsWith('left'))
    expect(r.y + r.h / 2 < 0.5).toBe(corner.startsWith('top'))
  })

  it('clamps the size: never below MIN_SIZE, never off the canvas', () => {
    expect(pipRect('top-left', 0.001, A).w).toBe(MIN_SIZE)
    const big = pipRect('bottom-right', 5, A)
    expect(big.x).toBeGreaterThanOrEqual(0)
    expect(big.y).toBeGreaterThanOrEqual(0)
    expect(big.x + big.w).toBeLessThanOrEqual(1)
    expect(big.y + big.h).toBeLessThanOrEqual(1)
  })
})

describe('moving and resizing', () => {
  const r: Rect = { x: 0.5, y: 0.5, w: 0.25, h: 0.25 }

  it('moves and stays wholly on the canvas', () => {
    expect(moveRect(r, 0.1, -0.2)).toEqual({ ...r, x: 0.6, y: 0.3 })
    expect(moveRect(r, 5, 5)).toEqual({ ...r, x: 0.75, y: 0.75 })
    expect(moveRect(r, -5, -5)).toEqual({ ...r, x: 0, y: 0 })
  })

  it.each(CORNERS)('resizing from %s keeps the opposite corner and the aspect ratio', (handle) => {
    const grown = resizeRect(r, handle, handle.endsWith('left') ? -0.1 : 0.1, 0)
    expect(grown.w).toBeCloseTo(0.35, 9)
    expect(grown.h / grown.w).toBeCloseTo(r.h / r.w, 9)
    const anchor = (q: Rect): [number, number] => [
      handle.endsWith('left') ? q.x + q.w : q.x,
      handle.startsWith('top') ? q.y + q.h : q.y
    ]
    const [ax, ay] = anchor(r)
    const [bx, by] = anchor(grown)
    expect(close(ax, bx) && close(ay, by)).toBe(true)
  })

  it('cannot grow past the canvas or shrink below the minimum', () => {
    const huge = resizeRect(r, 'bottom-right', 3, 3)
    expect(huge.x + huge.w).toBeLessThanOrEqual(1 + 1e-9)
    expect(huge.y + huge.h).toBeLessThanOrEqual(1 + 1e-9)
    expect(huge.h / huge.w).toBeCloseTo(r.h / r.w, 9)
    expect(resizeRect(r, 'bottom-right', -3, -3).w).toBe(MIN_SIZE)
  })

  it('without keepAspect, width and height follow the drag on their own', () => {
    const band = resizeRect({ x: 0.1, y: 0.8, w: 0.5, h: 0.1 }, 'bottom-right', 0.2, -0.02, false)
    expect(band.w).toBeCloseTo(0.7, 9)
    expect(band.h).toBeCloseTo(0.08, 9)
  })
})

describe('snapRect', () => {
  it('snaps a left edge near 0 onto the edge, and says which guide', () => {
    const s = snapRect({ x: 0.01, y: 0.3, w: 0.2, h: 0.2 }, A)
    expect(s.rect.x).toBe(0)
    expect(s.guides).toContain('x:0')
    expect(s.rect.y).toBe(0.3) // nothing near on y
  })

  it('snaps a right edge to the corner margin, a centre to the middle', () => {
    const mx = PIP_MARGIN / A
    const s = snapRect({ x: 1 - mx - 0.2 + 0.008, y: 0.5 - 0.1 + 0.01, w: 0.2, h: 0.2 }, A)
    expect(s.rect.x + s.rect.w).toBeCloseTo(1 - mx, 9)
    expect(s.rect.y + s.rect.h / 2).toBeCloseTo(0.5, 9)
    expect(s.guides).toEqual([`x:${Math.round((1 - mx) * 1000) / 1000}`, 'y:0.5'])
  })

  it('leaves a rect alone when no guide is near, and never changes its size', () => {
    const r = { x: 0.3, y: 0.3, w: 0.13, h: 0.07 }
    const s = snapRect(r, A)
    expect(s.rect).toEqual(r)
    expect(s.guides).toEqual([])
  })
})

it('toPixels: whole pixels, and adjacent rects share their edge exactly', () => {
  const [l, r] = sideBySideRects()
  const a = toPixels({ x: 0, y: 0, w: 1 / 3, h: 1 }, W, H)
  const b = toPixels({ x: 1 / 3, y: 0, w: 1 / 3, h: 1 }, W, H)
  expect(a.x + a.w).toBe(b.x)
  expect(Number.isInteger(a.w) && Number.isInteger(b.w)).toBe(true)
  expect(toPixels(l, W, H).x + toPixels(l, W, H).w).toBeLessThan(toPixels(r, W, H).x)
})

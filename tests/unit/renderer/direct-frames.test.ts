// A scene's frames read as the compositor draws them (direct-frames.ts): one at a time, the newest
// kept while one is in hand, every frame closed, and a stop that lets go of the tap. The frames here
// are plain objects with close(): Node has no VideoFrame, and the reading only ever closes them.
import { describe, expect, it } from 'vitest'
import {
  readTapped,
  type FrameTap
} from '../../../src/renderer/src/features/live/engine/direct-frames'

interface Fake {
  n: number
  closed: number
  close(): void
}
const frame = (n: number): Fake => ({
  n,
  closed: 0,
  close() {
    this.closed++
  }
})
const asFrame = (f: Fake): VideoFrame => f as unknown as VideoFrame
const numberOf = (f: VideoFrame): number => (f as unknown as Fake).n

/** A tap a test draws frames into by hand. */
function fakeTap(): { tap: FrameTap; draw(f: Fake): void; taken: () => boolean } {
  let each: ((f: VideoFrame) => void) | null = null
  return {
    tap: (fn) => {
      each = fn
      return () => (each = null)
    },
    draw: (f) => (each ? each(asFrame(f)) : f.close()),
    taken: () => each !== null
  }
}

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 0))

describe('readTapped', () => {
  it('hands frames over one at a time; one drawn meanwhile waits, a newer one replaces it, each closed once', async () => {
    const t = fakeTap()
    const handled: number[] = []
    const releases: (() => void)[] = []
    let skipped = 0
    const r = readTapped(
      t.tap,
      (f) => {
        handled.push(numberOf(f))
        return new Promise<void>((done) => releases.push(done))
      },
      () => undefined,
      () => skipped++
    )
    const frames = [1, 2, 3, 4].map(frame)
    t.draw(frames[0]!) // taken at once
    t.draw(frames[1]!) // waits
    t.draw(frames[2]!) // replaces 2
    expect(handled).toEqual([1])
    expect(frames[1]!.closed).toBe(1)
    expect(skipped).toBe(1)
    releases.shift()!()
    await tick()
    expect(handled).toEqual([1, 3])
    expect(frames[0]!.closed).toBe(1)
    releases.shift()!()
    await tick()
    t.draw(frames[3]!) // nothing in hand: taken at once
    expect(handled).toEqual([1, 3, 4])
    releases.shift()!()
    r.stop()
    await r.loop
    expect(frames.map((f) => f.closed)).toEqual([1, 1, 1, 1])
  })

  it('a stop lets go of the tap, closes the frame waiting unread and ends once the one in hand is done', async () => {
    const t = fakeTap()
    const handled: number[] = []
    let release: () => void = () => {}
    const r = readTapped(
      t.tap,
      (f) => {
        handled.push(numberOf(f))
        return new Promise<void>((done) => (release = done))
      },
      () => undefined
    )
    expect(t.taken()).toBe(true)
    const inHand = frame(1)
    const waiting = frame(2)
    t.draw(inHand)
    t.draw(waiting)
    r.stop()
    expect(t.taken()).toBe(false)
    expect(waiting.closed).toBe(1)
    let ended = false
    void r.loop.then(() => (ended = true))
    await tick()
    expect(ended).toBe(false)
    release()
    await r.loop
    expect(handled).toEqual([1])
    expect(inHand.closed).toBe(1)
  })

  it('a frame whose handling throws is closed and said; the reading goes on', async () => {
    const t = fakeTap()
    const errors: unknown[] = []
    const handled: number[] = []
    const r = readTapped(
      t.tap,
      (f) => {
        if (numberOf(f) === 1) throw new Error('encoder gone')
        handled.push(numberOf(f))
      },
      (e) => errors.push(e)
    )
    const a = frame(1)
    const b = frame(2)
    t.draw(a)
    await tick()
    t.draw(b)
    await tick()
    r.stop()
    await r.loop
    expect(errors).toHaveLength(1)
    expect(handled).toEqual([2])
    expect([a.closed, b.closed]).toEqual([1, 1])
  })
})

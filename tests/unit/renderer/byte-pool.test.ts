// BytePool: the raw pusher's buffers, given back once a call is answered and taken again for the next
// frame, so a steady send makes no new buffer a frame; a transferred (detached) buffer is dropped.
import { describe, expect, it } from 'vitest'
import { BytePool } from '../../../src/renderer/src/features/live/engine/byte-pool'

describe('BytePool', () => {
  it('gives the same memory back for the next frame, in the size asked', () => {
    const pool = new BytePool()
    const a = pool.take(1000)
    expect(a.byteLength).toBe(1000)
    pool.give(a)
    const b = pool.take(900)
    expect(b.buffer).toBe(a.buffer)
    expect(b.byteLength).toBe(900)
    // Taken: not handed out twice.
    expect(pool.take(900).buffer).not.toBe(a.buffer)
  })

  it('picks the smallest that fits, keeps only the largest few, and drops detached buffers', () => {
    const pool = new BytePool(2)
    const small = pool.take(100)
    const mid = pool.take(500)
    const big = pool.take(3000)
    pool.give(small)
    pool.give(mid)
    pool.give(big)
    expect(pool.size).toBe(2)
    expect(pool.take(200).buffer).toBe(mid.buffer)
    const moved = pool.take(50)
    structuredClone(moved.buffer, { transfer: [moved.buffer] })
    pool.give(moved)
    expect(pool.size).toBe(0)
  })
})

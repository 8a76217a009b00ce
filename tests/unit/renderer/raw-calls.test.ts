// The raw pusher's calls to main (features/live/engine/raw-calls.ts, #33): two calls unanswered at once, not
// one; what comes while both are unanswered goes in the next call, whole and in order; buffers go back
// to the pool once their call is answered; a refused call stops the sending with its error.
import { describe, expect, it } from 'vitest'
import { BytePool } from '../../../src/renderer/src/features/live/engine/byte-pool'
import { MAX_IN_FLIGHT, RawCalls } from '../../../src/renderer/src/features/live/engine/raw-calls'
import type { AppError, Result } from '../../../src/shared/result'

function setup() {
  const sent: { bytes: number[]; answer: (r: Result<void>) => void }[] = []
  const errors: AppError[] = []
  let empty = 0
  const pool = new BytePool()
  const calls = new RawCalls({
    send: (bytes) => new Promise((answer) => sent.push({ bytes: [...bytes], answer })),
    pool,
    onError: (e) => errors.push(e),
    onEmpty: () => empty++
  })
  const ok = async (i: number): Promise<void> => {
    sent[i]!.answer({ ok: true, value: undefined })
    await Promise.resolve()
    await Promise.resolve()
  }
  return { sent, errors, pool, calls, ok, empty: () => empty }
}

const msg = (b: number): Uint8Array => Uint8Array.from([b, b])

describe('raw calls: two frames in flight', () => {
  it('sends a second frame before the first is answered, then waits', () => {
    const { sent, calls } = setup()
    expect(MAX_IN_FLIGHT).toBe(2)
    calls.add([msg(1)], 1)
    calls.add([msg(2)], 1)
    expect(sent.map((s) => s.bytes)).toEqual([
      [1, 1],
      [2, 2]
    ])
    expect(calls.unanswered).toBe(2)
    calls.add([msg(3)], 1)
    expect(sent).toHaveLength(2)
    expect(calls.frames).toBe(1)
  })

  it('what came meanwhile goes in the next call, whole and in order, once one is answered', async () => {
    const { sent, calls, ok, pool, empty } = setup()
    calls.add([msg(1)], 1)
    calls.add([msg(2)], 1)
    calls.add([msg(3)], 1)
    calls.add([msg(4), msg(5)], 1)
    await ok(0)
    expect(sent.map((s) => s.bytes)).toEqual([
      [1, 1],
      [2, 2],
      [3, 3, 4, 4, 5, 5]
    ])
    expect(calls.frames).toBe(0)
    expect(pool.size).toBeGreaterThan(0)
    await ok(1)
    expect(empty()).toBe(0)
    await ok(2)
    expect(calls.idle).toBe(true)
    expect(empty()).toBe(1)
  })

  it('a refused call stops the sending with its error', async () => {
    const { sent, calls, errors } = setup()
    calls.add([msg(1)], 1)
    calls.add([msg(2)], 1)
    calls.add([msg(3)], 1)
    sent[0]!.answer({ ok: false, error: { code: 'not-found', message: 'the run ended' } })
    await Promise.resolve()
    await Promise.resolve()
    expect(errors).toEqual([{ code: 'not-found', message: 'the run ended' }])
    sent[1]!.answer({ ok: true, value: undefined })
    calls.add([msg(4)], 1)
    await Promise.resolve()
    expect(sent).toHaveLength(2)
  })
})

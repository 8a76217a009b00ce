// The page's pushes carry a sequence number so more than one can be in flight: the web shell's POSTs
// may reach main out of order, and main takes them in order (push-order.ts).
import { describe, expect, it } from 'vitest'
import { PushOrder } from '../../../src/main/core/push-order'

const bytes = (n: number): Uint8Array => new Uint8Array([n])

describe('PushOrder', () => {
  it('hands pushes on in sequence order whatever order they arrive in', async () => {
    const order = new PushOrder()
    const got: number[] = []
    const take = async (c: Uint8Array): Promise<void> => void got.push(c[0]!)
    await order.push('run-1', bytes(1), 1, take)
    await order.push('run-1', bytes(2), 2, take)
    expect(got).toEqual([])
    await order.push('run-1', bytes(0), 0, take)
    expect(got).toEqual([0, 1, 2])
    await order.push('run-1', bytes(4), 4, take)
    await order.push('run-1', bytes(3), 3, take)
    expect(got).toEqual([0, 1, 2, 3, 4])
  })

  it('a push without a number goes on at once (MediaRecorder: one at a time)', async () => {
    const order = new PushOrder()
    const got: number[] = []
    await order.push('run-1', bytes(7), undefined, async (c) => void got.push(c[0]!))
    expect(got).toEqual([7])
  })

  it('a new run starts its own sequence; a number already taken is refused', async () => {
    const order = new PushOrder()
    const got: number[] = []
    const take = async (c: Uint8Array): Promise<void> => void got.push(c[0]!)
    await order.push('run-1', bytes(0), 0, take)
    await expect(order.push('run-1', bytes(9), 0, take)).rejects.toThrow(/already/)
    await order.push('run-2', bytes(5), 0, take)
    expect(got).toEqual([0, 5])
  })

  it('too many pushes waiting for a missing one is an error, not memory held for ever', async () => {
    const order = new PushOrder()
    const take = async (): Promise<void> => {}
    let failed: unknown
    for (let i = 1; i < 200 && !failed; i++)
      await order.push('run-1', bytes(i), i, take).catch((e: unknown) => (failed = e))
    expect(String(failed)).toMatch(/missing/)
  })

  it("a late push of an earlier run does not reset the next run's count", async () => {
    const order = new PushOrder()
    const got: string[] = []
    const take =
      (run: string) =>
      async (c: Uint8Array): Promise<void> =>
        void got.push(`${run}${c[0]}`)
    await order.push('run-1', bytes(0), 0, take('a'))
    await order.push('run-2', bytes(0), 0, take('b'))
    // run-1's last push arrives after run-2 began; then run-2 goes on.
    await order.push('run-1', bytes(1), 1, take('a'))
    await order.push('run-2', bytes(1), 1, take('b'))
    expect(got).toEqual(['a0', 'b0', 'a1', 'b1'])
  })
})

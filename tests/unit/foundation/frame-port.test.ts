// Electron's frames port without Electron (#33): the preload's FramePortPusher and main's
// serveFramePort joined by Node's MessageChannel (a real port pair that moves ArrayBuffers). Calls
// go through dispatch (the raw-media check) to the core in order, each answered by its id; the bytes
// are moved, not copied (the sender's buffer is detached); a bad call is answered, not dropped; with
// no port, or a port that cannot move the bytes, pushFrames goes by invoke.
import { MessageChannel } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'
import { serveFramePort } from '../../../src/main/electron/frame-port'
import { FramePortPusher, type FramePortLike } from '../../../src/preload/frame-port'
import type { OnairCalls } from '../../../src/shared/contract'
import { i420Bytes, packRaw } from '../../../src/shared/raw-media'
import type { Result } from '../../../src/shared/result'

const frame = (ts: number): Uint8Array =>
  packRaw(
    { kind: 'video', width: 16, height: 8, timestampUs: ts },
    new Uint8Array(i420Bytes(16, 8))
  )

function joined(got: { runId: string; ts: number }[]) {
  const { port1, port2 } = new MessageChannel()
  const core = {
    pushFrames: async (runId: string, chunk: Uint8Array) => {
      got.push({ runId, ts: new DataView(chunk.buffer, chunk.byteOffset).getFloat64(16, true) })
    }
  } as unknown as OnairCalls
  serveFramePort(
    {
      on: (_e, fn) => port2.on('message', (data: unknown) => fn({ data })),
      postMessage: (m) => port2.postMessage(m)
    },
    core
  )
  const invoked: string[] = []
  const pusher = new FramePortPusher(async (runId) => {
    invoked.push(runId)
    return { ok: true, value: null }
  })
  return { port1, port2, pusher, invoked }
}

describe('frames port (Electron, by injection)', () => {
  it('moves each call to the core in order and answers it by id', async () => {
    const got: { runId: string; ts: number }[] = []
    const { port1, port2, pusher, invoked } = joined(got)
    pusher.use(port1 as unknown as FramePortLike)
    const sent = [frame(1), frame(2), frame(3)]
    const answers = await Promise.all(sent.map((f) => pusher.push('run-1', f)))
    expect(answers).toEqual([
      { ok: true, value: undefined },
      { ok: true, value: undefined },
      { ok: true, value: undefined }
    ])
    expect(got).toEqual([1, 2, 3].map((ts) => ({ runId: 'run-1', ts })))
    // Moved, not cloned: the sender's buffers are detached.
    expect(sent.map((f) => f.buffer.byteLength)).toEqual([0, 0, 0])
    expect(invoked).toEqual([])
    port1.close()
    port2.close()
  })

  it("answers a malformed call with the raw-media reader's words", async () => {
    const { port1, port2, pusher } = joined([])
    pusher.use(port1 as unknown as FramePortLike)
    const r = (await pusher.push('run-1', frame(1).subarray(0, 40))) as Result<unknown>
    expect(r).toMatchObject({ ok: false, error: { code: 'bad-request' } })
    expect(!r.ok && r.error.message).toContain('cut short')
    port1.close()
    port2.close()
  })

  it('goes by invoke with no port, or when the port cannot move the bytes', async () => {
    const { port1, port2, pusher, invoked } = joined([])
    await pusher.push('before-port', frame(1))
    pusher.use({
      postMessage: () => {
        throw new Error('DataCloneError')
      },
      onmessage: null,
      close: () => undefined
    })
    await pusher.push('port-fails', frame(2))
    await pusher.push('after', frame(3))
    expect(invoked).toEqual(['before-port', 'port-fails', 'after'])
    port1.close()
    port2.close()
  })
})

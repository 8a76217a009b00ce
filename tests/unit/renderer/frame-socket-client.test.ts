// The web bridge's frame sockets (bridge/frame-socket.ts) with a stand-in WebSocket: one socket a run,
// calls made before it opens sent once it does, each answered in order by main's text answers, a close
// answering what still waits with main's reason (and the next call reopening), an idle socket closed.
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  FrameSockets,
  IDLE_CLOSE_MS,
  type SocketLike
} from '../../../src/renderer/src/bridge/frame-socket'

class FakeSocket implements SocketLike {
  binaryType = 'blob'
  readyState = 0
  sent: Uint8Array[] = []
  closedWith: number | undefined
  onopen: SocketLike['onopen'] = null
  onmessage: SocketLike['onmessage'] = null
  onclose: SocketLike['onclose'] = null
  onerror: SocketLike['onerror'] = null
  constructor(readonly url: string) {}
  send(data: Uint8Array): void {
    this.sent.push(data)
  }
  close(code?: number): void {
    this.closedWith = code
    this.readyState = 3
    this.onclose?.({ code: code ?? 1005, reason: '' })
  }
  open(): void {
    this.readyState = 1
    this.onopen?.({})
  }
  answer(r: unknown): void {
    this.onmessage?.({ data: JSON.stringify(r) })
  }
}

function setup() {
  const opened: FakeSocket[] = []
  const sockets = new FrameSockets(
    (url) => {
      const s = new FakeSocket(url)
      opened.push(s)
      return s
    },
    (runId) => `ws://127.0.0.1/frames?runId=${runId}`
  )
  return { sockets, opened }
}

afterEach(() => vi.useRealTimers())

describe('frame sockets (page side)', () => {
  it('opens one socket a run, sends what waited once open, and answers calls in order', async () => {
    const { sockets, opened } = setup()
    const a = sockets.push('run-1', Uint8Array.of(1))
    const b = sockets.push('run-1', Uint8Array.of(2))
    const other = sockets.push('run-2', Uint8Array.of(3))
    expect(opened.map((s) => s.url)).toEqual([
      'ws://127.0.0.1/frames?runId=run-1',
      'ws://127.0.0.1/frames?runId=run-2'
    ])
    expect(opened[0]!.sent).toEqual([])
    opened[0]!.open()
    expect(opened[0]!.sent).toEqual([Uint8Array.of(1), Uint8Array.of(2)])
    expect(sockets.inFlight).toBe(3)
    opened[0]!.answer({ ok: true, value: null })
    opened[0]!.answer({ ok: false, error: { code: 'bad-request', message: 'wrong size' } })
    expect(await a).toEqual({ ok: true, value: undefined })
    expect(await b).toMatchObject({ ok: false, error: { message: 'wrong size' } })
    opened[1]!.open()
    opened[1]!.answer({ ok: true, value: null })
    expect(await other).toEqual({ ok: true, value: undefined })
    expect(sockets.inFlight).toBe(0)
  })

  it("answers what waits with main's close reason, and the next call opens a new socket", async () => {
    const { sockets, opened } = setup()
    const a = sockets.push('run-1', Uint8Array.of(1))
    opened[0]!.open()
    opened[0]!.onclose?.({ code: 1008, reason: 'raw media: unknown kind 9' })
    expect(await a).toMatchObject({
      ok: false,
      error: { message: "The frames' connection to Onair closed: raw media: unknown kind 9" }
    })
    void sockets.push('run-1', Uint8Array.of(2))
    expect(opened).toHaveLength(2)
  })

  it('closes a socket left idle (its run ended)', async () => {
    vi.useFakeTimers()
    const { sockets, opened } = setup()
    const a = sockets.push('run-1', Uint8Array.of(1))
    opened[0]!.open()
    opened[0]!.answer({ ok: true, value: null })
    await a
    vi.advanceTimersByTime(IDLE_CLOSE_MS - 1)
    expect(opened[0]!.closedWith).toBeUndefined()
    vi.advanceTimersByTime(1)
    expect(opened[0]!.closedWith).toBe(1000)
  })
})

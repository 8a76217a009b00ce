// The web shell's frame socket (#33): a run's raw frames and sound for Onair's encoder go over one
// binary WebSocket, `/frames?runId=<id>`, instead of an HTTP POST a call. Each binary message is one
// pushFrames call (whole raw-media messages, shared/raw-media.ts): it goes through the same dispatch as
// every call (the contract's argument checks, then the core), and is answered with a text message, the
// call's Result as JSON, in the order the calls came. The page keeps up to two unanswered
// (raw-pusher.ts). A text message, or a call that is refused (bytes that break the raw-media format, a
// run that has ended), closes the socket with a code and the refusal's words as the reason: the page
// sees why, and its next call opens a new socket.
//
// Why a socket: measured without a DevTools client attached (bench/results.md, 'encoder: raw frame
// transport ...'), a 720p30 picture stream costs the browser and main less as WebSocket messages than
// as one POST of a Blob each. Under Playwright (the e2e tests) it is the other way round: Chromium's
// DevTools copies every WebSocket message into a base64 event for the driver.
// The caller (web-shell.ts) checks Host, Origin and the session before the upgrade; the server it
// hands this socket from never compresses (raw pictures do not shrink enough to pay for it) and takes
// messages up to a call's bound.
import type { WebSocket } from 'ws'
import type { Result } from '../../shared/result'

/** One call's bytes to its answer: dispatch('pushFrames', [runId, bytes]) in the web shell. */
export type FrameCall = (bytes: Uint8Array) => Promise<Result<unknown>>

/** Close codes (RFC 6455 §7.4.1). */
export const FRAME_CLOSE = {
  normal: 1000,
  unsupported: 1003,
  policy: 1008
} as const

/** The run a /frames upgrade names, or undefined when it names none (answered 400 before the upgrade). */
export function frameRunId(url: URL): string | undefined {
  const runId = url.searchParams.get('runId') ?? ''
  return runId && runId.length <= 200 ? runId : undefined
}

/** A close frame's reason is at most 123 bytes of UTF-8: cut whole characters off the end. */
export function closeReason(text: string): string {
  let t = text
  while (Buffer.byteLength(t) > 123) t = t.slice(0, -1)
  return t
}

/** Serves one page's frame socket: each binary message is one call, answered in order. */
export function serveFrameSocket(
  ws: WebSocket,
  call: FrameCall,
  log: (line: string) => void = () => {}
): void {
  let chain: Promise<void> = Promise.resolve()
  let closed = false
  const close = (code: number, reason: string): void => {
    if (closed) return
    closed = true
    log(`frame socket closed: ${reason}`)
    ws.close(code, closeReason(reason))
  }
  ws.on('message', (data, isBinary) => {
    if (closed) return
    if (!isBinary) return close(FRAME_CLOSE.unsupported, 'the frame socket takes binary messages only')
    // ws hands one Buffer a message (no fragments kept apart: the server's default binaryType).
    const b = data as Buffer
    const bytes = new Uint8Array(b.buffer, b.byteOffset, b.byteLength)
    chain = chain.then(async () => {
      if (closed) return
      const answer = await call(bytes)
      if (closed) return
      ws.send(JSON.stringify(answer.ok ? { ok: true, value: null } : answer))
      if (!answer.ok) close(FRAME_CLOSE.policy, answer.error.message)
    })
  })
  ws.on('error', (e) => {
    // ws closes the socket itself after an error (a message over maxPayload, a protocol error).
    log(`frame socket: ${e.message}`)
    closed = true
  })
  ws.on('close', () => {
    closed = true
  })
}

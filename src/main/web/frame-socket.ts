// The web shell's frame socket (#33): raw frames and sound (shared/raw-media.ts) from the page to
// Onair's encoder over one binary WebSocket per run, `/frames?runId=<id>`, instead of an HTTP POST a
// call. The WebSocket is the `ws` package's (web-shell.ts opens it with per-message deflate off and
// maxPayload at MAX_CALL_BYTES): it unmasks each message and hands it over whole, and the message is
// cut into raw-media messages (RawAssembler) whose payloads stay views of it; those views go to the
// encoder's stdin as they are (EncoderHost.pushRawPieces).
//
// One WebSocket message is one pushFrames call: whole raw-media messages. Each is answered with a text
// message, the call's Result as JSON, in order; the page keeps up to two unanswered (its backpressure,
// raw-pusher.ts). Bytes that break the format (a raw-media header, a message that ends inside a
// raw-media message, text) close the socket with a code and a reason that says what was wrong; a call
// the core refuses (the run ended, a wrong size) is answered with its error and closes the socket too.
// The caller (web-shell.ts) checks Host, Origin and the session before the upgrade.
import type { WebSocket } from 'ws'
import { RawAssembler, type RawPieces } from '../../shared/raw-media'
import { AppFailure, type AppError, type Result } from '../../shared/result'
import { redactSecrets } from '../../shared/redact'

/** Where whole messages go: the core's pushFramePieces for the run. Throws AppFailure to refuse. */
export type FrameSink = (runId: string, messages: RawPieces[]) => Promise<void> | void

/** Close codes (RFC 6455 §7.4.1). */
export const CLOSE = {
  normal: 1000,
  unsupported: 1003,
  policy: 1008
} as const

export interface FrameSocketOptions {
  sink: FrameSink
  log?: (line: string) => void
}

/** The run a /frames upgrade names, or undefined when it names none (answered 400 before the upgrade). */
export function frameRunId(url: URL): string | undefined {
  const runId = url.searchParams.get('runId') ?? ''
  return runId && runId.length <= 200 ? runId : undefined
}

/** Serves one page's frame socket for a run: hands each call's messages on and answers it. */
export function serveFrameSocket(ws: WebSocket, runId: string, o: FrameSocketOptions): void {
  const raw = new RawAssembler()
  /** Calls handed on in order; each answered when its own and every earlier one is done. */
  let chain: Promise<void> = Promise.resolve()
  let closed = false

  const close = (code: number, reason: string): void => {
    if (closed) return
    closed = true
    if (code !== CLOSE.normal) o.log?.(`frame socket closed: ${reason}`)
    // A close frame's reason is at most 123 bytes.
    let text = Buffer.from(reason)
    if (text.length > 123) text = text.subarray(0, 120)
    ws.close(code, text)
  }

  const failure = (e: unknown): AppError => {
    if (e instanceof AppFailure) return e.error
    const message = redactSecrets(e instanceof Error ? e.message : String(e))
    o.log?.(`frame socket: pushFrames failed unexpectedly: ${message}`)
    return { code: 'internal', message: `Something went wrong in pushFrames: ${message}` }
  }

  ws.on('message', (data, isBinary) => {
    if (closed) return
    if (!isBinary) return close(CLOSE.unsupported, 'the frame socket takes binary messages only')
    const chunks = Array.isArray(data)
      ? data
      : [data instanceof ArrayBuffer ? Buffer.from(data) : data]
    const messages: RawPieces[] = []
    for (const c of chunks) {
      const r = raw.push(new Uint8Array(c.buffer, c.byteOffset, c.byteLength), (m) =>
        messages.push(m)
      )
      if (!r.ok) return close(CLOSE.policy, r.error)
    }
    // A whole call: it must end where a raw-media message ends.
    if (raw.pending > 0) return close(CLOSE.policy, 'raw media: a call ended inside a message')
    chain = chain.then(async () => {
      if (closed) return
      let answer: Result<null>
      try {
        if (messages.length) await o.sink(runId, messages)
        answer = { ok: true, value: null }
      } catch (e) {
        answer = { ok: false, error: failure(e) }
      }
      if (closed) return
      ws.send(JSON.stringify(answer))
      if (!answer.ok) close(CLOSE.policy, answer.error.message)
    })
  })
  ws.on('error', (e) => {
    // ws closes the socket itself after an error (a message over maxPayload, a protocol error).
    o.log?.(`frame socket: ${e.message}`)
    closed = true
  })
  ws.on('close', () => {
    closed = true
  })
}

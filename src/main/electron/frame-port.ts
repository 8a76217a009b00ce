// Main's end of Electron's frames port (#33; the preload's frame-port.ts): calls come with their bytes
// transferred, are checked and run by dispatch() exactly as an invoke of pushFrames is (the schema's
// raw-media reader, AppFailure to a Result), and are answered by id. The port is made by main and sent
// only to our own window's top frame (index.ts), so whoever holds it is the renderer we loaded.
// A plain module, driven in tests by Node's MessageChannel (Electron cannot run there).
import type { OnairCalls } from '../../shared/contract'
import type { Result } from '../../shared/result'
import { dispatch } from '../core/dispatch'

/** The part of Electron's MessagePortMain (or Node's MessagePort) used here. */
export interface MainPortLike {
  on(event: 'message', fn: (ev: { data: unknown }) => void): unknown
  postMessage(message: unknown): void
  start?(): void
}

const bad = (message: string): Result<never> => ({
  ok: false,
  error: { code: 'bad-request', message }
})

/** What a call's bytes are, or why the call cannot be read. */
function bytesOf(m: Record<string, unknown>): Uint8Array | string {
  const { offset, length } = m
  // The moved ArrayBuffer; a view of one where a runtime hands it over so.
  const buffer = ArrayBuffer.isView(m.buffer)
    ? m.buffer.buffer.slice(m.buffer.byteOffset, m.buffer.byteOffset + m.buffer.byteLength)
    : m.buffer
  if (!(buffer instanceof ArrayBuffer)) return 'a frames call carries no bytes'
  if (
    !Number.isInteger(offset) ||
    !Number.isInteger(length) ||
    (offset as number) < 0 ||
    (length as number) < 0 ||
    (offset as number) + (length as number) > buffer.byteLength
  )
    return 'a frames call names bytes outside its buffer'
  return new Uint8Array(buffer, offset as number, length as number)
}

export function serveFramePort(
  port: MainPortLike,
  core: OnairCalls,
  log?: (line: string) => void
): void {
  // Answered in the order they came: the encoder takes the frames in order.
  let chain: Promise<void> = Promise.resolve()
  port.on('message', (ev) => {
    const m = ev.data as Record<string, unknown> | null
    if (!m || typeof m !== 'object' || typeof m.id !== 'number') return
    const id = m.id
    const bytes = bytesOf(m)
    chain = chain.then(async () => {
      const result =
        typeof bytes === 'string'
          ? bad(bytes)
          : await dispatch(core, 'pushFrames', [m.runId, bytes], { log })
      port.postMessage({ id, result })
    })
  })
  port.start?.()
}
